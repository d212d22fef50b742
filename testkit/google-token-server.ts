/**
 * A loopback stand-in for the three endpoints google-auth-library calls to turn a GitHub OIDC
 * token into a Google access token under Workload Identity Federation, and the credentials
 * file google-github-actions/auth writes for it (`type: external_account`):
 *
 * 1. GET /oidc-token?audience=… — the credential source: GitHub's ID-token endpoint
 *    (ACTIONS_ID_TOKEN_REQUEST_URL), `Authorization: Bearer <oidcRequestToken>` → `{"value"}`.
 * 2. POST /v1/token — Security Token Service (sts.googleapis.com): an RFC 8693 token exchange,
 *    form-encoded; the OIDC token and the provider's audience must be the known ones →
 *    `{access_token: federatedToken, …}`; else 400 with an OAuth error (`invalid_grant`, …).
 * 3. POST /v1/projects/-/serviceAccounts/{email}:generateAccessToken — IAM Credentials
 *    (iamcredentials.googleapis.com), only with impersonation: `Bearer <federatedToken>` →
 *    `{accessToken: serviceAccountToken, expireTime}`; else 401/403 in Google's error JSON.
 *
 * google-auth-library 10.x takes `token_url` and `service_account_impersonation_url` from the
 * file as they are, loopback included, so the file is the form the action writes; only the
 * hosts differ. The token Vertex then receives is `federatedToken` (direct federation) or
 * `serviceAccountToken` (through a service account).
 *
 * Recorded requests keep no credential: no `authorization`, no `subject_token`.
 */
import { writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bearerToken,
  decodePathSegment,
  isRecord,
  parseJson,
  sameSecret,
  sendReply,
  startLoopbackHandler,
} from './replay-http.js';
import { readBody } from './loopback-server.js';
import type { HttpReply } from './replay-http.js';
import { ReplaySession } from './replay-session.js';
import type { RecordedRequest } from './replay-session.js';
import { googleError } from './vertex-server.js';

export interface GoogleTokenServerOptions {
  /** `//iam.googleapis.com/projects/<number>/locations/global/workloadIdentityPools/<pool>/providers/<provider>` */
  audience?: string;
  /** The OIDC token the credential source hands out (GitHub's ID token in Actions). */
  oidcToken?: string;
  /** The bearer the credential source URL requires (ACTIONS_ID_TOKEN_REQUEST_TOKEN in Actions). */
  oidcRequestToken?: string;
  /** The token STS issues for the OIDC token. */
  federatedToken?: string;
  /** The service account impersonation acts as. */
  serviceAccount?: string;
  /** The token generateAccessToken issues for the service account. */
  serviceAccountToken?: string;
  /** Lifetime of the issued tokens; default 3600. */
  expiresInSeconds?: number;
}

export interface GoogleTokenServer {
  url: string;
  requests: RecordedRequest[];
  audience: string;
  oidcToken: string;
  oidcRequestToken: string;
  federatedToken: string;
  serviceAccount: string;
  serviceAccountToken: string;
  close: () => Promise<void>;
}

export interface GoogleCredentialsFileOptions {
  /** `url` (default): GitHub's ID-token endpoint, as the action writes; `file`: a token file. */
  source?: 'url' | 'file';
  /** Adds `service_account_impersonation_url`, as the action does when given a service account. */
  impersonate?: boolean;
}

const CREDENTIAL_HEADERS = new Set(['authorization']);
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const SUBJECT_TOKEN_TYPES = new Set([
  'urn:ietf:params:oauth:token-type:jwt',
  'urn:ietf:params:oauth:token-type:id_token',
]);
const IMPERSONATION = /^\/v1\/projects\/-\/serviceAccounts\/([^/:]+):generateAccessToken$/;

export async function startGoogleTokenServer(
  options: GoogleTokenServerOptions = {},
): Promise<GoogleTokenServer> {
  const settings = {
    audience:
      options.audience ??
      '//iam.googleapis.com/projects/123456789/locations/global/workloadIdentityPools/github/providers/ci-agent',
    oidcToken: options.oidcToken ?? 'eyJhbGciOiJSUzI1NiJ9.github-oidc.signature',
    oidcRequestToken: options.oidcRequestToken ?? 'actions-id-token-request-token',
    federatedToken: options.federatedToken ?? 'ya29.federated-token',
    serviceAccount: options.serviceAccount ?? 'ci-agent@example-project.iam.gserviceaccount.com',
    serviceAccountToken: options.serviceAccountToken ?? 'ya29.service-account-token',
  };
  const lifetime = options.expiresInSeconds ?? 3600;
  const session = new ReplaySession<never>({});

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = (await readBody(request)).toString('utf8');
    const form = request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')
      ? new URLSearchParams(text)
      : undefined;
    const body = form === undefined ? parseJson(text) : withoutSubjectToken(form);
    const recorded = session.record(request, body, CREDENTIAL_HEADERS);
    const path = recorded.path;
    const reply =
      request.method === 'GET' && path === '/oidc-token'
        ? oidcToken(request)
        : request.method === 'POST' && path === '/v1/token'
          ? exchange(form)
          : request.method === 'POST' && IMPERSONATION.test(path)
            ? impersonate(request, path, recorded.body)
            : googleError(404, `${recorded.method} ${path} is not served.`);
    sendReply(response, recorded, reply);
  }

  function oidcToken(request: IncomingMessage): HttpReply {
    if (!sameSecret(bearerToken(request), settings.oidcRequestToken)) {
      return { status: 401, body: { message: 'Bad credentials' } };
    }
    return { status: 200, body: { count: 1, value: settings.oidcToken } };
  }

  function exchange(form: URLSearchParams | undefined): HttpReply {
    const get = (name: string) => form?.get(name) ?? undefined;
    if (get('grant_type') !== TOKEN_EXCHANGE) {
      return oauthError('unsupported_grant_type', `Unsupported grant type: ${get('grant_type')}.`);
    }
    if (get('requested_token_type') !== ACCESS_TOKEN_TYPE) {
      return oauthError('invalid_request', 'Invalid value for "requested_token_type".');
    }
    if (!SUBJECT_TOKEN_TYPES.has(get('subject_token_type') ?? '')) {
      return oauthError('invalid_request', 'Invalid value for "subject_token_type".');
    }
    if (get('audience') !== settings.audience) {
      return oauthError(
        'invalid_target',
        'The target service indicated by the "audience" parameters is invalid.',
      );
    }
    if (!(get('scope') ?? '').split(' ').includes(CLOUD_PLATFORM)) {
      return oauthError('invalid_scope', `The scope must include ${CLOUD_PLATFORM}.`);
    }
    if (!sameSecret(get('subject_token'), settings.oidcToken)) {
      return oauthError('invalid_grant', 'The subject token is not valid.');
    }
    return {
      status: 200,
      body: {
        access_token: settings.federatedToken,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: 'Bearer',
        expires_in: lifetime,
      },
    };
  }

  function impersonate(request: IncomingMessage, path: string, body: unknown): HttpReply {
    if (!sameSecret(bearerToken(request), settings.federatedToken)) {
      return googleError(401, 'Request had invalid authentication credentials.');
    }
    const email = decodePathSegment(IMPERSONATION.exec(path)?.[1] ?? '');
    const scope = isRecord(body) ? body['scope'] : undefined;
    if (email !== settings.serviceAccount) {
      return googleError(
        403,
        "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).",
      );
    }
    if (!Array.isArray(scope) || scope.length === 0) {
      return googleError(400, 'Request contains an invalid argument: scope.');
    }
    const expireTime = new Date(Date.now() + lifetime * 1000).toISOString();
    return { status: 200, body: { accessToken: settings.serviceAccountToken, expireTime } };
  }

  const server = await startLoopbackHandler('Google token server', handle, (message) =>
    googleError(500, message),
  );
  return { ...settings, url: server.url, requests: session.requests, close: server.close };
}

/**
 * Writes the external-account credentials file google-github-actions/auth writes for Workload
 * Identity Federation, with this server's URLs for STS, IAM Credentials and the OIDC token; for
 * `source: 'file'`, the OIDC token goes to `<path>.oidc-token`. Point
 * GOOGLE_APPLICATION_CREDENTIALS at `path`.
 */
export async function writeGoogleCredentialsFile(
  server: GoogleTokenServer,
  path: string,
  options: GoogleCredentialsFileOptions = {},
): Promise<string> {
  const tokenFile = `${path}.oidc-token`;
  const providerResource = server.audience.replace(/^\/\/iam\.googleapis\.com\//, '');
  const credentialSource =
    options.source === 'file'
      ? { file: tokenFile, format: { type: 'text' } }
      : {
          url: `${server.url}/oidc-token?api-version=2.0&audience=${encodeURIComponent(`https://iam.googleapis.com/${providerResource}`)}`,
          headers: { Authorization: `Bearer ${server.oidcRequestToken}` },
          format: { type: 'json', subject_token_field_name: 'value' },
        };
  if (options.source === 'file') await writeFile(tokenFile, server.oidcToken, { mode: 0o600 });
  const credentials: Record<string, unknown> = {
    type: 'external_account',
    audience: server.audience,
    subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    token_url: `${server.url}/v1/token`,
    credential_source: credentialSource,
  };
  if (options.impersonate === true) {
    credentials['service_account_impersonation_url'] =
      `${server.url}/v1/projects/-/serviceAccounts/${server.serviceAccount}:generateAccessToken`;
  }
  await writeFile(path, JSON.stringify(credentials, null, 2), { mode: 0o600 });
  return path;
}

function oauthError(error: string, description: string): HttpReply {
  return { status: 400, body: { error, error_description: description } };
}

function withoutSubjectToken(form: URLSearchParams): Record<string, string> {
  const fields = Object.fromEntries(form.entries());
  delete fields['subject_token'];
  return fields;
}
