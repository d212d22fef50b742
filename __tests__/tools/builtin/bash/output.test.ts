import { describe, expect, it } from 'vitest';
import {
  capErrorText,
  formatStderr,
  formatStdout,
  HeadBuffer,
  renderBashOutput,
  type BashOutput,
} from '../../../../src/tools/builtin/bash/output.js';

function buffer(text: string, limit = 1_000): HeadBuffer {
  const head = new HeadBuffer(limit);
  head.append(text);
  return head;
}

function output(overrides: Partial<BashOutput>): BashOutput {
  const base = { stdout: '', stderr: '', interrupted: false, isImage: false as const };
  return { ...base, noOutputExpected: false, exitCode: 0, ...overrides };
}

describe('HeadBuffer', () => {
  it('keeps everything under the limit', () => {
    const head = new HeadBuffer(10);
    head.append('abc');
    head.append('def');
    expect([head.text, head.truncatedLines]).toEqual(['abcdef', 0]);
  });

  it('keeps the head across chunks and counts the lines it drops', () => {
    const head = new HeadBuffer(4);
    head.append('ab\ncd');
    head.append('\nef\ngh');
    expect(head.text).toBe('ab\nc');
    // Dropped "d\nef\ngh": the rest of line 2 and lines 3 and 4.
    expect(head.truncatedLines).toBe(3);
  });

  it('does not count an empty line after a final newline', () => {
    expect(buffer('a\nb\nc\n', 2).truncatedLines).toBe(2);
  });
});

describe('formatStdout', () => {
  it('drops leading blank lines and trailing whitespace but keeps indentation', () => {
    expect(formatStdout(buffer('\n  \n  indented\nlast  \n\n'))).toBe('  indented\nlast');
  });

  it('notes how many lines were cut', () => {
    expect(formatStdout(buffer('line1\nline2\nline3\n', 6))).toBe(
      'line1\n\n... [2 lines truncated] ...',
    );
  });
});

describe('formatStderr', () => {
  it('trims both ends', () => {
    expect(formatStderr(buffer('\n  warning: x \n'))).toBe('warning: x');
  });
});

describe('renderBashOutput', () => {
  it('joins stdout and stderr for a success', () => {
    expect(renderBashOutput(output({ stdout: 'out', stderr: 'err' }))).toBe('out\nerr');
  });

  it('leads a failure with its exit code', () => {
    expect(renderBashOutput(output({ stdout: 'out', stderr: 'err', exitCode: 3 }))).toBe(
      'Exit code 3\nout\nerr',
    );
  });

  it('gives the meaning of a benign exit status when nothing was printed', () => {
    const text = renderBashOutput(
      output({ exitCode: 1, returnCodeInterpretation: 'No matches found' }),
    );
    expect(text).toBe('No matches found');
  });

  it('adds the cwd reset note', () => {
    expect(renderBashOutput(output({ stdout: '/', cwdReset: '/work' }))).toBe(
      '/\nShell cwd was reset to /work',
    );
  });

  it('says so when a command printed nothing', () => {
    expect(renderBashOutput(output({}))).toBe('(no output)');
  });

  it('caps a long failure at head and tail', () => {
    const text = renderBashOutput(output({ stdout: 'x'.repeat(20_000), exitCode: 2 }));
    expect(text.startsWith('Exit code 2\nxxx')).toBe(true);
    expect(text).toContain('... [10012 characters truncated] ...');
  });

  it('leaves a long success whole', () => {
    expect(renderBashOutput(output({ stdout: 'x'.repeat(20_000) }))).toHaveLength(20_000);
  });
});

describe('capErrorText', () => {
  it('keeps 5000 characters from each end', () => {
    const text = `${'a'.repeat(6_000)}${'b'.repeat(6_000)}`;
    expect(capErrorText(text)).toBe(
      `${'a'.repeat(5_000)}\n\n... [2000 characters truncated] ...\n\n${'b'.repeat(5_000)}`,
    );
  });

  it('leaves text at the limit alone', () => {
    const text = 'a'.repeat(10_000);
    expect(capErrorText(text)).toBe(text);
  });
});
