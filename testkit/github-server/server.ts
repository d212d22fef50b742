/**
 * A loopback GitHub REST API for the action's end-to-end tests and the offline demo. Point Octokit
 * (or GITHUB_API_URL) at `url`.
 *
 * Per request:
 * 1. Record it (method, path, query, headers without credentials, parsed body).
 * 2. Check the token: `authorization: token X` or `Bearer X`, equal to `token` when one is set;
 *    then that a body, if any, is JSON (400 otherwise).
 * 3. Route it. With an OpenAPI index: a route GitHub lacks is 404, and path, query and body are
 *    validated against the operation (422 with the reasons). Without one: only implemented routes
 *    exist and bodies are checked only as far as the handlers read them.
 * 4. Check what the token may do (`tokenPermissions`, token-access.ts): GitHub's 403 "Resource
 *    not accessible by integration" when it lacks what the route needs.
 * 5. Answer with a scripted fault if one matches.
 * 6. Run the fake handler; a valid route without one is 501.
 * Git's smart HTTP (`/<owner>/<repo>.git/…`) is answered beside the API (git-http.ts).
 * Every contract breach (bad token, unknown route, invalid request, unimplemented route, a crash of
 * the fake) lands in that request's `violations`, so a test can assert there were none.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createFaultBook } from './faults.js';
import type { GitHubFault } from './faults.js';
import { ARTIFACT_PREFIX, JOB_LOG_PREFIX } from './handlers/actions.js';
import { DOCUMENTATION_URL, GitHubError, violationsOf } from './http.js';
import type { Reply } from './http.js';
import type { OperationIndex } from './operation-index.js';
import { createRouter } from './router.js';
import { Sequences, seedState } from './seed.js';
import type { ArtifactSeed, GitHubSeed } from './seed.js';
import type { FakeArtifact, GitHubState } from './state.js';
import { GitHubStore } from './store.js';
import { parseJson, recordableHeaders, send } from './wire.js';
import { matchGitPath, serveGit } from './git-http.js';
import type { TokenPermissions } from './token-access.js';
import { acceptedPermissions, allows, notAccessible } from './token-access.js';
import { closeServer, listenOnLoopback, readBody } from '../loopback-server.js';

export interface GitHubServerOptions {
  /**
   * GitHub's OpenAPI description to check requests against. `'load'` reads it from
   * node_modules/@octokit/openapi (a dev dependency: tests only, never the bundle); unset, the
   * server runs without it, as in the demo.
   */
  openapi?: OperationIndex | 'load';
  /** The token requests must carry; unset, any token is accepted but one must be present. */
  token?: string;
  /** The login the token belongs to: the author of comments and pull requests it creates. */
  actor?: string;
  /**
   * What the token may do, as a workflow's `permissions:` block grants it (token-access.ts):
   * unlisted scopes are `none`. Unset, the token may do everything.
   */
  tokenPermissions?: TokenPermissions;
  /** Base of `html_url`s. */
  serverUrl?: string;
  seed?: GitHubSeed;
  faults?: GitHubFault[];
  /** GitHub's limit on comment and pull request bodies, in characters. */
  commentBodyLimit?: number;
  now?: () => Date;
}

export interface RecordedGitHubRequest {
  index: number;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  /** The OpenAPI operation and path template it was routed to. */
  operationId?: string;
  template?: string;
  status?: number;
  violations: string[];
  fault: boolean;
}

export interface GitHubServer {
  url: string;
  state: GitHubState;
  requests: RecordedGitHubRequest[];
  /** The scripted faults; push to add one while the server runs. */
  faults: GitHubFault[];
  /** Adds a run's artifact (the zip an upload stored), to list and download. */
  addArtifact(seed: ArtifactSeed): FakeArtifact;
  /** Every violation, prefixed with its request: `POST /repos/o/r/pulls: body/base is required`. */
  violations(): string[];
  close(): Promise<void>;
}

export const DEFAULT_ACTOR = 'github-actions[bot]';
export const GITHUB_COMMENT_LIMIT = 65_536;

export async function startGitHubServer(options: GitHubServerOptions = {}): Promise<GitHubServer> {
  const index = options.openapi === 'load' ? await loadDefaultIndex() : options.openapi;
  const clock = options.now ?? (() => new Date());
  const sequences = new Sequences();
  const state = seedState(options.seed ?? {}, sequences, clock());
  const store = new GitHubStore(state, sequences, clock);
  for (const item of [...state.issues, ...state.pulls]) {
    for (const label of item.labels) store.ensureLabel(item.repo, label);
  }
  const faults = [...(options.faults ?? [])];
  const faultBook = createFaultBook(faults);
  const requests: RecordedGitHubRequest[] = [];
  const router = createRouter(index);
  let baseUrl = '';

  async function answer(
    request: IncomingMessage,
    recorded: RecordedGitHubRequest,
    url: URL,
    raw: string,
  ): Promise<Reply> {
    const { method } = recorded;
    const credentials = /^(?:token|bearer) (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (credentials === undefined) {
      return breach(
        recorded,
        401,
        'Requires authentication',
        'no token in the authorization header',
      );
    }
    if (options.token !== undefined && credentials !== options.token) {
      return breach(recorded, 401, 'Bad credentials', 'the token is not the configured one');
    }
    if (raw !== '' && recorded.body === undefined) {
      return breach(recorded, 400, 'Problems parsing JSON', 'the request body is not valid JSON');
    }

    const routed = router.resolve(method, url.pathname);
    if (routed === undefined) {
      const why = router.validating
        ? `GitHub has no route ${method} ${url.pathname}`
        : `${method} ${url.pathname} is not implemented by the fake (no OpenAPI index loaded to tell whether GitHub has it)`;
      return breach(recorded, 404, 'Not Found', why);
    }
    recorded.template = routed.template;
    if (routed.operationId !== undefined) recorded.operationId = routed.operationId;
    const problems = router.validate(method, routed, url.searchParams, recorded.body);
    if (problems.length > 0) return invalid(recorded, problems);

    const context = {
      params: routed.params,
      query: url.searchParams,
      body: recorded.body,
      store,
      actor: options.actor ?? DEFAULT_ACTOR,
      urls: { api: baseUrl, web: options.serverUrl ?? 'https://github.com' },
      requestUrl: url,
      commentBodyLimit: options.commentBodyLimit ?? GITHUB_COMMENT_LIMIT,
    };
    const access = routed.route?.access;
    const rule = typeof access === 'function' ? access(context) : access;
    if (rule !== undefined && !allows(options.tokenPermissions, rule)) return notAccessible(rule);

    const fault = faultBook.take(method, url.pathname);
    if (fault !== undefined) {
      recorded.fault = true;
      return fault;
    }
    if (routed.route === undefined) {
      const operation = `${routed.operationId ?? ''} (${method} ${routed.template})`;
      return breach(
        recorded,
        501,
        `The fake GitHub server does not implement ${operation}.`,
        `not implemented by the fake: ${operation}`,
      );
    }
    // GitHub tells a fine-grained token (GITHUB_TOKEN, an app's) what each endpoint takes.
    const accepted: Record<string, string> =
      rule === undefined ? {} : { 'x-accepted-github-permissions': acceptedPermissions(rule) };
    try {
      const reply = await routed.route.handle(context);
      return { ...reply, headers: { ...accepted, ...reply.headers } };
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      if (error.violation !== undefined) recorded.violations.push(error.violation);
      return { status: error.status, body: error.body(), headers: accepted };
    }
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const bytes = await readBody(request);
    const url = new URL(request.url ?? '/', baseUrl);
    const git = matchGitPath(url.pathname);
    const raw = git === undefined ? bytes.toString('utf8') : '';
    const recorded: RecordedGitHubRequest = {
      index: requests.length,
      method: (request.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: recordableHeaders(request),
      body: parseJson(raw),
      violations: [],
      fault: false,
    };
    requests.push(recorded);
    if (git !== undefined) {
      const reply = await serveGit(request, url, bytes, git, {
        store,
        token: options.token,
        actor: options.actor ?? DEFAULT_ACTOR,
        permissions: options.tokenPermissions,
      });
      recorded.status = reply.status;
      send(response, reply);
      return;
    }
    const reply = url.pathname.startsWith(JOB_LOG_PREFIX)
      ? serveLog(url.pathname.slice(JOB_LOG_PREFIX.length))
      : url.pathname.startsWith(ARTIFACT_PREFIX)
        ? serveArtifact(url.pathname.slice(ARTIFACT_PREFIX.length))
        : await answer(request, recorded, url, raw).catch((error: unknown): Reply => {
            const message = error instanceof Error ? error.message : String(error);
            return breach(
              recorded,
              500,
              `The fake GitHub server failed: ${message}`,
              `the fake crashed: ${message}`,
            );
          });
    recorded.status = reply.status;
    send(response, reply);
  }

  function serveLog(id: string): Reply {
    const log = store.jobById(Number(id))?.log;
    if (log === undefined || log === null)
      return { status: 404, body: 'Not Found', headers: { 'content-type': 'text/plain' } };
    return { status: 200, body: log, headers: { 'content-type': 'text/plain; charset=utf-8' } };
  }

  /** The zip, as blob storage serves it: the client unzips on its content type. */
  function serveArtifact(file: string): Reply {
    const artifact = /^\d+\.zip$/.test(file)
      ? store.artifactById(Number(file.slice(0, -4)))
      : undefined;
    if (artifact === undefined)
      return { status: 404, body: 'Not Found', headers: { 'content-type': 'text/plain' } };
    return {
      status: 200,
      body: artifact.zip,
      headers: {
        'content-type': 'application/zip',
        'content-disposition': `attachment; filename=${artifact.name}.zip`,
      },
    };
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  baseUrl = await listenOnLoopback(server, 'fake GitHub server');

  return {
    url: baseUrl,
    state,
    requests,
    faults,
    addArtifact: (seed) => store.addArtifact(seed),
    violations: () => violationsOf(requests),
    close: () => closeServer(server),
  };
}

async function loadDefaultIndex(): Promise<OperationIndex> {
  // Imported on demand: the validator and its dependencies stay out of the demo's start-up path.
  const { loadOperationIndex } = await import('./openapi/load-operation-index.js');
  return loadOperationIndex();
}

/** A rejection that is the caller's fault: recorded as a violation, answered as GitHub would. */
function breach(
  recorded: RecordedGitHubRequest,
  status: number,
  message: string,
  violation: string,
): Reply {
  recorded.violations.push(violation);
  return {
    status,
    body: { message, documentation_url: DOCUMENTATION_URL, status: String(status) },
  };
}

function invalid(recorded: RecordedGitHubRequest, problems: string[]): Reply {
  recorded.violations.push(...problems);
  return {
    status: 422,
    body: {
      message: `Invalid request.\n\n${problems.join('\n')}`,
      documentation_url: DOCUMENTATION_URL,
      status: '422',
    },
  };
}
