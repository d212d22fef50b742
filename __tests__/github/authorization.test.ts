import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGitHubClient } from '../../src/github/github-client.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthorizationCheckError, authorizeActor, isBot } from '../../src/github/authorization.js';
import type { AuthorizationRequest, Octokit } from '../../src/github/authorization.js';

interface Reply {
  status: number;
  body: unknown;
}

/**
 * A loopback API answering GET /repos/{owner}/{repo}/collaborators/{username}/permission as GitHub
 * does (the repository-collaborator-permission shape), from a table of users.
 */
const permissions: Record<string, Reply> = {
  alice: { status: 200, body: { permission: 'write', role_name: 'write' } },
  mia: { status: 200, body: { permission: 'write', role_name: 'maintain' } },
  ada: { status: 200, body: { permission: 'admin', role_name: 'admin' } },
  tom: { status: 200, body: { permission: 'read', role_name: 'triage' } },
  rita: { status: 200, body: { permission: 'read', role_name: 'read' } },
  nina: { status: 200, body: { permission: 'none', role_name: '' } },
  broken: { status: 500, body: { message: 'Server Error' } },
};

const requests: { method: string; url: string; authorization: string | undefined }[] = [];

const server = createServer((request, response) => {
  requests.push({
    method: request.method ?? '',
    url: request.url ?? '',
    authorization: request.headers.authorization,
  });
  const match = /^\/repos\/octo-org\/octo-repo\/collaborators\/([^/]+)\/permission$/.exec(
    request.url ?? '',
  );
  const login = match ? decodeURIComponent(match[1] ?? '') : undefined;
  const reply =
    login !== undefined && Object.hasOwn(permissions, login)
      ? permissions[login]
      : { status: 404, body: { message: 'Not Found' } };
  const body =
    reply?.status === 200
      ? { ...(reply.body as object), user: { login, id: 1, type: 'User' } }
      : reply?.body;
  response.writeHead(reply?.status ?? 404, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
});

let octokit: Octokit;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // The client retries a 5xx with back-off: milliseconds here instead of seconds.
  octokit = createGitHubClient('ghs_test_token', `http://127.0.0.1:${port}`, {
    retryAfterBaseValue: 1,
  });
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) =>
    server.close((error) => (error ? reject(error) : resolve())),
  );
});

beforeEach(() => {
  requests.length = 0;
});

const check = (
  login: string,
  options: { type?: string; allowedBots?: string[] } = {},
): ReturnType<typeof authorizeActor> =>
  authorizeActor(octokit, {
    owner: 'octo-org',
    repo: 'octo-repo',
    actor: { login, type: options.type ?? (login.endsWith('[bot]') ? 'Bot' : 'User') },
    allowedBots: options.allowedBots ?? [],
  });

describe('authorizeActor', () => {
  describe('when the actor is a person', () => {
    it('asks the permission API with the token', async () => {
      await check('alice');
      expect(requests).toEqual([
        {
          method: 'GET',
          url: '/repos/octo-org/octo-repo/collaborators/alice/permission',
          authorization: 'token ghs_test_token',
        },
      ]);
    });

    it.each([
      ['alice', 'write'],
      ['mia', 'maintain'],
      ['ada', 'admin'],
    ])('allows %s, who has %s permission', async (login, role) => {
      expect(await check(login)).toEqual({
        allowed: true,
        reason: `@${login} has ${role} permission`,
      });
    });

    it.each([
      ['tom', 'triage'],
      ['rita', 'read'],
      ['nina', 'none'],
    ])('denies %s, who has %s permission', async (login, role) => {
      expect(await check(login)).toEqual({
        allowed: false,
        reason: `@${login} has ${role} permission on octo-org/octo-repo; write is needed`,
      });
    });

    it('denies someone the API does not know as a collaborator', async () => {
      expect(await check('stranger')).toEqual({
        allowed: false,
        reason:
          '@stranger is not a collaborator of octo-org/octo-repo (write permission is needed)',
      });
    });

    it('throws when the API fails, so no run starts unchecked', async () => {
      const result = check('broken');
      await expect(result).rejects.toThrow(AuthorizationCheckError);
      await expect(result).rejects.toThrow(
        /^could not check @broken's permission on octo-org\/octo-repo: HTTP 500: /,
      );
    });

    it('does not let allowed-bots grant a person with the same name', async () => {
      expect(await check('rita', { allowedBots: ['rita'] })).toMatchObject({ allowed: false });
      expect(requests).toHaveLength(1);
    });
  });

  describe('when the actor is a bot', () => {
    it('denies a bot allowed-bots does not list, without asking the API', async () => {
      expect(await check('dependabot[bot]', { allowedBots: ['renovate[bot]'] })).toEqual({
        allowed: false,
        reason: 'dependabot[bot] is a bot and allowed-bots does not list it',
      });
      expect(requests).toEqual([]);
    });

    it.each([['dependabot[bot]'], ['dependabot'], ['Dependabot[BOT]'], ['*']])(
      'allows a bot listed as %j',
      async (entry) => {
        expect(await check('dependabot[bot]', { allowedBots: [entry] })).toEqual({
          allowed: true,
          reason: 'bot dependabot[bot] is listed in allowed-bots',
        });
        expect(requests).toEqual([]);
      },
    );

    it('treats a sender of type Bot as a bot whatever its login', async () => {
      expect(await check('alice', { type: 'Bot' })).toMatchObject({ allowed: false });
      expect(requests).toEqual([]);
    });
  });
});

describe('isBot', () => {
  it.each<[AuthorizationRequest['actor'], boolean]>([
    [{ login: 'github-actions[bot]' }, true],
    [{ login: 'my-app', type: 'Bot' }, true],
    [{ login: 'octocat', type: 'User' }, false],
    [{ login: 'botanist' }, false],
  ])('says %j is a bot: %s', (actor, expected) => {
    expect(isBot(actor)).toBe(expected);
  });
});
