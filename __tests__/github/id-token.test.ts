/**
 * The job's OIDC token through core.getIDToken, against a loopback token endpoint speaking the
 * runner's protocol: GET ACTIONS_ID_TOKEN_REQUEST_URL (+ `&audience=…`) with
 * ACTIONS_ID_TOKEN_REQUEST_TOKEN as the bearer, answered with `{"value": "<jwt>"}`.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { idToken } from '../../src/github/id-token.js';
import { captureStdout } from '../helpers/runner-stdout.js';

const REQUEST_TOKEN = 'runtime-request-token-0123';
const JWT = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZXBvOm8vcjpyZWYifQ.c2lnbmF0dXJl';

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

/** The endpoint: the token for the right bearer, 401 otherwise; every request recorded. */
async function startTokenEndpoint(): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    const authorized = request.headers.authorization === `Bearer ${REQUEST_TOKEN}`;
    response.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json' });
    response.end(JSON.stringify(authorized ? { value: JWT } : { message: 'Unauthorized' }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/_apis/distributedtask/token?api-version=2.0`, seen };
}

describe('idToken', () => {
  it('asks the runner for the token, with the audience, and registers it as a secret', async () => {
    const stdout = captureStdout();
    const endpoint = await startTokenEndpoint();
    const token = await idToken('sts.amazonaws.com', {
      ACTIONS_ID_TOKEN_REQUEST_URL: endpoint.url,
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN,
    });
    expect(token).toBe(JWT);
    expect(endpoint.seen).toHaveLength(1);
    expect(endpoint.seen[0]?.url).toBe(
      '/_apis/distributedtask/token?api-version=2.0&audience=sts.amazonaws.com',
    );
    expect(endpoint.seen[0]?.headers.authorization).toBe(`Bearer ${REQUEST_TOKEN}`);
    expect(stdout).toContain(`::add-mask::${JWT}\n`);
  });

  it('says which variable is missing when the workflow does not grant id-token: write', async () => {
    captureStdout();
    await expect(idToken(undefined, {})).rejects.toThrow(/ACTIONS_ID_TOKEN_REQUEST_URL/);
  });

  it('fails when the endpoint refuses the request token', async () => {
    captureStdout();
    const endpoint = await startTokenEndpoint();
    await expect(
      idToken(undefined, {
        ACTIONS_ID_TOKEN_REQUEST_URL: endpoint.url,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'wrong',
      }),
    ).rejects.toThrow(/Failed to get ID Token/);
  });
});
