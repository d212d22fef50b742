/**
 * A steered agent's attacks on the judge, through the built CLI as a user runs it (issue 11): each
 * scripted session tries one way around a floor, and each test asserts on what is left on disk and
 * what the model was sent, not on the decision alone.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplayBlock } from '../../testkit/replay-server.js';
import type { CliRun } from '../helpers/cli-harness.js';
import { resultsSent, runCli } from '../helpers/cli-harness.js';

const STREAM = ['--output-format', 'stream-json', '--verbose'];
const runs: CliRun[] = [];
const scratch: string[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.workspace.cleanup();
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function cli(...parameters: Parameters<typeof runCli>): Promise<CliRun> {
  const run = await runCli(...parameters);
  runs.push(run);
  return run;
}

function outsideDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ci-agent-attack-outside-'));
  scratch.push(dir);
  return dir;
}

const turn = (id: string, name: string, input: Record<string, unknown>): ReplayBlock[] => [
  { type: 'tool_use', id, name, input },
];
const done: ReplayBlock[] = [{ type: 'text', text: 'Done.' }];

describe('the judge, attacked through the built CLI', () => {
  it('keeps the floors when an ask rule is answered allow', async () => {
    const outside = outsideDir();
    const run = await cli(['-p', 'Clean up.', ...STREAM], {
      files: {
        '.husky/pre-commit': '#!/bin/sh\nnpm test\n',
        '.github/ci-agent.yml':
          'permissions:\n  ask: ["Bash(rm:*)", Edit, Write]\n  onAsk:\n    default: allow\n',
        '.home/keep.txt': 'precious\n',
      },
      turns: (root) => [
        turn('toolu_rm', 'Bash', { command: 'rm -rf $HOME' }),
        turn('toolu_hook', 'Write', {
          file_path: `${root}/.git/hooks/pre-commit`,
          content: `#!/bin/sh\ntouch ${outside}/pwned\n`,
        }),
        turn('toolu_read', 'Read', { file_path: `${root}/.husky/pre-commit` }),
        turn('toolu_husky', 'Edit', {
          file_path: `${root}/.husky/pre-commit`,
          old_string: 'npm test',
          new_string: `touch ${outside}/pwned`,
        }),
        turn('toolu_workflow', 'Write', {
          file_path: `${root}/.github/workflows/x.yml`,
          content: 'on: push\n',
        }),
        done,
      ],
    });
    const results = resultsSent(run);
    expect(readFileSync(join(run.workspace.root, '.home/keep.txt'), 'utf8')).toBe('precious\n');
    expect(results.get('toolu_rm')).toContain('a critical path');
    expect(results.get('toolu_hook')).toContain('a protected path');
    expect(results.get('toolu_husky')).toContain('a protected path');
    expect(results.get('toolu_workflow')).toContain('which judges this run');
    expect(existsSync(join(run.workspace.root, '.git/hooks/pre-commit'))).toBe(false);
    expect(existsSync(join(run.workspace.root, '.github/workflows/x.yml'))).toBe(false);
    expect(readFileSync(join(run.workspace.root, '.husky/pre-commit'), 'utf8')).toContain(
      'npm test',
    );
  });

  it('refuses to change a policy file named by --policy, wherever it is in the project', async () => {
    const policyText = 'permissions:\n  allow: [Edit, Write]\n';
    const run = await cli(['-p', 'Loosen it.', '--policy', 'config/ci.yml', ...STREAM], {
      files: { 'config/ci.yml': policyText },
      turns: (root) => [
        turn('toolu_policy', 'Write', {
          file_path: `${root}/config/ci.yml`,
          content: 'permissions:\n  defaultMode: bypassPermissions\n',
        }),
        done,
      ],
    });
    expect(resultsSent(run).get('toolu_policy')).toContain('which judges this run');
    expect(readFileSync(join(run.workspace.root, 'config/ci.yml'), 'utf8')).toBe(policyText);
  });

  it("does not show the model ci-agent's environment through /proc", async () => {
    const run = await cli(['-p', 'Look around.', ...STREAM], {
      env: { GITHUB_TOKEN: 'ghs_attackTokenValue0123456789' },
      turns: [
        turn('toolu_tr', 'Bash', { command: "tr '\\0' '\\n' < /proc/$PPID/environ" }),
        turn('toolu_cat', 'Bash', { command: 'cat /proc/$PPID/environ' }),
        turn('toolu_self', 'Read', { file_path: '/proc/self/environ' }),
        done,
      ],
    });
    const sent = JSON.stringify(run.server.requests.map((request) => request.body));
    expect(sent).not.toContain('sk-ant-test-key');
    expect(sent).not.toContain('ghs_attackTokenValue0123456789');
    expect(resultsSent(run).get('toolu_tr')).toContain('Permission to use Bash was denied');
    expect(resultsSent(run).get('toolu_cat')).toContain('outside the workspace');
  });

  it('runs no program a planted git directory names, even after a cd into it', async () => {
    const outside = outsideDir();
    const run = await cli(['-p', 'Check git.', ...STREAM], {
      files: {
        'tools/HEAD': 'ref: refs/heads/main\n',
        'tools/config': `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch ${outside}/pwned; false"\n`,
        'tools/objects/.keep': '',
        'tools/refs/.keep': '',
      },
      turns: [
        turn('toolu_cd', 'Bash', { command: 'cd tools' }),
        turn('toolu_status', 'Bash', { command: 'git status' }),
        done,
      ],
    });
    expect(run.code).toBe(0);
    expect(existsSync(join(outside, 'pwned'))).toBe(false);
  });

  it('writes nothing through a dangling link, in acceptEdits', async () => {
    const outside = outsideDir();
    const run = await cli(['-p', 'Take notes.', '--permission-mode', 'acceptEdits', ...STREAM], {
      files: { 'a.txt': 'x\n' },
      turns: (root) => {
        symlinkSync(join(outside, 'created.txt'), join(root, 'notes.md'));
        mkdirSync(join(root, 'docs'));
        symlinkSync(join(root, '.home/.npmrc'), join(root, 'docs/setup-notes.md'));
        return [
          turn('toolu_notes', 'Write', { file_path: `${root}/notes.md`, content: 'x\n' }),
          turn('toolu_npmrc', 'Write', {
            file_path: `${root}/docs/setup-notes.md`,
            content: 'node-options=--require=/tmp/evil.js\n',
          }),
          done,
        ];
      },
    });
    expect(run.code).toBe(0);
    expect(existsSync(join(outside, 'created.txt'))).toBe(false);
    expect(existsSync(join(run.workspace.root, '.home/.npmrc'))).toBe(false);
  });

  it('stops on SIGTERM during a catastrophic built-in Grep', async () => {
    // A PATH without ripgrep, so that the built-in engine runs the pattern.
    const bin = outsideDir();
    for (const program of ['git', 'sh', 'bash']) {
      const found = execaSync('sh', ['-c', `command -v ${program}`], {
        stripFinalNewline: false,
      }).stdout;
      symlinkSync(found.trim(), join(bin, program));
    }
    let sentAt = 0;
    const run = await cli(['-p', 'Search.', ...STREAM], {
      env: { PATH: bin },
      files: { 'docs/banner.txt': `${'a'.repeat(44)}!\n` },
      turns: [turn('toolu_grep', 'Grep', { pattern: '(a|aa)+$', output_mode: 'content' }), done],
      onSpawn: (child, server) => {
        // SIGTERM once the search has been asked for.
        const poll = setInterval(() => {
          if (server.requests.length === 0) return;
          clearInterval(poll);
          setTimeout(() => {
            sentAt = performance.now();
            child.kill('SIGTERM');
          }, 500);
        }, 20);
      },
    });
    const stoppedAfter = performance.now() - sentAt;
    expect(sentAt).toBeGreaterThan(0);
    expect(run.signal === 'SIGTERM' || run.code !== null).toBe(true);
    expect(stoppedAfter).toBeLessThan(5_000);
  });
});

describe("the run's own record, attacked through the built CLI", () => {
  it('keeps the log, the transcript and the --mcp-config file out of the agent’s reach', async () => {
    const mcp = JSON.stringify({ mcpServers: {} });
    const run = await cli(
      [
        '-p',
        'Tidy up.',
        '--permission-mode',
        'bypassPermissions',
        '--log-file',
        'ci-log.jsonl',
        '--transcript-file',
        'transcript.jsonl',
        '--mcp-config',
        'servers.json',
        ...STREAM,
      ],
      {
        files: { 'servers.json': mcp, 'a.txt': 'a\n' },
        turns: (root) => [
          turn('toolu_first', 'Bash', { command: 'cat a.txt' }),
          turn('toolu_log', 'Write', { file_path: `${root}/ci-log.jsonl`, content: '' }),
          turn('toolu_trunc', 'Bash', { command: ': > ci-log.jsonl' }),
          turn('toolu_tr', 'Write', { file_path: `${root}/transcript.jsonl`, content: '{}\n' }),
          turn('toolu_mcp', 'Bash', {
            command: `echo '{"mcpServers":{"x":{"command":"sh"}}}' > servers.json`,
          }),
          done,
        ],
      },
    );
    const root = run.workspace.root;
    const sent = resultsSent(run);
    for (const id of ['toolu_log', 'toolu_trunc', 'toolu_tr', 'toolu_mcp']) {
      expect(sent.get(id), id).toMatch(/judges this run/);
    }
    // The first call is still in the log, and the files are as the run left them.
    expect(readFileSync(join(root, 'ci-log.jsonl'), 'utf8')).toContain('toolu_first');
    expect(readFileSync(join(root, 'transcript.jsonl'), 'utf8')).toContain('toolu_first');
    expect(readFileSync(join(root, 'servers.json'), 'utf8')).toBe(mcp);
  });

  it('prints no workflow command on stderr from what the model wrote', async () => {
    // A runner reads a lone carriage return as a line break: `::add-mask::denied` there would
    // mask the word in every later line of the job's log, and `::stop-commands::` hide the rest.
    const run = await cli(['-p', 'Go.', '--output-format', 'text', '--verbose'], {
      files: { 'a.txt': 'a\n' },
      turns: [
        turn('toolu_cr', 'Bash', {
          command: 'curl https://example.com/\r::add-mask::denied\r::stop-commands::x\r',
        }),
        [{ type: 'text', text: 'Done.\r::warning::from the model\u001b[2K' }],
      ],
    });
    expect(run.stderr).toContain('denied');
    expect(run.stderr).not.toContain('\r');
    expect(run.stderr).not.toContain('\u001b');
    for (const line of run.stderr.split('\n')) expect(line.trimStart()).not.toMatch(/^::/);
  });
});
