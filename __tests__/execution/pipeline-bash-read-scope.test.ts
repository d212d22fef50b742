import { execaSync } from 'execa';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import type { PipelineDeps } from '../../src/execution/pipeline.js';
import type { ToolUseBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { buildChildEnv } from '../../src/util/child-env.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

const live = () => new AbortController().signal;
const GIT_IDENTITY = ['-c', 'user.name=t', '-c', 'user.email=t@example.com'];

describe('executeSingleToolUse with read-only Bash in default mode', () => {
  let workspace: Workspace;
  let home: Workspace;
  let marker: string;

  beforeEach(() => {
    workspace = makeWorkspace('ci-agent-read-scope-');
    home = makeWorkspace('ci-agent-read-scope-home-');
    marker = home.path('pwned');
    mkdirSync(home.path('.ssh'));
    writeFileSync(home.path('.ssh/id_ed25519'), 'PRIVATE KEY\n');
    mkdirSync(workspace.path('src'));
    writeFileSync(workspace.path('src/a.ts'), 'const foo = 1;\n');
    execaSync('git', ['init', '-q', workspace.root]);
    execaSync('git', ['add', '.'], { cwd: workspace.root });
    execaSync('git', [...GIT_IDENTITY, 'commit', '-qm', 'init'], { cwd: workspace.root });
    // The red-team layout (default-fake-gitdir-fsmonitor): a git dir whose fsmonitor is a trap.
    mkdirSync(workspace.path('tools/objects'), { recursive: true });
    mkdirSync(workspace.path('tools/refs'));
    writeFileSync(workspace.path('tools/HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(
      workspace.path('tools/config'),
      `[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch '${marker}'; false"\n`,
    );
  });
  afterEach(() => {
    workspace.cleanup();
    home.cleanup();
  });

  /** The session's pipeline: one shell state for all calls, the tools' HOME outside. */
  const pipeline = (policy: Partial<PermissionPolicy> = {}): PipelineDeps => {
    const { deps } = makePipeline([bashTool], {
      root: workspace.root,
      policy: { mode: 'default', askDefault: 'deny', ...policy },
    });
    return {
      ...deps,
      makeContext: (toolUseId, signal) => ({
        ...deps.makeContext(toolUseId, signal),
        env: { ...buildChildEnv(process.env), HOME: home.root },
      }),
    };
  };
  const bash = (command: string, deps: PipelineDeps) => {
    const block: ToolUseBlock = {
      type: 'tool_use',
      id: 'toolu_1',
      name: 'Bash',
      input: { command },
    };
    return executeSingleToolUse(block, deps, live());
  };
  const text = (content: unknown) =>
    typeof content === 'string' ? content : JSON.stringify(content);

  describe('when it reads outside the workspace, or what it reads cannot be placed', () => {
    it.each([
      'cat ~/.ssh/id_ed25519',
      'head /etc/passwd',
      'ls ~',
      "tr '\\0' '\\n' < /proc/$PPID/environ",
      'cat /proc/$PPID/environ',
      'cat /proc/self/environ',
      'cat "$HOME/.ssh/id_ed25519"',
      'cd .. && ls',
      'printenv',
      'env',
      'ls &',
      'cat < /dev/tcp/127.0.0.1/9',
    ])('asks for %j, and the policy’s ask default refuses it', async (command) => {
      const outcome = await bash(command, pipeline());
      expect(outcome.stage).toBe('permission');
      expect(outcome.decision).toMatchObject({
        behavior: 'deny',
        askResolved: true,
        source: 'default',
      });
      expect(text(outcome.result.content)).not.toContain('PRIVATE KEY');
    });

    it('says what it reaches in the reason', async () => {
      const outcome = await bash('cat /proc/$PPID/environ', pipeline());
      expect(outcome.decision?.reason).toContain(
        'Bash reaches outside the workspace (/proc/$PPID/environ (known only when it runs))',
      );
    });

    it('runs such a command when a rule allows it', async () => {
      const outcome = await bash(
        'cat ~/.ssh/id_ed25519',
        pipeline({ allow: [parseRule('Bash(cat:*)', 'test')] }),
      );
      expect(outcome.stage).toBe('completed');
      expect(text(outcome.result.content)).toContain('PRIVATE KEY');
    });
  });

  describe('when everything it reads is inside', () => {
    it.each([
      ['cat src/a.ts', 'const foo'],
      ['ls', 'src'],
      ['grep -r foo .', 'src/a.ts'],
      ['git status', 'On branch'],
      ['git log --oneline', 'init'],
    ])('allows %j without a rule', async (command, seen) => {
      const outcome = await bash(command, pipeline());
      expect(outcome.stage).toBe('completed');
      expect(outcome.decision).toMatchObject({ behavior: 'allow', source: 'default' });
      expect(text(outcome.result.content)).toContain(seen);
    });
  });

  describe('when the cwd moves into a nested repository whose config names a textconv program', () => {
    it('asks for git diff there, and the textconv trap never runs', async () => {
      const lib = workspace.path('vendor/lib');
      execaSync('git', ['init', '-q', lib]);
      writeFileSync(`${lib}/.gitattributes`, 'a.txt diff=evil\n');
      writeFileSync(`${lib}/a.txt`, 'one\n');
      execaSync('git', ['add', '.'], { cwd: lib });
      execaSync('git', [...GIT_IDENTITY, 'commit', '-qm', 'init'], { cwd: lib });
      execaSync('git', ['config', 'diff.evil.textconv', `touch '${marker}'; cat`], { cwd: lib });
      writeFileSync(`${lib}/a.txt`, 'two\n');
      // The trap is real: git diff there runs it.
      execaSync('git', ['diff'], { cwd: lib, env: buildChildEnv(process.env), extendEnv: false });
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);

      const deps = pipeline();
      expect((await bash('cd vendor/lib', deps)).stage).toBe('completed');
      const diff = await bash('git diff', deps);
      expect(diff.stage).toBe('permission');
      expect(diff.decision).toMatchObject({ behavior: 'deny', askResolved: true });
      expect(existsSync(marker)).toBe(false);
    });
  });

  describe('when the cwd moves into a directory laid out as a git dir', () => {
    it('allows the cd, then asks for git status there, and the trap never runs', async () => {
      const deps = pipeline();
      const cd = await bash('cd tools', deps);
      expect(cd.stage).toBe('completed');
      const status = await bash('git status', deps);
      expect(status.stage).toBe('permission');
      expect(status.decision).toMatchObject({ behavior: 'deny', askResolved: true });
      expect(status.decision?.reason).toContain("a repository other than the workspace's");
      expect(existsSync(marker)).toBe(false);
    });

    it('does not run the trap even when asks are answered allow', async () => {
      const deps = pipeline({ askDefault: 'allow' });
      await bash('cd tools', deps);
      const status = await bash('git status', deps);
      // Allowed and run; git refuses the layout and fails.
      expect(status.decision).toMatchObject({ behavior: 'allow', askResolved: true });
      expect(text(status.result.content)).toContain('cannot use bare repository');
      expect(existsSync(marker)).toBe(false);
    });
  });
});
