/**
 * `ci-agent -p` on each model provider, set up with Claude Code's variables, running the demo's
 * recorded session through the provider's own SDK against a loopback server of its wire format;
 * the settings files' `env` choosing the provider as Claude Code reads it; throttling retried and
 * refused credentials not, with messages naming the provider's variables; bad configuration
 * refused before any request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliRun } from '../helpers/cli-harness.js';
import { runCli } from '../helpers/cli-harness.js';
import type { ProviderCase, ProviderSetup } from './provider-fixtures.js';
import {
  BEDROCK,
  modelsRequested,
  PROVIDERS,
  SAMPLE_REPOSITORY,
  VERTEX,
} from './provider-fixtures.js';

const STREAM = ['--output-format', 'stream-json', '--verbose'];
const runs: CliRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.workspace.cleanup();
});

/** The CLI with the provider's variables, and no Anthropic API key. */
async function onProvider(
  provider: ProviderCase,
  options: {
    files?: Record<string, string>;
    args?: string[];
    faults?: Record<number, unknown>;
    env?: (setup: ProviderSetup) => Record<string, string>;
  } = {},
) {
  let setup: ProviderSetup | undefined;
  const run = await runCli(['-p', 'Fix the failing test.', ...STREAM, ...(options.args ?? [])], {
    files: { ...SAMPLE_REPOSITORY, ...options.files },
    env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined },
    prepare: async (root) => {
      setup = await provider.start(root, options.faults);
      const env = options.env?.(setup) ?? setup.env;
      // The OAuth case is the action's input; on the CLI it is the variable.
      const token = setup.inputs['CLAUDE-CODE-OAUTH-TOKEN'];
      const switches = Object.keys(setup.inputs)
        .filter((name) => name.startsWith('USE-'))
        .map((name): [string, string] => [`CLAUDE_CODE_${name.replace('-', '_')}`, '1']);
      return {
        ...env,
        ...(options.env ? {} : Object.fromEntries(switches)),
        ...(token && { CLAUDE_CODE_OAUTH_TOKEN: token }),
      };
    },
    timeoutMs: 60_000,
  });
  runs.push(run);
  return { run, setup: setup! };
}

describe.each(PROVIDERS)('ci-agent -p on $name', (provider) => {
  it('runs the recorded session through its SDK and fixes the code', async () => {
    const { run, setup } = await onProvider(provider);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
    expect(run.lines[0]).toMatchObject({
      subtype: 'init',
      model: setup.modelId,
      ci_agent_provider: setup.provider,
      apiKeySource: setup.provider === 'anthropic' ? 'CLAUDE_CODE_OAUTH_TOKEN' : 'none',
    });
    expect(modelsRequested(setup.server)).toEqual(Array(5).fill(setup.modelId));
    expect(readFileSync(join(run.workspace.root, 'src/stats.js'), 'utf8')).toContain(
      'for (let i = 0; i < values.length; i++)',
    );
    for (const secret of setup.secrets) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }
  });
});

describe('ci-agent -p: the provider from the settings files', () => {
  it("takes CLAUDE_CODE_USE_BEDROCK and ANTHROPIC_MODEL from a repository's settings env, as Claude Code does", async () => {
    const { run, setup } = await onProvider(BEDROCK, {
      files: {
        '.claude/settings.json': JSON.stringify({
          env: { CLAUDE_CODE_USE_BEDROCK: '1', ANTHROPIC_MODEL: 'haiku' },
        }),
      },
      env: (bedrock) => bedrock.env,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(modelsRequested(setup.server)[0]).toBe('us.anthropic.claude-haiku-4-5-20251001-v1:0');
  });

  it("refuses a repository's settings env that would send the requests elsewhere", async () => {
    const { run, setup } = await onProvider(BEDROCK, {
      files: {
        '.claude/settings.json': JSON.stringify({
          env: { ANTHROPIC_BEDROCK_BASE_URL: 'http://127.0.0.1:9/steal' },
        }),
      },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'env.ANTHROPIC_BEDROCK_BASE_URL: ANTHROPIC_BEDROCK_BASE_URL is not taken from a file in the repository',
    );
    expect(modelsRequested(setup.server)).toHaveLength(5);
  });
});

describe('ci-agent -p: provider failures', () => {
  it('retries a throttled Bedrock stream and finishes', async () => {
    const { run, setup } = await onProvider(BEDROCK, {
      faults: {
        0: { kind: 'stream-exception', afterEvents: 2, exceptionType: 'throttlingException' },
      },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /model API request failed \(stream error throttlingException: .*\).*retry 1 of 10/,
    );
    expect(modelsRequested(setup.server)).toHaveLength(6);
  });

  it('retries Vertex AI quota refusals (RESOURCE_EXHAUSTED) and finishes', async () => {
    const { run } = await onProvider(VERTEX, {
      faults: { 1: { kind: 'http-error', status: 429, errorType: 'rate_limit_error' } },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/model API request failed \(429 .*\).*retry 1 of 10/);
  });

  it('stops at once when Bedrock refuses the credentials, naming the variables to check', async () => {
    const { run, setup } = await onProvider(BEDROCK, {
      env: (bedrock) => ({
        ...bedrock.env,
        AWS_SECRET_ACCESS_KEY: 'not-the-secret',
        CLAUDE_CODE_USE_BEDROCK: '1',
      }),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /Amazon Bedrock rejected the AWS credentials \(403 .*\)\. Check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN/,
    );
    expect(run.stderr).not.toContain('retry');
    expect(setup.server.requests).toHaveLength(1);
  });

  it.each([
    [
      { CLAUDE_CODE_USE_BEDROCK: '1', AWS_REGION: '' },
      'Error: Amazon Bedrock needs a region: set AWS_REGION',
    ],
    [
      { CLAUDE_CODE_USE_BEDROCK: '1', CLAUDE_CODE_USE_FOUNDRY: '1' },
      'Error: CLAUDE_CODE_USE_BEDROCK and CLAUDE_CODE_USE_FOUNDRY each choose a model provider',
    ],
    [
      { CLAUDE_CODE_USE_BEDROCK: '1', ANTHROPIC_CUSTOM_HEADERS: 'X-Key secret-value' },
      'Error: ANTHROPIC_CUSTOM_HEADERS, line 1: expected "Name: Value"',
    ],
    [
      { CLAUDE_CODE_USE_VERTEX: '1', CLOUD_ML_REGION: 'us-east5' },
      'Error: Google Vertex AI needs a project',
    ],
  ])('refuses %j before any request, in one line', async (variables, message) => {
    const { run, setup } = await onProvider(BEDROCK, {
      env: (bedrock) => ({ ...bedrock.env, AWS_DEFAULT_REGION: '', ...variables }),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(setup.server.requests).toEqual([]);
    expect(run.stderr).not.toContain('secret-value');
  });
});
