/**
 * Issue 12, item 7: a report that fits GitHub and a reviewer. A real Bash call through the real
 * pipeline (its exit code, the rule that allowed it), a real git change with node_modules and a
 * lock file committed, and tables far longer than a comment holds; each rendered by GitHub's
 * parser (or remark where cmark-gfm is missing) and read as a reviewer reads it.
 */
import { execaSync } from 'execa';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import { createGit, diffSince } from '../../src/github/git.js';
import { ReportCollector } from '../../src/github/report.js';
import { GITHUB_COMMENT_LIMIT, renderReport } from '../../src/github/report-markdown.js';
import type { ReportContext } from '../../src/github/report-markdown.js';
import { parseRule } from '../../src/permissions/rules.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { readTool } from '../../src/tools/builtin/read.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { elementsNamed, renderGfm, renderers, tables, visibleText } from '../helpers/gfm.js';
import { scenario } from './report-fixtures.js';

const renderer = renderers[0]!;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

const seen = (text: string) => text.replace(/\s+/g, ' ').trim();

const base: Omit<ReportContext, 'files' | 'diff'> = {
  conclusion: 'success',
  headline: 'the agent made changes',
  artifactName: 'ci-agent-log',
  runUrl: 'https://github.com/o/r/actions/runs/1',
};

function tableStartingWith(tree: ReturnType<typeof renderGfm>, header: string): string[][] {
  return tables(tree).find((table) => table[0]?.[0] === header) ?? [];
}

describe('the tool log', () => {
  it('shows a failing command as "exit 1", its rule and source, paths relative to the workspace', async () => {
    const workspace = temp('ci-agent-fit-');
    writeFileSync(join(workspace, 'notes.txt'), 'hello\n');
    const { deps, events } = makePipeline([bashTool, readTool], {
      root: workspace,
      policy: {
        mode: 'default',
        allow: [parseRule('Bash(test -f:*)', '.github/ci-agent.yml')],
      },
    });
    const collector = new ReportCollector();
    const signal = new AbortController().signal;
    for (const [id, name, input] of [
      ['b1', 'Bash', { command: 'test -f missing.txt' }],
      ['r1', 'Read', { file_path: join(workspace, 'notes.txt') }],
    ] as const) {
      collector.handle({
        type: 'assistant-message',
        messageId: id,
        model: 'm',
        message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
        stopReason: 'tool_use',
        usage: {
          input_tokens: 1,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      });
      await executeSingleToolUse({ type: 'tool_use', id, name, input }, deps, signal);
      for (const event of events.splice(0)) collector.handle(event);
    }
    expect(collector.report.calls[0]?.exitCode).toBe(1);

    const markdown = await renderReport(collector.report, {
      ...base,
      files: [],
      diff: '',
      workspace,
    });
    const rows = tableStartingWith(renderGfm(markdown, renderer), '#');
    expect(rows[0]).toEqual(['#', 'tool', 'input', 'decision', 'why', 'ms', 'result']);
    expect(rows[1]?.filter((_, index) => index !== 5)).toEqual([
      '1',
      'Bash',
      'test -f missing.txt',
      'allow',
      'Bash(test -f:*) (.github/ci-agent.yml)',
      'exit 1',
    ]);
    expect(rows[2]?.slice(0, 5)).toEqual([
      '2',
      'Read',
      'notes.txt',
      'allow',
      'read-only call inside the workspace',
    ]);
    expect(markdown).not.toContain(workspace);
  });

  it('shows TodoWrite as its task count and the list as a checklist; hook runs by call number', async () => {
    const { report, context } = scenario('final text', 'Done.');
    const tree = renderGfm(await renderReport(report, context), renderer);
    const log = tableStartingWith(tree, '#');
    expect(log[4]?.slice(0, 3)).toEqual(['4', 'TodoWrite', '2 tasks']);
    expect(visibleText(tree)).not.toContain('"content"');
    expect(elementsNamed(tree, 'input').map((box) => box.properties.checked === true)).toEqual([
      true,
      false,
    ]);
    const hooks = tableStartingWith(tree, 'call');
    expect(hooks[1]?.slice(0, 3)).toEqual(['2', 'PostToolUse (Bash)', './hooks/check.sh']);
  });

  it('gives each long reason once, numbered below the table', async () => {
    const { report, context } = scenario('final text', 'Done.');
    const long =
      'Bash would change .github/workflows/ci.yml, which judges this run (the policy, Claude Code settings and hooks, MCP configuration, CI workflows)';
    for (const id of ['j1', 'j2']) {
      report.calls.push({
        turn: 2,
        toolUseId: id,
        toolName: 'Bash',
        input: { command: `echo ${id} > .github/workflows/ci.yml` },
        decision: 'deny',
        decisionReason: long,
        decisionSource: 'judge',
        isError: true,
        stage: 'permission',
      });
    }
    const text = seen(visibleText(renderGfm(await renderReport(report, context), renderer)));
    const log = text.slice(text.indexOf('Tool log'));
    expect(log).toContain('judges the run [2] denied');
    expect(log.split(long)).toHaveLength(2); // once
    expect(log).toContain(`[2] ${long}`);
  });
});

describe('a large change', () => {
  it('lists source files first, counts node_modules and lock files, warns, and leaves their hunks out', async () => {
    const repo = temp('ci-agent-large-');
    const git = (...args: string[]) =>
      execaSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        cwd: repo,
      }).stdout.trim();
    git('init', '-q', '-b', 'main');
    mkdirSync(join(repo, 'src'));
    writeFileSync(join(repo, 'src/mean.js'), 'export const mean = (xs) => 0;\n');
    git('add', '-A');
    git('commit', '-qm', 'base');
    const baseSha = git('rev-parse', 'HEAD');
    writeFileSync(join(repo, 'src/mean.js'), 'export const mean = (xs) => xs.length;\n');
    for (let pkg = 0; pkg < 1_100; pkg++) {
      mkdirSync(join(repo, 'node_modules', `pkg-${pkg}`), { recursive: true });
      writeFileSync(
        join(repo, 'node_modules', `pkg-${pkg}`, 'index.js'),
        `module.exports = ${pkg};\n`,
      );
    }
    writeFileSync(join(repo, 'package-lock.json'), '{\n  "lockfileVersion": 3\n}\n');
    git('add', '-A');
    git('commit', '-qm', 'everything');
    const { shown, files } = await diffSince(createGit(repo), baseSha, 'HEAD');

    const { report } = scenario('final text', 'Done.');
    const markdown = await renderReport(report, { ...base, files, diff: shown });
    expect(markdown.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    const tree = renderGfm(markdown, renderer);
    const text = seen(visibleText(tree));
    expect(tableStartingWith(tree, 'file').slice(1)).toEqual([['src/mean.js', '+1', '−1']]);
    expect(text).toContain(
      'This change looks accidental: it touches 1,102 files, 1,100 of them under node_modules/',
    );
    expect(text).toContain('node_modules/ (installed dependencies): 1,100 files, +1,100 −0');
    expect(text).toContain('lock files (generated dependency locks): 1 file, +3 −0');
    const diff = elementsNamed(tree, 'pre').map((pre) =>
      visibleText({ type: 'root', children: [pre] }),
    );
    expect(diff.join('')).toContain('+export const mean = (xs) => xs.length;');
    expect(diff.join('')).not.toContain('node_modules');
    expect(diff.join('')).not.toContain('lockfileVersion');
    expect(text).toContain('The hunks of the 1,101 files counted above are left out.');
  });

  it('caps every table and says how many more are in the artifact', async () => {
    const { report, context } = scenario('final text', 'Done.');
    const call = report.calls[0]!;
    for (let index = 0; index < 200; index++)
      report.calls.push({
        ...call,
        toolUseId: `x${index}`,
        input: { file_path: `src/f${index}.ts` },
      });
    const hook = report.hookRuns[0]!;
    for (let index = 0; index < 50; index++) report.hookRuns.push({ ...hook, error: undefined });
    const denial = report.denials[0]!;
    for (let index = 0; index < 30; index++) report.denials.push({ ...denial });
    const files = Array.from({ length: 80 }, (_, index) => ({
      path: `src/f${index}.ts`,
      added: 1,
      removed: 0,
    }));
    const tree = renderGfm(await renderReport(report, { ...context, files }), renderer);
    const text = seen(visibleText(tree));
    expect(tableStartingWith(tree, 'file')).toHaveLength(1 + 50 + 1);
    expect(text).toContain('… 30 files in the ci-agent-log artifact');
    expect(tableStartingWith(tree, '#')).toHaveLength(1 + 60 + 1);
    expect(text).toContain(
      '… 144 calls not shown: the whole tool log is in the ci-agent-log artifact',
    );
    expect(tableStartingWith(tree, 'call')).toHaveLength(1 + 30 + 1);
    expect(text).toContain('… 21 hook runs in the ci-agent-log artifact');
    expect(text).toContain('… 11 denials in the ci-agent-log artifact');
  });

  it('stays under GitHub’s limit with everything huge, and ends with the pointer to the artifact', async () => {
    const { report, context } = scenario('final text', `${'word '.repeat(5_000)}`);
    const call = report.calls[1]!;
    for (let index = 0; index < 3_000; index++)
      report.calls.push({
        ...call,
        toolUseId: `y${index}`,
        input: { command: `echo ${'z'.repeat(70)} ${index}` },
      });
    const files = Array.from({ length: 3_000 }, (_, index) => ({
      path: `src/${'d'.repeat(80)}/${index}.ts`,
      added: 9,
      removed: 9,
    }));
    const diff = files
      .map((file) => `diff --git a/${file.path} b/${file.path}\n${'+line\n'.repeat(20)}`)
      .join('');
    const markdown = await renderReport(report, { ...context, files, diff });
    expect(markdown.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    const text = seen(visibleText(renderGfm(markdown, renderer)));
    expect(text).toMatch(/the whole patch is in the ci-agent-log artifact/);
    expect(text).toMatch(/the full tool log, diff and transcript: the ci-agent-log artifact$/);
  });
});
