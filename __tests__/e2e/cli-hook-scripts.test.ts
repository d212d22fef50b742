/**
 * A hook whose script lives in the repository outside `.claude/` is held to that file only: what
 * it imports or reads stays the agent's to change. In CI the built CLI says so on stderr, naming
 * the command, as the action does on its step (hooks/hook-scripts.ts); outside CI the developer's
 * own settings are not second-guessed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CliRun } from '../helpers/cli-harness.js';
import { runCli } from '../helpers/cli-harness.js';

const runs: CliRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.workspace.cleanup();
});

const SETTINGS = JSON.stringify({
  hooks: {
    PreToolUse: [
      {
        matcher: 'Bash',
        hooks: [
          { type: 'command', command: 'node scripts/guard.mjs' },
          { type: 'command', command: 'node .claude/hooks/inside.mjs' },
        ],
      },
    ],
  },
});

async function run(ci: boolean): Promise<CliRun> {
  const result = await runCli(['-p', 'look around'], {
    files: {
      '.claude/settings.json': SETTINGS,
      '.claude/hooks/inside.mjs': 'process.exit(0);\n',
      'scripts/guard.mjs': "import './rules.mjs';\n",
      'scripts/rules.mjs': 'process.exit(0);\n',
    },
    turns: [[{ type: 'text', text: 'Done.' }]],
    env: ci ? { CI: 'true', GITHUB_ACTIONS: 'true' } : { CI: 'false' },
  });
  runs.push(result);
  return result;
}

describe('hook scripts outside .claude/ and ci-agent -p', () => {
  it('warns in CI of each one, naming its command, and not of those under .claude/', async () => {
    const result = await run(true);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'Warning: the hook command "node scripts/guard.mjs" runs scripts/guard.mjs, outside .claude/: ci-agent holds that file to its content at the start, but not what it imports or reads. Keep hook scripts',
    );
    expect(result.stderr).not.toContain('inside.mjs');
    // The CLI runs the checkout's own scripts: no pull request's version to speak of.
    expect(result.stderr).not.toContain('pull request');
  });

  it('says nothing of them outside CI', async () => {
    const result = await run(false);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('outside .claude/');
  });
});
