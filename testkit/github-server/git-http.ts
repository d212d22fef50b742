/**
 * Git's smart HTTP protocol for the seeded repositories that have a bare origin, at the path
 * GitHub serves them: `<server>/<owner>/<repo>.git`. Point a clone's `origin` there (and the
 * action's GITHUB_SERVER_URL at the server) and fetches and pushes travel over HTTP with the
 * token, as on a runner.
 *
 * Per request:
 * 1. The repository: unknown, or seeded without an origin → 404 "Repository not found.".
 * 2. The token, as git sends it from `http.<server>/.extraheader` (actions/checkout's persisted
 *    credentials, ci-agent's own fetch and push): `Authorization: basic base64(user:token)`. None
 *    → 401 with GitHub's `WWW-Authenticate` (git then asks for credentials, which a runner has
 *    not); not the server's token → 401.
 * 3. What it may do (token-access.ts): fetching takes `contents: read`, pushing `contents: write`.
 *    Without it GitHub answers 403 with a text/plain "Permission to owner/repo.git denied to
 *    <login>.", which git prints as `remote: …` before "The requested URL returned error: 403".
 * 4. `git http-backend` (git's CGI program) on the bare repository answers the rest, so the
 *    origin's hooks (rejectPushes) run as for a push by path.
 */
import type { IncomingMessage } from 'node:http';
import { basename, dirname } from 'node:path';
import { execa } from 'execa';
import type { Reply } from './http.js';
import type { GitHubStore } from './store.js';
import { fullName } from './state.js';
import type { TokenPermissions } from './token-access.js';
import { allows, needs } from './token-access.js';

const GIT_PATH = /^\/([^/]+)\/([^/]+?)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

export interface GitRequest {
  owner: string;
  repo: string;
  /** `info/refs`, `git-upload-pack` or `git-receive-pack`. */
  endpoint: string;
}

export function matchGitPath(pathname: string): GitRequest | undefined {
  const match = GIT_PATH.exec(pathname);
  if (!match) return undefined;
  return { owner: match[1]!, repo: match[2]!, endpoint: match[3]! };
}

export interface GitServeOptions {
  store: GitHubStore;
  /** The token requests must carry; unset, any token is accepted but one must be present. */
  token: string | undefined;
  /** Who the token is: named in GitHub's refusal. */
  actor: string;
  permissions: TokenPermissions | undefined;
}

function text(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return { status, body, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } };
}

/** The token of a Basic (git's extraheader, a credential helper) or token/Bearer header. */
function tokenOf(header: string | undefined): string | undefined {
  const basic = /^basic\s+(\S+)$/i.exec(header ?? '')?.[1];
  if (basic !== undefined) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon === -1 ? undefined : decoded.slice(colon + 1);
  }
  return /^(?:token|bearer)\s+(\S+)$/i.exec(header ?? '')?.[1];
}

export async function serveGit(
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  target: GitRequest,
  options: GitServeOptions,
): Promise<Reply> {
  const repo = options.store.repo(`${target.owner}/${target.repo}`);
  if (repo?.origin === undefined) return text(404, 'Repository not found.\n');
  const token = tokenOf(request.headers.authorization);
  if (token === undefined) {
    return text(401, 'Authentication required.\n', {
      'www-authenticate': 'Basic realm="GitHub"',
    });
  }
  if (options.token !== undefined && token !== options.token) {
    return text(401, 'Invalid username or token.\n', {
      'www-authenticate': 'Basic realm="GitHub"',
    });
  }
  const service =
    target.endpoint === 'info/refs' ? (url.searchParams.get('service') ?? '') : target.endpoint;
  const pushing = service === 'git-receive-pack';
  if (!allows(options.permissions, needs('contents', pushing ? 'write' : 'read'))) {
    return text(403, `Permission to ${fullName(repo)}.git denied to ${options.actor}.\n`);
  }
  return httpBackend(request, url, body, {
    root: dirname(repo.origin),
    path: `/${basename(repo.origin)}/${target.endpoint}`,
    user: options.actor,
  });
}

/** One CGI call of `git http-backend`; its headers (Status among them) become the reply's. */
async function httpBackend(
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  where: { root: string; path: string; user: string },
): Promise<Reply> {
  const header = (name: string): string => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  };
  const result = await execa('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: where.root,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_PROJECT_ROOT: where.root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: where.path,
      REQUEST_METHOD: request.method ?? 'GET',
      QUERY_STRING: url.search.replace(/^\?/, ''),
      CONTENT_TYPE: header('content-type'),
      CONTENT_LENGTH: String(body.length),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      GIT_PROTOCOL: header('git-protocol'),
      // http-backend lets an authenticated user push (http.receivepack defaults to that).
      REMOTE_USER: where.user,
      REMOTE_ADDR: '127.0.0.1',
    },
    extendEnv: false,
    input: body,
    encoding: 'buffer',
    reject: false,
  });
  const output = Buffer.from(result.stdout);
  const split = headerEnd(output);
  if (result.exitCode !== 0 && split === undefined) {
    return text(500, `git http-backend failed: ${Buffer.from(result.stderr).toString('utf8')}`);
  }
  const headers: Record<string, string> = {};
  let status = 200;
  const head = split === undefined ? '' : output.subarray(0, split.at).toString('latin1');
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'status') status = Number.parseInt(value, 10) || 500;
    else headers[name] = value;
  }
  const rest = split === undefined ? output : output.subarray(split.at + split.length);
  return { status, body: rest, headers };
}

function headerEnd(output: Buffer): { at: number; length: number } | undefined {
  const crlf = output.indexOf('\r\n\r\n');
  const lf = output.indexOf('\n\n');
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { at: crlf, length: 4 };
  return lf === -1 ? undefined : { at: lf, length: 2 };
}
