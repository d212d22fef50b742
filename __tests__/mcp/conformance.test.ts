/**
 * The official MCP conformance suite's client scenarios against the built CLI: the suite starts
 * a loopback server per scenario and runs our client command (helpers/conformance-client.ts)
 * with its URL. The suite needs Node >= 22 (fs.globSync): it runs on the Node that the `node`
 * devDependency installs; the CLI runs on this one.
 */
import { execa } from 'execa';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPAWN_LIKE } from '../helpers/spawn-like.js';
import { assertCliBuilt } from '../helpers/cli-harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SUITE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SUITE_NODE = join(ROOT, 'node_modules/node/bin/node');
const CLIENT = `${process.execPath} ${join(ROOT, 'node_modules/tsx/dist/cli.mjs')} ${join(ROOT, '__tests__/helpers/conformance-client.ts')}`;

interface Check {
  id: string;
  /** SUCCESS, FAILURE, WARNING or INFO. */
  status: string;
  errorMessage?: string;
}

interface ScenarioRun {
  code: number | null;
  checks: Check[];
  /** The CLI's stream-json lines. */
  lines: Array<Record<string, unknown>>;
  output: string;
}

let results: string;
beforeAll(() => {
  assertCliBuilt();
  results = mkdtempSync(join(tmpdir(), 'ci-agent-conformance-results-'));
});
afterAll(() => rmSync(results, { recursive: true, force: true }));

async function runScenario(scenario: string, acceptDefaults: boolean): Promise<ScenarioRun> {
  const out = join(results, `${scenario}-${acceptDefaults ? 'accept' : 'default'}`);
  const child = execa(
    SUITE_NODE,
    [SUITE, 'client', '--command', CLIENT, '--scenario', scenario, '--timeout', '60000', '-o', out],
    {
      cwd: ROOT,
      env: { ...process.env, CONFORMANCE_ACCEPT_DEFAULTS: acceptDefaults ? '1' : '0' },
      ...SPAWN_LIKE,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  // The suite writes <out>/<scenario>-<timestamp>/{checks.json,stdout.txt}.
  const dirs = readdirSync(out, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name === 'checks.json')
    .map((entry) => entry.parentPath);
  expect(dirs, output).toHaveLength(1);
  const dir = dirs[0] ?? '';
  const checks = JSON.parse(readFileSync(join(dir, 'checks.json'), 'utf8')) as Check[];
  const lines = readFileSync(join(dir, 'stdout.txt'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, checks, lines, output };
}

/**
 * The checks that judge (not the INFO records of traffic). A reconnection slightly later than the
 * server's `retry` is the suite's own WARNING ("acceptable"): on a loaded machine it is timing,
 * not behaviour, so it counts as a success here; a FAILURE never does.
 */
const verdicts = (run: ScenarioRun) =>
  run.checks
    .filter((check) => check.status !== 'INFO')
    .map((check) => {
      const lateRetry = check.id === 'client-sse-retry-timing' && check.status === 'WARNING';
      return [
        check.id,
        lateRetry ? 'SUCCESS' : check.status,
        lateRetry ? '' : (check.errorMessage ?? ''),
      ];
    });

const elicitationsOf = (run: ScenarioRun) =>
  run.lines
    .filter((line) => line.type === 'user')
    .map((line) => (line.tool_use_result as { elicitations?: unknown } | undefined)?.elicitations)
    .filter((value) => value !== undefined);

describe('the CLI as an MCP client, by the conformance suite', { timeout: 120_000 }, () => {
  it.each([
    ['initialize', ['mcp-client-initialization']],
    ['tools_call', ['tool-add-numbers']],
    [
      'sse-retry',
      ['client-sse-graceful-reconnect', 'client-sse-retry-timing', 'client-sse-last-event-id'],
    ],
  ])('passes %s', async (scenario, expected) => {
    const run = await runScenario(scenario, false);
    expect(verdicts(run), run.output).toEqual(expected.map((id) => [id, 'SUCCESS', '']));
    expect(run.code, run.output).toBe(0);
  });

  it('passes elicitation-defaults with the policy set to accept defaults, and logs the answer', async () => {
    const run = await runScenario('elicitation-sep1034-client-defaults', true);
    const ids = ['string', 'integer', 'number', 'enum', 'boolean'].map(
      (kind) => `client-elicitation-sep1034-${kind}-default`,
    );
    expect(verdicts(run), run.output).toEqual(ids.map((id) => [id, 'SUCCESS', '']));
    expect(run.code, run.output).toBe(0);
    expect(elicitationsOf(run)).toEqual([
      [
        expect.objectContaining({
          server: 'conformance',
          mode: 'form',
          message: 'Test client default value handling - please accept with defaults',
          action: 'accept',
          content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
        }),
      ],
    ]);
  });

  it('fails elicitation-defaults under the default policy, which declines and says why', async () => {
    const run = await runScenario('elicitation-sep1034-client-defaults', false);
    expect(run.code).not.toBe(0);
    expect(verdicts(run)).toContainEqual([
      'client-elicitation-sep1034-general',
      'FAILURE',
      "Expected action 'accept', got 'decline'",
    ]);
    expect(elicitationsOf(run)).toEqual([
      [
        expect.objectContaining({
          action: 'decline',
          reason:
            'nobody can answer in CI, and the policy does not list "conformance" in mcp.acceptElicitationDefaults',
        }),
      ],
    ]);
  });
});
