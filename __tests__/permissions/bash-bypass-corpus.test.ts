/**
 * The bypass corpus (issue 3, "Done when"): with `allow: ["Bash(echo:*)", "Bash(git status)"]` and
 * `deny: ["Bash(rm:*)"]`, commands that try to run something else through an allowed prefix are
 * denied by decide() and, run through the real pipeline with the real Bash tool, leave the
 * workspace (and a stand-in home directory) untouched; the plainly allowed forms still run.
 *
 * The second column says why each is denied: `rule` — the rm deny rule sees the rm (or cannot
 * read the command and fails closed); `unallowed` — no allow rule covers every part, and the ask
 * that follows resolves to deny; `protected` — it writes a protected path (a shell start-up file),
 * which nothing but bypassPermissions allows; `outside` — it writes a file outside the workspace.
 */
import { execaSync } from 'execa';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import type { PipelineDeps } from '../../src/execution/pipeline.js';
import { noHooks } from '../../src/hooks/types.js';
import { decide } from '../../src/permissions/decide.js';
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { parseRule } from '../../src/permissions/rules.js';
import type { PermissionPolicy } from '../../src/permissions/types.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolContext } from '../../src/tools/tool.js';
import { buildChildEnv } from '../../src/util/child-env.js';
import { blockText, makeContext, makeWorkspace } from '../helpers/tool-harness.js';
import type { Workspace } from '../helpers/tool-harness.js';

type Why = 'rule' | 'unallowed' | 'protected' | 'outside';

const CORPUS: Array<[string, Why]> = [
  // operators and newlines
  ['echo x; rm canary.txt', 'rule'],
  ['echo x;rm canary.txt', 'rule'],
  ['echo x && rm canary.txt', 'rule'],
  ['echo x || rm canary.txt', 'rule'],
  ['echo x | rm canary.txt', 'rule'],
  ['echo x |& rm canary.txt', 'rule'],
  ['echo x & rm canary.txt', 'rule'],
  ['echo x\nrm canary.txt', 'rule'],
  ['echo x\r\nrm canary.txt', 'rule'],
  ['echo x # note\nrm canary.txt', 'rule'],
  ['echo x \\\n; rm canary.txt', 'rule'],
  ['git status && rm canary.txt', 'rule'],
  ['git status; curl -s -o pwned.txt http://127.0.0.1:9/', 'unallowed'],
  ['git status && touch pwned.txt', 'unallowed'],
  ['git status | sh', 'rule'],
  ['echo x; git status; cp canary.txt pwned.txt', 'unallowed'],
  // substitutions
  ['echo $(rm canary.txt)', 'rule'],
  ['echo `rm canary.txt`', 'rule'],
  ['echo "$(rm canary.txt)"', 'rule'],
  ['echo $(echo $(rm canary.txt))', 'rule'],
  ['echo <(rm canary.txt)', 'rule'],
  ['echo >(rm canary.txt)', 'rule'],
  ['echo ${x:-$(rm canary.txt)}', 'rule'],
  ['echo $((1 + $(rm canary.txt)))', 'rule'],
  ['echo x $(touch pwned.txt)', 'unallowed'],
  ['x=$(rm canary.txt) echo hi', 'rule'],
  ['X=$(touch pwned.txt)', 'unallowed'],
  // shells and eval
  ["bash -c 'rm canary.txt'", 'rule'],
  ['sh -c "rm canary.txt"', 'rule'],
  ["/bin/bash -lc 'rm canary.txt'", 'rule'],
  ["echo x && bash -c 'touch pwned.txt'", 'unallowed'],
  ['echo rm canary.txt | sh', 'rule'],
  ['echo rm canary.txt | bash', 'rule'],
  ["eval 'rm canary.txt'", 'rule'],
  ['eval rm canary.txt', 'rule'],
  ['echo x; eval "$(echo rm canary.txt)"', 'rule'],
  ["builtin eval 'rm canary.txt'", 'rule'],
  // wrappers and launchers
  ['timeout 5 rm canary.txt', 'rule'],
  ['nice -n 5 rm canary.txt', 'rule'],
  ['nohup rm canary.txt', 'rule'],
  ['time rm canary.txt', 'rule'],
  ['stdbuf -oL rm canary.txt', 'rule'],
  ['command rm canary.txt', 'rule'],
  ['env rm canary.txt', 'rule'],
  ['env -i PATH=/bin:/usr/bin rm canary.txt', 'rule'],
  ['/usr/bin/env rm canary.txt', 'rule'],
  ['sudo rm canary.txt', 'rule'],
  ['setsid rm canary.txt', 'rule'],
  ['ionice -c 3 rm canary.txt', 'rule'],
  ['exec rm canary.txt', 'rule'],
  ['timeout 5 echo x > pwned.txt', 'unallowed'],
  ['nohup sh -c "rm canary.txt"', 'rule'],
  // environment prefixes
  ['FOO=1 rm canary.txt', 'rule'],
  ['LD_PRELOAD=./evil.so echo x', 'unallowed'],
  ['GIT_CONFIG_PARAMETERS="\'core.fsmonitor=touch pwned.txt\'" git status', 'unallowed'],
  ["BASH_ENV=canary.txt bash -c 'echo x'", 'unallowed'],
  ['PATH=.:$PATH git status', 'unallowed'],
  // quoting and escaping
  ["r'm' canary.txt", 'rule'],
  ['"rm" canary.txt', 'rule'],
  ['\\rm canary.txt', 'rule'],
  ["$'\\x72m' canary.txt", 'rule'],
  ["$'\\162m' canary.txt", 'rule'],
  ['r\\\nm canary.txt', 'rule'],
  ["ec'h'o x; rm canary.txt", 'rule'],
  // absolute paths and computed command names
  ['/bin/rm canary.txt', 'rule'],
  ['/usr/bin/rm -f canary.txt', 'rule'],
  ['$(which rm) canary.txt', 'rule'],
  ['/bin/r? canary.txt', 'rule'],
  ['{rm,canary.txt}', 'rule'],
  // xargs and find
  ['echo canary.txt | xargs rm', 'rule'],
  ['echo canary.txt | xargs -n1 rm', 'rule'],
  ['echo canary.txt | xargs -I{} rm {}', 'rule'],
  ['find . -name canary.txt -delete', 'unallowed'],
  ['find . -name canary.txt -exec rm {} \\;', 'rule'],
  ['find . -name canary.txt -execdir rm {} +', 'rule'],
  // redirections into files
  ['echo x > pwned.txt', 'unallowed'],
  ['echo x >> canary.txt', 'unallowed'],
  ['echo x > .bashrc', 'protected'],
  ['echo x > ~/.bashrc', 'outside'],
  ['echo x > "$HOME/.profile"', 'outside'],
  ['echo x >| canary.txt', 'unallowed'],
  ['echo x &> pwned.txt', 'unallowed'],
  ['echo x 2> pwned.txt', 'unallowed'],
  ['echo x 1>pwned.txt', 'unallowed'],
  ['echo x >& pwned.txt', 'unallowed'],
  ['echo x <> pwned.txt', 'unallowed'],
  ['{ echo x; } > pwned.txt', 'unallowed'],
  ['(echo x) > pwned.txt', 'unallowed'],
  ['echo x | tee pwned.txt', 'unallowed'],
  ['echo x; : > canary.txt', 'unallowed'],
  ['> canary.txt', 'unallowed'],
  // here-documents and here-strings
  ['cat <<EOF > pwned.txt\nx\nEOF', 'unallowed'],
  ['echo x <<EOF\n$(rm canary.txt)\nEOF', 'rule'],
  ['sh <<EOF\nrm canary.txt\nEOF', 'rule'],
  ["bash <<< 'rm canary.txt'", 'rule'],
  // what the parser does not model: never allowed, and the deny rule fails closed
  ['for f in canary.txt; do rm $f; done', 'rule'],
  ['if true; then rm canary.txt; fi', 'rule'],
  ['f(){ rm canary.txt; }; f', 'rule'],
  ['echo canary.txt | while read f; do rm $f; done', 'rule'],
  // other programs behind an allowed first part
  ['echo x; python3 -c \'import os; os.remove("canary.txt")\'', 'unallowed'],
  ['echo x && node -e \'require("fs").rmSync("canary.txt")\'', 'unallowed'],
  ['echo x; mv canary.txt moved.txt', 'unallowed'],
  ['echo x; chmod 000 canary.txt', 'unallowed'],
  ['echo x; sed -i s/canary/pwned/ canary.txt', 'unallowed'],
  ['echo x; ln -s canary.txt pwned-link', 'unallowed'],
  ["echo x; trap 'rm canary.txt' EXIT", 'unallowed'],
  ['git -c core.fsmonitor="touch pwned.txt" status', 'unallowed'],
];

const ALLOWED: Array<[string, RegExp]> = [
  ['echo hello', /^hello$/m],
  ['echo "a b"', /^a b$/m],
  ['git status', /On branch|No commits yet/],
  ['echo quiet > /dev/null 2>&1; echo shown', /^shown$/m],
];

const rule = (text: string) => parseRule(text, 'corpus');

describe('the Bash bypass corpus', () => {
  let workspace: Workspace;
  let home: Workspace;
  let policy: PermissionPolicy;
  let env: Record<string, string>;
  const contextFor = (toolUseId: string, signal: AbortSignal): ToolContext =>
    makeContext(workspace, { toolUseId, signal, env });

  beforeAll(async () => {
    workspace = makeWorkspace('ci-agent-bypass-');
    home = makeWorkspace('ci-agent-bypass-home-');
    // A stand-in home: a command that escaped would write here, not into the real one.
    env = { ...buildChildEnv(process.env), HOME: home.root };
    await workspace.write('canary.txt', 'canary\n');
    await workspace.write('src/keep.ts', 'export {};\n');
    await home.write('.bashrc', '# canary\n');
    execaSync('git', ['init', '-q'], { cwd: workspace.root, env, extendEnv: false });
    execaSync('git', ['status'], { cwd: workspace.root, env, extendEnv: false });
    policy = {
      mode: 'default',
      allow: [rule('Bash(echo:*)'), rule('Bash(git status)')],
      deny: [rule('Bash(rm:*)')],
      ask: [],
      askDefault: 'deny',
      workspaceRoots: [workspace.root],
    };
  });

  afterAll(() => {
    workspace.cleanup();
    home.cleanup();
  });

  function decideFor(command: string) {
    const context = contextFor('toolu_decide', new AbortController().signal);
    const input: unknown = bashTool.inputSchema.parse({ command });
    const request: DecisionRequest = {
      toolName: bashTool.name,
      aliases: bashTool.aliases,
      request: bashTool.checkPermissions(input, context),
      projectDir: workspace.root,
      homeDir: home.root,
      readOnly: bashTool.isReadOnly(input),
      requiresUserInteraction: bashTool.requiresUserInteraction(),
    };
    return decide(request, policy);
  }

  function pipelineDeps(): PipelineDeps {
    return {
      registry: new ToolRegistry([bashTool]),
      policy,
      hooks: noHooks,
      makeContext: contextFor,
      events: () => undefined,
    };
  }

  it('holds at least 60 commands', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
  });

  it.each(CORPUS)('decide() denies %j (%s)', (command, why) => {
    const decision = decideFor(command);
    expect(decision.behavior).toBe('deny');
    if (why === 'rule') {
      expect(decision).toMatchObject({ source: 'deny-rule', askResolved: false });
    } else if (why === 'protected') {
      expect(decision).toMatchObject({ source: 'protected-path', askResolved: false });
    } else if (why === 'outside') {
      expect(decision).toMatchObject({ source: 'workspace', askResolved: false });
    } else {
      expect(decision).toMatchObject({ source: 'default', askResolved: true });
    }
  });

  it('denies every corpus command in the real pipeline and leaves the files untouched', async () => {
    const before = { workspace: snapshot(workspace.root), home: snapshot(home.root) };
    const deps = pipelineDeps();
    const signal = new AbortController().signal;
    const outcomes = await Promise.all(
      CORPUS.map(([command], index) =>
        executeSingleToolUse(
          { type: 'tool_use', id: `toolu_${index}`, name: 'Bash', input: { command } },
          deps,
          signal,
        ),
      ),
    );
    const ran = outcomes.filter((outcome) => outcome.stage !== 'permission');
    expect(ran.map((outcome) => (outcome.input as { command: string }).command)).toEqual([]);
    for (const outcome of outcomes) {
      expect(outcome.decision?.behavior).toBe('deny');
      expect(outcome.result.is_error).toBe(true);
    }
    expect(snapshot(workspace.root)).toEqual(before.workspace);
    expect(snapshot(home.root)).toEqual(before.home);
  });

  it.each(ALLOWED)('runs the plainly allowed %j through the pipeline', async (command, output) => {
    expect(decideFor(command)).toMatchObject({ behavior: 'allow', source: 'allow-rule' });
    const outcome = await executeSingleToolUse(
      { type: 'tool_use', id: 'toolu_allowed', name: 'Bash', input: { command } },
      pipelineDeps(),
      new AbortController().signal,
    );
    expect(outcome.stage).toBe('completed');
    expect(blockText(outcome.result)).toMatch(output);
  });
});

/** Every entry under root with its type and content, except git's index, which status refreshes. */
function snapshot(root: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const key = relative(root, path);
      if (key === join('.git', 'index')) continue;
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) entries[key] = `link ${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        entries[key] = `dir ${stats.mode.toString(8)}`;
        walk(path);
      } else entries[key] = `file ${stats.mode.toString(8)} ${readFileSync(path, 'base64')}`;
    }
  };
  walk(root);
  return entries;
}
