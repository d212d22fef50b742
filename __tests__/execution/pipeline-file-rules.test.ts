import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import type { PipelineDeps } from '../../src/execution/pipeline.js';
import type { ToolUseBlock } from '../../src/model/types.js';
import { readDeniedPredicate } from '../../src/permissions/read-denied.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionMode } from '../../src/permissions/types.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { globTool } from '../../src/tools/builtin/glob.js';
import { grepTool } from '../../src/tools/builtin/grep.js';
import { findRipgrep } from '../../src/tools/builtin/search/find-ripgrep.js';
import { buildChildEnv } from '../../src/util/child-env.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

const live = () => new AbortController().signal;
const rg = findRipgrep(process.env.PATH);

describe('executeSingleToolUse with Read and Edit deny rules', () => {
  let workspace: Workspace;

  beforeEach(async () => {
    workspace = makeWorkspace('ci-agent-file-rules-');
    await workspace.write('.env', 'TOKEN=secret-value\n');
    await workspace.write('a.txt', 'TOKEN=public\n');
    await workspace.write('config/.env', 'TOKEN=nested-secret\n');
    await workspace.write('docs/guide.md', 'guide\n');
  });
  afterEach(() => workspace.cleanup());

  /** A pipeline as the session builds it: the policy's Read denies also feed the search tools. */
  const pipeline = (
    deny: string[],
    options: { mode?: PermissionMode; ripgrepPath?: string | null } = {},
  ): PipelineDeps => {
    const policy = {
      mode: options.mode ?? 'bypassPermissions',
      deny: deny.map((text) => parseRule(text, 'settings.json')),
    };
    const { deps } = makePipeline([bashTool, globTool, grepTool], { root: workspace.root, policy });
    const isReadDenied = readDeniedPredicate(policy.deny, {
      projectDir: workspace.root,
      homeDir: homedir(),
    });
    return {
      ...deps,
      makeContext: (toolUseId, signal) => ({
        ...deps.makeContext(toolUseId, signal),
        env: buildChildEnv(process.env),
        ripgrepPath: options.ripgrepPath ?? null,
        ...(isReadDenied && { isReadDenied }),
      }),
    };
  };
  const call = (name: string, input: Record<string, unknown>): ToolUseBlock => ({
    type: 'tool_use',
    id: 'toolu_1',
    name,
    input,
  });
  const text = (content: unknown) =>
    typeof content === 'string' ? content : JSON.stringify(content);

  describe('when Bash names a denied file', () => {
    it.each([
      'touch canary && cat .env',
      'touch canary; head -n 1 .env',
      'touch canary && cat < config/.env',
      'touch canary && cat .e*',
      'touch canary && echo "$(cat .env)"',
    ])('does not run %j, even in bypassPermissions mode', async (command) => {
      const outcome = await executeSingleToolUse(
        call('Bash', { command }),
        pipeline(['Read(.env)']),
        live(),
      );
      expect(outcome.stage).toBe('permission');
      expect(outcome.result.is_error).toBe(true);
      expect(text(outcome.result.content)).toContain("'Read(.env)' (settings.json)");
      expect(text(outcome.result.content)).not.toContain('secret');
      expect(outcome.denial?.rules).toEqual(['Read(.env)']);
      expect(existsSync(workspace.path('canary'))).toBe(false);
    });

    it('does not let a write replace a file that may not be read', async () => {
      const outcome = await executeSingleToolUse(
        call('Bash', { command: 'echo TOKEN=forged > .env' }),
        pipeline(['Read(.env)']),
        live(),
      );
      expect(outcome.stage).toBe('permission');
      expect(readFileSync(workspace.path('.env'), 'utf8')).toBe('TOKEN=secret-value\n');
    });

    it('refuses writes under an Edit deny and still runs reads there', async () => {
      const deps = pipeline(['Edit(docs/**)']);
      const write = await executeSingleToolUse(
        call('Bash', { command: 'echo changed >> docs/guide.md' }),
        deps,
        live(),
      );
      expect(write.stage).toBe('permission');
      expect(readFileSync(workspace.path('docs/guide.md'), 'utf8')).toBe('guide\n');
      const read = await executeSingleToolUse(
        call('Bash', { command: 'cat docs/guide.md' }),
        deps,
        live(),
      );
      expect(read.stage).toBe('completed');
      expect(text(read.result.content)).toContain('guide');
    });

    it('runs a command whose files are not denied', async () => {
      const outcome = await executeSingleToolUse(
        call('Bash', { command: 'touch canary && cat a.txt' }),
        pipeline(['Read(.env)']),
        live(),
      );
      expect(outcome.stage).toBe('completed');
      expect(text(outcome.result.content)).toContain('TOKEN=public');
      expect(existsSync(workspace.path('canary'))).toBe(true);
    });

    it('still allows a read-only command in default mode', async () => {
      const outcome = await executeSingleToolUse(
        call('Bash', { command: 'cat a.txt' }),
        pipeline(['Read(.env)'], { mode: 'default' }),
        live(),
      );
      expect(outcome.stage).toBe('completed');
    });
  });

  const engines = [
    { label: 'built-in search', ripgrepPath: null, skip: false },
    { label: rg ? 'ripgrep' : 'ripgrep (skipped: no rg on PATH)', ripgrepPath: rg, skip: !rg },
  ];
  describe.each(engines)(
    'when Glob and Grep ($label) meet a denied file',
    ({ ripgrepPath, skip }) => {
      it.skipIf(skip)('Grep hides it from the results and says so', async () => {
        const outcome = await executeSingleToolUse(
          call('Grep', { pattern: 'TOKEN', output_mode: 'content' }),
          pipeline(['Read(.env)'], { mode: 'default', ripgrepPath }),
          live(),
        );
        expect(outcome.stage).toBe('completed');
        const content = text(outcome.result.content);
        expect(content).toContain('TOKEN=public');
        expect(content).not.toContain('secret');
        expect(content).toContain('(2 files hidden by permission rules)');
      });

      it.skipIf(skip)('Grep on the denied file itself is refused', async () => {
        const outcome = await executeSingleToolUse(
          call('Grep', { pattern: 'TOKEN', path: workspace.path('.env') }),
          pipeline(['Read(.env)'], { mode: 'default', ripgrepPath }),
          live(),
        );
        expect(outcome.stage).toBe('permission');
      });

      it.skipIf(skip)('Glob leaves it out of the list and says so', async () => {
        const outcome = await executeSingleToolUse(
          call('Glob', { pattern: '**/.env*' }),
          pipeline(['Read(.env)'], { mode: 'default', ripgrepPath }),
          live(),
        );
        expect(outcome.stage).toBe('completed');
        expect(text(outcome.result.content)).toBe(
          'No files found\n(2 files hidden by permission rules)',
        );
      });

      it.skipIf(skip)('nothing is hidden without a Read deny rule', async () => {
        const outcome = await executeSingleToolUse(
          call('Grep', { pattern: 'TOKEN' }),
          pipeline(['Edit(.env)'], { mode: 'default', ripgrepPath }),
          live(),
        );
        expect(text(outcome.result.content)).toMatch(/^Found 3 files/);
        expect(text(outcome.result.content)).not.toContain('hidden');
      });
    },
  );
});
