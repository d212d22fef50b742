/**
 * Refusals that tell the truth (issue 11, item 8), through the real pipeline with the real tools:
 * the part of a compound command no rule allows, a command that cannot be parsed, the policy entry
 * that answered an ask, and a Read outside the workspace that answers alike whether the file
 * exists or not.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PermissionDenial } from '../../src/agent/events.js';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import type { ToolUseBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { readTool } from '../../src/tools/builtin/read.js';
import { buildChildEnv } from '../../src/util/child-env.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

const live = () => new AbortController().signal;
const call = (name: string, input: Record<string, unknown>): ToolUseBlock => ({
  type: 'tool_use',
  id: 'toolu_1',
  name,
  input,
});
const rules = (texts: readonly string[]) => texts.map((text) => parseRule(text, 'policy.yml'));
const textOf = (content: unknown) =>
  typeof content === 'string' ? content : JSON.stringify(content);

describe('executeSingleToolUse refusals', () => {
  let workspace: Workspace;
  let outside: string;

  beforeEach(async () => {
    workspace = makeWorkspace('ci-agent-reasons-');
    await workspace.write('a.txt', 'a\n');
    outside = mkdtempSync(join(tmpdir(), 'ci-agent-reasons-outside-'));
    writeFileSync(join(outside, 'id_ed25519'), 'PRIVATE KEY\n');
  });
  afterEach(() => {
    workspace.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  const run = async (
    block: ToolUseBlock,
    policy: Partial<PermissionPolicy>,
  ): Promise<{
    text: string;
    stage: string;
    reason: string | undefined;
    suggestion: PermissionDenial['suggestion'];
  }> => {
    const { deps } = makePipeline([bashTool, readTool], {
      root: workspace.root,
      policy: { mode: 'default', ...policy },
    });
    const outcome = await executeSingleToolUse(
      block,
      {
        ...deps,
        makeContext: (id, signal) => ({
          ...deps.makeContext(id, signal),
          env: buildChildEnv(process.env),
        }),
      },
      live(),
    );
    return {
      text: textOf(outcome.result.content),
      stage: outcome.stage,
      reason: outcome.decision?.reason,
      suggestion: outcome.denial?.suggestion,
    };
  };

  it('names the part of a compound command that no rule allows', async () => {
    const outcome = await run(
      call('Bash', { command: 'echo ok && curl -s http://127.0.0.1:9/x' }),
      {
        allow: rules(['Bash(echo:*)']),
      },
    );
    expect(outcome.stage).toBe('permission');
    expect(outcome.reason).toContain('no rule allows `curl -s http://127.0.0.1:9/x`');
    expect(outcome.reason).not.toContain('`echo ok`');
  });

  it('says a command could not be parsed instead of blaming the rule alone', async () => {
    const outcome = await run(call('Bash', { command: 'for f in a b; do echo $f; done' }), {
      deny: rules(['Bash(rm:*)']),
    });
    expect(outcome.stage).toBe('permission');
    expect(outcome.reason).toContain("denied by rule 'Bash(rm:*)'");
    expect(outcome.reason).toContain(
      'could not be parsed ("for" compound commands are not supported)',
    );
  });

  it('names the command part a deny rule matched in a compound command', async () => {
    const outcome = await run(call('Bash', { command: 'echo a && rm -f a.txt' }), {
      deny: rules(['Bash(rm:*)']),
      allow: rules(['Bash(echo:*)']),
    });
    expect(outcome.reason).toBe("denied by rule 'Bash(rm:*)' (policy.yml) for `rm -f a.txt`");
    expect(readFileSync(join(workspace.root, 'a.txt'), 'utf8')).toBe('a\n');
  });

  it('names the policy entry that answered an ask with allow', async () => {
    const outcome = await run(call('Bash', { command: 'touch made.txt' }), {
      askDefault: 'allow',
      askDefaultSource: '.github/ci-agent.yml',
    });
    expect(outcome.stage).not.toBe('permission');
    expect(outcome.reason).toBe(
      "no rule allows Bash in default mode; nobody can approve in CI and the policy's `permissions.onAsk.default: allow` in .github/ci-agent.yml allows it",
    );
  });

  it('names a per-tool entry that answered an ask with allow', async () => {
    const outcome = await run(call('Bash', { command: 'touch made.txt' }), {
      askDefaultByTool: { Bash: 'allow' },
      askDefaultSource: '.github/ci-agent.yml',
    });
    expect(outcome.reason).toContain(
      '`permissions.onAsk.tools.Bash: allow` in .github/ci-agent.yml',
    );
  });

  it('answers a Read outside the workspace alike whether the file exists or not', async () => {
    const existing = await run(call('Read', { file_path: join(outside, 'id_ed25519') }), {});
    const missing = await run(call('Read', { file_path: join(outside, 'id_rsa') }), {});
    expect(existing.stage).toBe('permission');
    expect(missing.stage).toBe('permission');
    expect(missing.text.replace('id_rsa', 'KEY')).toBe(existing.text.replace('id_ed25519', 'KEY'));
    expect(existing.text).not.toContain('PRIVATE KEY');
  });

  it('records how to allow a denial, and does not tell the model', async () => {
    const outcome = await run(call('Bash', { command: 'npm ci && npm test -- --run' }), {
      allowRulesFile: '.github/ci-agent.yml',
    });
    expect(outcome.stage).toBe('permission');
    expect(outcome.suggestion).toMatchObject({
      allowable: true,
      add_rules: ['Bash(npm ci:*)', 'Bash(npm test:*)'],
      file: '.github/ci-agent.yml',
    });
    // Claude Code's refusal does not say how to get around the policy (docs/DECISIONS.md #22).
    expect(outcome.text).not.toMatch(/permissions\.allow|npm ci:\*|To allow/);
  });

  it('suggests alike for a Read outside whether the file exists or not', async () => {
    const existing = await run(call('Read', { file_path: join(outside, 'id_ed25519') }), {});
    const missing = await run(call('Read', { file_path: join(outside, 'id_rsa') }), {});
    expect(existing.suggestion?.add_rules).toEqual([`Read(/${outside}/**)`]);
    expect(missing.suggestion).toEqual(existing.suggestion);
  });

  it('still says a file inside the workspace does not exist', async () => {
    const missing = await run(call('Read', { file_path: join(workspace.root, 'nope.txt') }), {});
    expect(missing.stage).toBe('validation');
    expect(missing.text).toMatch(/does not exist/);
  });
});
