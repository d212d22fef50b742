/**
 * The built action when the model API cannot be reached or its URL is malformed: each retry is
 * a line in the step log as it happens, with the cause and the URL; a refused connection gives
 * up within seconds; a malformed ANTHROPIC_BASE_URL fails the step at start, naming it.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { ReplayServer } from '../../testkit/replay-server.js';
import { OWNER, runBuiltAction, startActionHarness } from '../helpers/action-harness.js';
import { FILES, ISSUE, issueLabeled } from './trigger-fixtures.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** No replay server: the action is pointed at `url` as its ANTHROPIC_BASE_URL. */
const modelAt = (url: string) => ({ url }) as ReplayServer;

describe('the GitHub Action and the model API', () => {
  it('logs each retry of a refused connection with the cause and the URL, and gives up within seconds', async () => {
    const harness = await startActionHarness({
      files: FILES,
      actor: OWNER,
      seed: { issues: [ISSUE] },
    });
    const port = await closedPort();
    const started = performance.now();
    const run = await runBuiltAction(harness, modelAt(`http://127.0.0.1:${port}`), {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
    });
    const seconds = (performance.now() - started) / 1000;

    expect(run.code, run.stdout).toBe(1);
    expect(run.outputs.conclusion).toBe('failed');
    const url = `http://127.0.0.1:${port}/v1/messages`;
    const retries = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('ci-agent: model API request failed'))
      .map((line) => line.replace(/in [\d.]+ s$/, 'in … s'));
    expect(retries).toEqual(
      [1, 2, 3].map(
        (retry) =>
          `ci-agent: model API request failed (connect ECONNREFUSED 127.0.0.1:${port}) at ${url}; retry ${retry} of 3 in … s`,
      ),
    );
    expect(run.stdout).toMatch(
      /^::error::ci-agent: failed: .*ECONNREFUSED.*Gave up after 3 retries/m,
    );
    expect(seconds).toBeLessThan(20);
  });

  it('fails at start on a malformed ANTHROPIC_BASE_URL, naming the variable', async () => {
    const harness = await startActionHarness({
      files: FILES,
      actor: OWNER,
      seed: { issues: [ISSUE] },
    });
    const run = await runBuiltAction(harness, modelAt('api.anthropic.com'), {
      payload: issueLabeled('ci-agent'),
      eventName: 'issues',
    });

    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout).toContain(
      '::error::ci-agent: ANTHROPIC_BASE_URL: expected an http(s) URL such as https://api.anthropic.com, got "api.anthropic.com"',
    );
    // Before the run: no "working" comment, no branch.
    expect(harness.github.state.comments).toHaveLength(0);
    expect(Object.keys(await harness.origin.branches())).toEqual(['main']);
  });
});
