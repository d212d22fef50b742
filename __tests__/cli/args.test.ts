import { describe, expect, it } from 'vitest';
import { parseCli, UsageError } from '../../src/cli/args.js';

const parse = (...argv: string[]) => parseCli(argv, '0.0.0-test');

describe('parseCli', () => {
  it('takes the prompt after -p with the claude -p defaults', () => {
    expect(parse('-p', 'fix the test')).toEqual({
      prompt: 'fix the test',
      outputFormat: 'text',
      verbose: false,
      permissionMode: undefined,
      allowedTools: [],
      disallowedTools: [],
      maxTurns: undefined,
      model: undefined,
      appendSystemPrompt: undefined,
      addDir: [],
      settings: [],
      policy: undefined,
      maxBudgetUsd: undefined,
      mcpConfig: [],
      strictMcpConfig: false,
    });
  });

  it('reads the settings, policy and budget flags', () => {
    expect(
      parse(
        '-p',
        'x',
        '--settings',
        'a.json',
        '{"permissions":{}}',
        '--policy',
        'p.yml',
        '--max-budget-usd',
        '2.5',
      ),
    ).toMatchObject({
      settings: ['a.json', '{"permissions":{}}'],
      policy: 'p.yml',
      maxBudgetUsd: 2.5,
    });
  });

  it('takes the prompt as a positional argument after a bare -p', () => {
    expect(parse('-p', '--verbose', 'hello')).toMatchObject({ prompt: 'hello', verbose: true });
    expect(parse('hello')).toMatchObject({ prompt: 'hello' });
  });

  it('reads the shared flags', () => {
    expect(
      parse(
        '-p',
        'x',
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'acceptEdits',
        '--max-turns',
        '7',
        '--model',
        'opus',
        '--append-system-prompt',
        'be brief',
        '--add-dir',
        '../other',
      ),
    ).toMatchObject({
      outputFormat: 'stream-json',
      permissionMode: 'acceptEdits',
      maxTurns: 7,
      model: 'opus',
      appendSystemPrompt: 'be brief',
      addDir: ['../other'],
    });
  });

  it('accepts tool lists comma- or space-separated, repeated, in both spellings', () => {
    const settings = parse(
      '-p',
      'x',
      '--allowedTools',
      'Read,Grep',
      'Bash(git log *)',
      '--allowed-tools',
      'Edit Write',
      '--disallowedTools',
      'WebFetch',
    );
    expect(settings).toMatchObject({
      allowedTools: ['Read', 'Grep', 'Bash(git log *)', 'Edit', 'Write'],
      disallowedTools: ['WebFetch'],
    });
  });

  it('maps --dangerously-skip-permissions to bypassPermissions', () => {
    expect(parse('-p', 'x', '--dangerously-skip-permissions')).toMatchObject({
      permissionMode: 'bypassPermissions',
    });
  });

  describe('when a flag is wrong', () => {
    it.each([
      [['-p', 'x', '--output-format', 'yaml'], /--output-format.*yaml.*text, json, stream-json/],
      [['-p', 'x', '--output-format', 'stream-json'], /stream-json requires --verbose/],
      [['-p', 'x', '--permission-mode', 'yolo'], /--permission-mode.*yolo/],
      [['-p', 'x', '--max-turns', 'zero'], /--max-turns must be a positive integer, got "zero"/],
      [['-p', 'x', '--max-turns', '0'], /--max-turns must be a positive integer/],
      [
        ['-p', 'x', '--max-budget-usd', '-1'],
        /--max-budget-usd must be a positive number of US dollars, got "-1"/,
      ],
      [['-p', 'x', '--frobnicate'], /unknown option '--frobnicate'/],
      [['-p', 'x', 'y'], /either after -p or as an argument/],
    ])('%j fails with one clear line', (argv, message) => {
      expect(() => parse(...argv)).toThrow(UsageError);
      expect(() => parse(...argv)).toThrow(message);
    });
  });
});
