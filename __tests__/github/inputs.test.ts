import { describe, expect, it, vi } from 'vitest';
import { getInputFrom, INPUT_NAMES, InputError, readInputs } from '../../src/github/inputs.js';
import type { InputEnvironment } from '../../src/github/inputs.js';

const TOKEN = 'ghs_0123456789abcdefghij';

/** The environment the runner builds from `with:`: `INPUT_` + the name upper-cased, hyphens kept. */
function inputs(values: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { 'INPUT_GITHUB-TOKEN': TOKEN };
  for (const [name, value] of Object.entries(values)) env[`INPUT_${name.toUpperCase()}`] = value;
  return env;
}

const read = (values: Record<string, string> = {}) =>
  readInputs(inputs(values), { setSecret: () => undefined });

function problemsOf(env: InputEnvironment): readonly string[] {
  try {
    readInputs(env, { setSecret: () => undefined });
  } catch (error) {
    if (error instanceof InputError) return error.problems;
    throw error;
  }
  throw new Error('expected an InputError');
}

describe('getInputFrom', () => {
  it('reads INPUT_ with the name upper-cased, hyphens kept and spaces as underscores', () => {
    const env = { 'INPUT_MAX-TURNS': '3', INPUT_MY_INPUT: 'x' };
    expect(getInputFrom(env, 'max-turns')).toBe('3');
    expect(getInputFrom(env, 'my input')).toBe('x');
  });

  it('trims the value and gives an empty string when unset', () => {
    expect(getInputFrom({ INPUT_PROMPT: '  fix it \n' }, 'prompt')).toBe('fix it');
    expect(getInputFrom({}, 'prompt')).toBe('');
  });
});

describe('readInputs', () => {
  it('applies the defaults of action.yml when only the token is given', () => {
    expect(read()).toEqual({
      anthropicApiKey: undefined,
      claudeCodeOauthToken: undefined,
      useBedrock: false,
      useVertex: false,
      useFoundry: false,
      githubToken: TOKEN,
      prompt: undefined,
      policy: '.github/ci-agent.yml',
      model: undefined,
      maxTurns: undefined,
      maxBudgetUsd: undefined,
      timeoutMinutes: undefined,
      triggerLabel: 'ci-agent',
      testCommand: undefined,
      branchPrefix: 'ci-agent/',
      allowedBots: [],
      uploadArtifact: true,
      artifactName: 'ci-agent-log',
      comment: true,
      attest: false,
      auditRunId: undefined,
    });
  });

  it('reads every input when all are given', () => {
    expect(
      read({
        'anthropic-api-key': 'sk-ant-test',
        'claude-code-oauth-token': 'sk-ant-oat01-test',
        'use-bedrock': 'true',
        'use-vertex': 'False',
        'use-foundry': 'false',
        prompt: 'Audit the dependencies',
        policy: './config/../.github/agent.yml',
        model: 'claude-sonnet-5-5',
        'max-turns': '12',
        'max-budget-usd': '2.50',
        'timeout-minutes': '7.5',
        'trigger-label': 'agent: fix',
        'test-command': 'npm test -- --run',
        'branch-prefix': 'bots/agent-',
        'allowed-bots': 'dependabot[bot], renovate\nmy-app[bot]',
        'upload-artifact': 'false',
        'artifact-name': 'agent log',
        comment: 'FALSE',
        attest: 'true',
        'audit-run-id': '1658821493',
      }),
    ).toEqual({
      anthropicApiKey: 'sk-ant-test',
      claudeCodeOauthToken: 'sk-ant-oat01-test',
      useBedrock: true,
      useVertex: false,
      useFoundry: false,
      githubToken: TOKEN,
      prompt: 'Audit the dependencies',
      policy: '.github/agent.yml',
      model: 'claude-sonnet-5-5',
      maxTurns: 12,
      maxBudgetUsd: 2.5,
      timeoutMinutes: 7.5,
      triggerLabel: 'agent: fix',
      testCommand: 'npm test -- --run',
      branchPrefix: 'bots/agent-',
      allowedBots: ['dependabot[bot]', 'renovate', 'my-app[bot]'],
      uploadArtifact: false,
      artifactName: 'agent log',
      comment: false,
      attest: true,
      auditRunId: 1658821493,
    });
  });

  it('returns a frozen object with a frozen list', () => {
    const settings = read({ 'allowed-bots': 'a[bot]' });
    expect(Object.isFrozen(settings)).toBe(true);
    expect(Object.isFrozen(settings.allowedBots)).toBe(true);
  });

  it('reads each input from the environment exactly once', () => {
    const reads = new Map<string, number>();
    const env = new Proxy(inputs(), {
      get(target, key: string) {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        return target[key];
      },
    });
    readInputs(env, { setSecret: () => undefined });
    expect([...reads.keys()].sort()).toEqual(
      INPUT_NAMES.map((name) => `INPUT_${name.toUpperCase()}`).sort(),
    );
    expect([...reads.values()].every((count) => count === 1)).toBe(true);
  });

  describe('when a secret is given', () => {
    it('registers the API key, the OAuth token and the token with the masker before validating', () => {
      const secrets: string[] = [];
      expect(() =>
        readInputs(
          inputs({
            'anthropic-api-key': 'sk-ant-secret',
            'claude-code-oauth-token': 'sk-ant-oat01-secret',
            'max-turns': 'ten',
          }),
          { setSecret: (value) => secrets.push(value) },
        ),
      ).toThrow(InputError);
      expect(secrets).toEqual(['sk-ant-secret', 'sk-ant-oat01-secret', TOKEN]);
    });

    it('registers nothing for an input left empty', () => {
      const secrets: string[] = [];
      readInputs(inputs(), { setSecret: (value) => secrets.push(value) });
      expect(secrets).toEqual([TOKEN]);
    });

    it('masks through core.setSecret by default (an add-mask command on stdout)', () => {
      const written: string[] = [];
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
        written.push(String(chunk));
        return true;
      });
      try {
        readInputs(inputs({ 'anthropic-api-key': 'sk-ant-masked' }));
      } finally {
        spy.mockRestore();
      }
      expect(written.join('')).toContain('::add-mask::sk-ant-masked');
      expect(written.join('')).toContain(`::add-mask::${TOKEN}`);
    });
  });

  describe('when a value is bad', () => {
    it.each([
      ['max-turns', 'ten', 'max-turns: expected a positive integer, got "ten"'],
      ['max-turns', '0', 'max-turns: expected a positive integer, got "0"'],
      ['max-turns', '2.5', 'max-turns: expected a positive integer, got "2.5"'],
      ['max-turns', '-3', 'max-turns: expected a positive integer, got "-3"'],
      [
        'max-budget-usd',
        '$5',
        'max-budget-usd: expected a positive number of US dollars, like 2.50, got "$5"',
      ],
      [
        'max-budget-usd',
        '0',
        'max-budget-usd: expected a positive number of US dollars, like 2.50, got "0"',
      ],
      [
        'timeout-minutes',
        '30m',
        'timeout-minutes: expected a positive number of minutes, like 30, got "30m"',
      ],
      [
        'upload-artifact',
        'yes',
        'upload-artifact: expected true or false (also True, TRUE, False, FALSE), got "yes"',
      ],
      [
        'use-bedrock',
        '1',
        'use-bedrock: expected true or false (also True, TRUE, False, FALSE), got "1"',
      ],
      [
        'comment',
        'tRuE',
        'comment: expected true or false (also True, TRUE, False, FALSE), got "tRuE"',
      ],
      [
        'policy',
        '/etc/ci-agent.yml',
        'policy: expected a path relative to the repository root, like .github/ci-agent.yml, got "/etc/ci-agent.yml"',
      ],
      [
        'policy',
        '../other/ci-agent.yml',
        'policy: expected a path relative to the repository root, like .github/ci-agent.yml, got "../other/ci-agent.yml"',
      ],
      [
        'model',
        'claude sonnet',
        'model: expected a model id or alias without spaces, like sonnet, got "claude sonnet"',
      ],
      [
        'allowed-bots',
        'dependabot[bot], evil bot',
        'allowed-bots: expected bot logins separated by commas or newlines, like dependabot[bot], renovate[bot], or *, got "dependabot[bot], evil bot"',
      ],
      [
        'audit-run-id',
        '12a',
        'audit-run-id: expected a workflow run id (a positive integer), got "12a"',
      ],
      [
        'artifact-name',
        'logs/run',
        'artifact-name: expected an artifact name without " : < > | * ? \\ / or line breaks, got "logs/run"',
      ],
    ])('rejects %s %j naming the input, the value and the form', (name, value, message) => {
      expect(problemsOf(inputs({ [name]: value }))).toEqual([message]);
    });

    it.each(['has space/', 'a..b/', '-x/', '/x', 'x~/', 'x//y', '.hidden/', 'a.lock/b', 'a@{b'])(
      'rejects the branch prefix %j',
      (prefix) => {
        const [problem] = problemsOf(inputs({ 'branch-prefix': prefix }));
        expect(problem).toMatch(/^branch-prefix: expected a branch name prefix like ci-agent\//);
        expect(problem).toContain(`got ${JSON.stringify(prefix)}`);
      },
    );

    it('lists every bad input in one error', () => {
      expect(problemsOf(inputs({ 'max-turns': 'ten', comment: 'maybe' }))).toEqual([
        'max-turns: expected a positive integer, got "ten"',
        'comment: expected true or false (also True, TRUE, False, FALSE), got "maybe"',
      ]);
    });

    it('says the token is missing without echoing any secret', () => {
      const [problem, ...rest] = problemsOf({ 'INPUT_ANTHROPIC-API-KEY': 'sk-ant-x' });
      expect(rest).toEqual([]);
      expect(problem).toMatch(/^github-token: expected a token, got nothing \(the default is/);
      expect(problem).not.toContain('sk-ant-x');
    });
  });

  describe('when a boolean is written in another YAML 1.2 form', () => {
    it.each([
      ['true', true],
      ['True', true],
      ['TRUE', true],
      ['false', false],
      ['False', false],
      ['FALSE', false],
    ])('reads %j as %s', (word, value) => {
      expect(read({ comment: word, 'upload-artifact': word })).toMatchObject({
        comment: value,
        uploadArtifact: value,
      });
    });
  });

  describe('when allowed-bots is a list', () => {
    it('splits on commas and newlines, drops empty entries and accepts *', () => {
      expect(read({ 'allowed-bots': '\n renovate[bot],,\n*\n' }).allowedBots).toEqual([
        'renovate[bot]',
        '*',
      ]);
    });
  });
});
