import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createWorkflowCommands,
  escapeData,
  escapeProperty,
  fileCommand,
  maskWorkflowCommands,
} from '../../src/github/workflow-commands.js';
import { createSecretMasker } from '../../src/log/secret-masker.js';

let dir: string;
let lines: string[];
let failures: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ci-agent-commands-'));
  lines = [];
  failures = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function commands(env: NodeJS.ProcessEnv = {}) {
  return createWorkflowCommands({
    env,
    write: (line) => lines.push(line),
    fail: () => failures++,
  });
}

/** Reads a GITHUB_OUTPUT file back the way the runner does: `name<<DELIM`, lines, `DELIM`. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const rows = text.split('\n');
  for (let index = 0; index < rows.length; index++) {
    const match = /^([^<]+)<<(.+)$/.exec(rows[index]!);
    if (!match) continue;
    const [, name, delimiter] = match;
    const end = rows.indexOf(delimiter!, index + 1);
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
    runner.info('plain text');
    expect(lines).toEqual([
      '::warning::50%25 done%0Asecond line\n',
      '::notice::skipped\n',
      'plain text\n',
    ]);
  });

  it('marks the step failed and logs an error annotation', () => {
    commands().setFailed('ci-agent: failed: tests still fail');
    expect(failures).toBe(1);
    expect(lines).toEqual(['::error::ci-agent: failed: tests still fail\n']);
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
  });

  describe('when there is no output file', () => {
    it('falls back to the set-output command', () => {
      commands().setOutput('branch', 'ci-agent/issue-1');
      expect(lines).toEqual(['\n::set-output name=branch::ci-agent/issue-1\n']);
    });
  });

  describe('appendSummary', () => {
    it('appends Markdown to the summary file, ending each part with a newline', () => {
      const file = join(dir, 'summary.md');
      writeFileSync(file, '');
      const runner = commands({ GITHUB_STEP_SUMMARY: file });
      expect(runner.appendSummary('### one')).toBe(true);
      expect(runner.appendSummary('two\n')).toBe(true);
      expect(readFileSync(file, 'utf8')).toBe('### one\ntwo\n');
    });

    it('says false when the runner gave no summary file', () => {
      expect(commands().appendSummary('### one')).toBe(false);
    });

    it('throws when the summary file cannot be written', () => {
      const runner = commands({ GITHUB_STEP_SUMMARY: join(dir, 'missing', 'summary.md') });
      expect(() => runner.appendSummary('x')).toThrow(/ENOENT/);
    });
  });
});

describe('when a text holds a secret', () => {
  const SECRET = 'ghs_runner_secret_0123456789';
  const ENCODED = Buffer.from(SECRET).toString('base64');

  it('masks it in every command, output and the summary, by the secrets of its env', () => {
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
    runner.warning(`warning ${[...SECRET].reverse().join('')}`);
    runner.setFailed(`failed ${encodeURIComponent(SECRET)}`);
    runner.setOutput('branch', `ci-agent/${SECRET}`);
    runner.appendSummary(`### report ${SECRET}`);
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
      '::warning::warning ***\n',
      '::error::failed ***\n',
    ]);
    expect(parseOutputs(readFileSync(output, 'utf8'))).toEqual({ branch: 'ci-agent/***' });
    expect(readFileSync(summary, 'utf8')).toBe('### report ***\n');
  });

  it('masks by the masker it is given instead, and registers a secret as it is', () => {
    const runner = createWorkflowCommands({
      env: {},
      write: (line) => lines.push(line),
      masker: createSecretMasker([SECRET]),
    });
    runner.setSecret(SECRET);
    runner.setOutput('x', SECRET);
    expect(lines).toEqual([`::add-mask::${SECRET}\n`, '\n::set-output name=x::***\n']);
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

describe('fileCommand', () => {
  it('uses a fresh random delimiter each time', () => {
    const first = fileCommand('a', 'v').split('\n')[0];
    const second = fileCommand('a', 'v').split('\n')[0];
    expect(first).toMatch(/^a<<ghadelimiter_[0-9a-f-]{36}$/);
    expect(first).not.toBe(second);
  });
});

describe('escapeData and escapeProperty', () => {
  it('escape what would end or split a command', () => {
    expect(escapeData('a%b\r\nc')).toBe('a%25b%0D%0Ac');
    expect(escapeProperty('x:y,z\n')).toBe('x%3Ay%2Cz%0A');
  });
});
