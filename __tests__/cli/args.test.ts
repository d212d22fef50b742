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

  describe('when a tool rule names no tool', () => {
    it.each([
      [
        ['--disallowedTools', 'Read,bash(curl:*)'],
        '--disallowedTools: deny rule "bash(curl:*)" names no tool ci-agent has, so it denies nothing: tool names are case-sensitive; did you mean "Bash(curl:*)"?',
      ],
      [
        ['--allowed-tools', 'WebFech'],
        '--allowedTools: allow rule "WebFech" names no tool ci-agent has, so it allows nothing: did you mean "WebFetch"?',
      ],
      [
        ['--disallowedTools', 'Shell(ls)'],
        '--disallowedTools: deny rule "Shell(ls)" names no tool ci-agent has, so it denies nothing: did you mean "Bash(ls)"?',
      ],
      [
        ['--allowedTools', 'Write(src/**)'],
        '--allowedTools: allow rule "Write(src/**)" is never consulted: path rules are checked for Read(…) and Edit(…) only; write "Edit(src/**)" instead',
      ],
      [
        ['--allowedTools', 'Bash('],
        '--allowedTools: invalid permission rule "Bash(": expected a tool name such as "Read", or "Tool(specifier)" such as "Bash(npm test:*)"',
      ],
    ])('%j fails naming the flag, the rule and the suggestion', (flags, message) => {
      expect(() => parse('-p', 'x', ...flags)).toThrow(UsageError);
      expect(() => parse('-p', 'x', ...flags)).toThrow(message);
    });

    it('accepts aliases, agent types, domains and any MCP server, which --mcp-config may add', () => {
      expect(
        parse(
          '-p',
          'x',
          '--allowedTools',
          'Task(Explore) WebFetch(domain:example.com) mcp__anything__tool',
          '--disallowedTools',
          'mcp__other',
        ),
      ).toMatchObject({
        allowedTools: ['Task(Explore)', 'WebFetch(domain:example.com)', 'mcp__anything__tool'],
        disallowedTools: ['mcp__other'],
      });
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
