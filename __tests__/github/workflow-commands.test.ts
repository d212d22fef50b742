/**
 * The runner's side of the action through @actions/core: what reaches stdout (log lines,
 * annotations with their properties, groups, add-mask) and the files the runner reads back
 * (GITHUB_OUTPUT in its heredoc form, GITHUB_STEP_SUMMARY) — every text masked first.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createWorkflowCommands,
  maskWorkflowCommands,
} from '../../src/github/workflow-commands.js';
import { createSecretMasker } from '../../src/log/secret-masker.js';
import { captureStdout } from '../helpers/runner-stdout.js';

let dir: string;
let lines: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-agent-commands-'));
  lines = captureStdout();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const commands = (env: NodeJS.ProcessEnv = {}) => createWorkflowCommands({ env });

/**
 * Reads a GITHUB_OUTPUT file back the way the runner does: `name<<DELIMITER`, the lines, then the
 * delimiter alone on a line; anything else in the file is an error.
 */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const rows = text.split('\n');
  if (rows.at(-1) === '') rows.pop();
  for (let index = 0; index < rows.length; index++) {
    const match = /^([^<]+)<<(ghadelimiter_[0-9a-f-]{36})$/.exec(rows[index]!);
    if (!match) throw new Error(`not an output line: ${JSON.stringify(rows[index])}`);
    const [, name, delimiter] = match;
    const end = rows.indexOf(delimiter!, index + 1);
    if (end < 0) throw new Error(`the output ${name} never ends`);
    outputs[name!] = rows.slice(index + 1, end).join('\n');
    index = end;
  }
  return outputs;
}

describe('createWorkflowCommands', () => {
  it('writes annotations as workflow commands with the message escaped', () => {
    const runner = commands();
    runner.warning('50% done\nsecond line');
    runner.notice('skipped');
    runner.error('broken');
    runner.info('plain text');
    expect(lines).toEqual([
      '::warning::50%25 done%0Asecond line\n',
      '::notice::skipped\n',
      '::error::broken\n',
      'plain text\n',
    ]);
  });

  it('puts an annotation on a file and line, with a title', () => {
    commands().warning('ignored unknown key "permision"', {
      title: 'ci-agent policy',
      file: '.claude/settings.json',
      startLine: 3,
      startColumn: 5,
    });
    expect(lines).toEqual([
      '::warning title=ci-agent policy,file=.claude/settings.json,line=3,col=5::ignored unknown key "permision"\n',
    ]);
  });

  it('folds what is logged during a phase into a group', async () => {
    const result = await commands().group('ci-agent: the agent at work', async () => {
      commands().info('inside');
      return 42;
    });
    expect(result).toBe(42);
    expect(lines).toEqual(['::group::ci-agent: the agent at work\n', 'inside\n', '::endgroup::\n']);
  });

  it('closes the group when the phase fails', async () => {
    await expect(
      commands().group('ci-agent: pushing b', () => Promise.reject(new Error('rejected'))),
    ).rejects.toThrow('rejected');
    expect(lines).toEqual(['::group::ci-agent: pushing b\n', '::endgroup::\n']);
  });

  it('registers secrets with the masker, but never an empty one', () => {
    const runner = commands();
    runner.setSecret('sk-ant-123');
    runner.setSecret('');
    expect(lines).toEqual(['::add-mask::sk-ant-123\n']);
  });

  describe('when the runner gives an output file', () => {
    it('appends every output so the runner reads back exactly the values, multi-line included', () => {
      const file = join(dir, 'output');
      writeFileSync(file, '');
      const runner = commands({ GITHUB_OUTPUT: file });
      runner.setOutput('conclusion', 'done');
      runner.setOutput('turns', 3);
      runner.setOutput('headline', 'line one\nline two');
      expect(parseOutputs(readFileSync(file, 'utf8'))).toEqual({
        conclusion: 'done',
        turns: '3',
        headline: 'line one\nline two',
      });
      expect(lines).toEqual([]);
    });

    it("writes to the file of the environment it was made for, not the process's", () => {
      const mine = join(dir, 'mine');
      const other = join(dir, 'other');
      writeFileSync(mine, '');
      writeFileSync(other, '');
      process.env.GITHUB_OUTPUT = other;
      try {
        commands({ GITHUB_OUTPUT: mine }).setOutput('branch', 'b');
      } finally {
        delete process.env.GITHUB_OUTPUT;
      }
      expect(parseOutputs(readFileSync(mine, 'utf8'))).toEqual({ branch: 'b' });
      expect(readFileSync(other, 'utf8')).toBe('');
    });
  });

  describe('when there is no output file', () => {
    it('falls back to the set-output command', () => {
      commands().setOutput('branch', 'ci-agent/issue-1');
      expect(lines.join('')).toBe('\n::set-output name=branch::ci-agent/issue-1\n');
    });
  });

  describe('appendSummary', () => {
    it('appends Markdown to the summary file, ending each part with a newline', async () => {
      const file = join(dir, 'summary.md');
      writeFileSync(file, '');
      const runner = commands({ GITHUB_STEP_SUMMARY: file });
      expect(await runner.appendSummary('### one')).toBe(true);
      expect(await runner.appendSummary('two\n')).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe('### one\ntwo\n');
    });

    it('writes each environment its own summary file, one after the other in one process', async () => {
      const first = join(dir, 'first.md');
      const second = join(dir, 'second.md');
      writeFileSync(first, '');
      writeFileSync(second, '');
      await commands({ GITHUB_STEP_SUMMARY: first }).appendSummary('first run');
      await commands({ GITHUB_STEP_SUMMARY: second }).appendSummary('second run');
      expect(readFileSync(first, 'utf8')).toBe('first run\n');
      expect(readFileSync(second, 'utf8')).toBe('second run\n');
    });

    it('says false when the runner gave no summary file', async () => {
      expect(await commands().appendSummary('### one')).toBe(false);
    });

    it('rejects when the summary file cannot be written', async () => {
      const runner = commands({ GITHUB_STEP_SUMMARY: join(dir, 'missing', 'summary.md') });
      await expect(runner.appendSummary('x')).rejects.toThrow(/Unable to access summary file/);
    });
  });
});

describe('when a text holds a secret', () => {
  const SECRET = 'ghs_runner_secret_0123456789';
  const ENCODED = Buffer.from(SECRET).toString('base64');

  it('masks it in every command, output and the summary, by the secrets of its env', async () => {
    const output = join(dir, 'output');
    const summary = join(dir, 'summary.md');
    writeFileSync(output, '');
    writeFileSync(summary, '');
    const runner = commands({
      'INPUT_GITHUB-TOKEN': SECRET,
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
    });
    runner.info(`info ${SECRET}`);
    runner.notice(`notice ${ENCODED}`);
    runner.warning(`warning ${[...SECRET].reverse().join('')}`, {
      title: `title ${SECRET}`,
      file: `${SECRET}.yml`,
    });
    runner.error(`failed ${encodeURIComponent(SECRET)}`);
    await runner.group(`group ${SECRET}`, () => Promise.resolve());
    runner.setOutput('branch', `ci-agent/${SECRET}`);
    await runner.appendSummary(`### report ${SECRET}`);
    const written = [lines.join(''), readFileSync(output, 'utf8'), readFileSync(summary, 'utf8')];
    for (const text of written) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(ENCODED.slice(2, 20));
      expect(text).not.toContain([...SECRET].reverse().join(''));
    }
    // Of base64, the characters that also depend on the bytes around the value stay.
    expect(lines).toEqual([
      'info ***\n',
      expect.stringMatching(/^::notice::notice \*\*\*.{0,3}\n$/),
      '::warning title=title ***,file=***.yml::warning ***\n',
      '::error::failed ***\n',
      '::group::group ***\n',
      '::endgroup::\n',
    ]);
    expect(parseOutputs(readFileSync(output, 'utf8'))).toEqual({ branch: 'ci-agent/***' });
    expect(readFileSync(summary, 'utf8')).toBe('### report ***\n');
  });

  it('masks by the masker it is given instead, and registers a secret as it is', () => {
    const runner = createWorkflowCommands({ env: {}, masker: createSecretMasker([SECRET]) });
    runner.setSecret(SECRET);
    runner.setOutput('x', SECRET);
    expect(lines.join('')).toBe(`::add-mask::${SECRET}\n\n::set-output name=x::***\n`);
  });
});

describe('maskWorkflowCommands', () => {
  it('masks what it passes on to the commands it wraps', () => {
    const inner = commands();
    const masked = maskWorkflowCommands(inner, createSecretMasker(['wrapped-secret-1']));
    masked.warning('a wrapped-secret-1 b');
    expect(lines).toEqual(['::warning::a *** b\n']);
  });
});
