import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startArtifactService } from '../../../testkit/github-server/index.js';
import type { ArtifactFault, ArtifactService } from '../../../testkit/github-server/index.js';
import { signRuntimeToken } from '../../../testkit/github-server/runtime-token.js';
import { zipOf } from './zip-fixture.js';

const SERVICE = 'github.actions.results.api.v1.ArtifactService';

let fake: ArtifactService;

beforeEach(async () => {
  fake = await startArtifactService({
    scope: { workflowRunBackendId: 'run-1', workflowJobRunBackendId: 'job-1' },
  });
});

afterEach(async () => {
  await fake.close();
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function twirp(
  method: string,
  body: unknown,
  options: { token?: string | null; contentType?: string; httpMethod?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
  };
  const token = options.token === undefined ? fake.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(new URL(`/twirp/${SERVICE}/${method}`, fake.url), {
    method: options.httpMethod ?? 'POST',
    headers,
    ...(options.httpMethod === 'GET'
      ? {}
      : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const ids = { workflow_run_backend_id: 'run-1', workflow_job_run_backend_id: 'job-1' };

async function create(name = 'logs', extra: Record<string, unknown> = {}): Promise<string> {
  const answer = await twirp('CreateArtifact', {
    ...ids,
    name,
    version: 7,
    mime_type: 'application/zip',
    ...extra,
  });
  expect(answer).toMatchObject({ status: 200, body: { ok: true } });
  return answer.body.signed_upload_url as string;
}

function put(
  url: string,
  query: Record<string, string>,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const target = new URL(url);
  for (const [name, value] of Object.entries(query)) target.searchParams.set(name, value);
  return fetch(target, { method: 'PUT', headers, body });
}

/** Two staged blocks committed in order, as @azure/storage-blob uploads a stream. */
async function uploadInBlocks(url: string, blob: Buffer): Promise<void> {
  const half = Math.floor(blob.length / 2);
  const [first, second] = [
    Buffer.from('block-0').toString('base64'),
    Buffer.from('block-1').toString('base64'),
  ];
  expect((await put(url, { comp: 'block', blockid: first }, blob.subarray(0, half))).status).toBe(
    201,
  );
  expect((await put(url, { comp: 'block', blockid: second }, blob.subarray(half))).status).toBe(
    201,
  );
  const list = `<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>${first}</Latest><Latest>${second}</Latest></BlockList>`;
  expect((await put(url, { comp: 'blocklist' }, list)).status).toBe(201);
}

function finalizeBody(name: string, blob: Buffer): Record<string, unknown> {
  return {
    ...ids,
    name,
    size: String(blob.length),
    hash: `sha256:${createHash('sha256').update(blob).digest('hex')}`,
  };
}

describe('startArtifactService', () => {
  it('takes an artifact through create, block upload and finalize, and reads its files', async () => {
    const blob = await zipOf({
      'tool-log.jsonl': '{"type":"result"}\n',
      'nested/report.md': '# Report ✅\n',
    });
    const url = await create('logs', { expires_at: '2030-01-01T00:00:00Z' });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1\/.+\?.*sig=/);
    await uploadInBlocks(url, blob);
    const answer = await twirp('FinalizeArtifact', finalizeBody('logs', blob));
    expect(answer).toEqual({ status: 200, body: { ok: true, artifact_id: '1' } });
    expect(fake.artifacts).toMatchObject([
      {
        id: 1,
        name: 'logs',
        workflowRunBackendId: 'run-1',
        workflowJobRunBackendId: 'job-1',
        mimeType: 'application/zip',
        expiresAt: '2030-01-01T00:00:00Z',
        size: blob.length,
        files: { 'tool-log.jsonl': '{"type":"result"}\n', 'nested/report.md': '# Report ✅\n' },
      },
    ]);
    expect(fake.violations()).toEqual([]);
  });

  it('keeps an unarchived upload (Put Blob in one request) as one file named after the artifact', async () => {
    const url = await create('report.md', { mime_type: 'text/markdown' });
    const written = await put(url, {}, '# Report', { 'x-ms-blob-type': 'BlockBlob' });
    expect(written.status).toBe(201);
    await twirp('FinalizeArtifact', finalizeBody('report.md', Buffer.from('# Report')));
    expect(fake.artifacts[0]?.files).toEqual({ 'report.md': '# Report' });
    expect(fake.violations()).toEqual([]);
  });

  it('issues a runtime token whose scope names its run and job, as the client decodes it', () => {
    const payload = JSON.parse(Buffer.from(fake.token.split('.')[1]!, 'base64url').toString()) as {
      scp: string;
    };
    expect(payload.scp.split(' ')).toContain('Actions.Results:run-1:job-1');
    expect(fake.env).toEqual({ ACTIONS_RUNTIME_TOKEN: fake.token, ACTIONS_RESULTS_URL: fake.url });
  });

  describe('when the token is not right', () => {
    it('answers 401 unauthenticated without a bearer token', async () => {
      const answer = await twirp('CreateArtifact', { ...ids, name: 'a' }, { token: null });
      expect(answer).toMatchObject({ status: 401, body: { code: 'unauthenticated' } });
      expect(fake.violations()).toEqual([
        `POST /twirp/${SERVICE}/CreateArtifact: no bearer token in the authorization header`,
      ]);
    });

    it('answers 401 for a token it did not sign, even with the right scope', async () => {
      const foreign = signRuntimeToken({ scp: 'Actions.Results:run-1:job-1' }, randomBytes(32));
      const answer = await twirp('CreateArtifact', { ...ids, name: 'a' }, { token: foreign });
      expect(answer).toMatchObject({ status: 401, body: { code: 'unauthenticated' } });
      expect(fake.artifacts).toEqual([]);
    });

    it('answers 403 for its own token without an Actions.Results scope', async () => {
      const token = fake.issueToken('Actions.GenericRead:run-1');
      const answer = await twirp('CreateArtifact', { ...ids, name: 'a' }, { token });
      expect(answer).toMatchObject({ status: 403, body: { code: 'permission_denied' } });
    });

    it('answers 403 when the body names another run or job than the token', async () => {
      const answer = await twirp('CreateArtifact', {
        ...ids,
        workflow_job_run_backend_id: 'job-2',
        name: 'a',
      });
      expect(answer).toMatchObject({ status: 403, body: { code: 'permission_denied' } });
      expect(fake.violations()[0]).toContain('the request names run run-1 job job-2');
    });

    it('stores the artifact under the run of another token it issued', async () => {
      const token = fake.issueToken('Actions.Results:run-2:job-9');
      const answer = await twirp(
        'CreateArtifact',
        { workflow_run_backend_id: 'run-2', workflow_job_run_backend_id: 'job-9', name: 'logs' },
        { token },
      );
      expect(answer.status).toBe(200);
      expect(await twirp('CreateArtifact', { ...ids, name: 'logs' })).toMatchObject({
        status: 200,
      });
    });
  });

  describe('when the request is malformed', () => {
    it.each([
      ['a missing name', { ...ids }, 'name is required', 'name'],
      [
        'an empty run id',
        { ...ids, workflow_run_backend_id: '', name: 'a' },
        'workflow_run_backend_id is required',
        'workflow_run_backend_id',
      ],
      [
        'a misspelt field',
        { ...ids, name: 'a', mimeType: 'application/zip' },
        'unknown field(s) mimeType',
        'mimeType',
      ],
      [
        'a version that is not an integer',
        { ...ids, name: 'a', version: '7' },
        'version must be an integer',
        'version',
      ],
      [
        'an expiry that is not a timestamp',
        { ...ids, name: 'a', expires_at: 'next week' },
        'expires_at must be an RFC 3339',
        'expires_at',
      ],
    ])(
      'answers 400 invalid_argument for %s, naming the field',
      async (_case, body, message, argument) => {
        const answer = await twirp('CreateArtifact', body);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ code: 'invalid_argument', meta: { argument } });
        expect(answer.body.msg).toContain(message);
        expect(fake.violations()).toHaveLength(1);
      },
    );

    it('answers 400 malformed for a body that is not a JSON object', async () => {
      expect(await twirp('CreateArtifact', '[1]')).toMatchObject({
        status: 400,
        body: { code: 'malformed' },
      });
      expect(await twirp('CreateArtifact', '{')).toMatchObject({
        status: 400,
        body: { code: 'malformed' },
      });
    });

    it('answers 404 bad_route for another content type, method or verb', async () => {
      const protobuf = await twirp('CreateArtifact', {}, { contentType: 'application/protobuf' });
      const unknown = await twirp('DeleteArtifact', { ...ids, name: 'a' });
      const get = await twirp('CreateArtifact', undefined, { httpMethod: 'GET' });
      for (const answer of [protobuf, unknown, get]) {
        expect(answer).toMatchObject({ status: 404, body: { code: 'bad_route' } });
      }
      expect(fake.violations()).toHaveLength(3);
    });
  });

  describe('when the artifact name is taken on the run', () => {
    it('answers 409 already_exists with the real service message, as state and not a violation', async () => {
      await create('logs');
      const answer = await twirp('CreateArtifact', { ...ids, name: 'logs' });
      expect(answer).toEqual({
        status: 409,
        body: {
          code: 'already_exists',
          msg: 'an artifact with this name already exists on the workflow run',
        },
      });
      expect(fake.violations()).toEqual([]);
    });
  });

  describe('when FinalizeArtifact does not match the upload', () => {
    it('refuses a size other than the blob’s', async () => {
      const blob = await zipOf({ 'a.txt': 'a' });
      await uploadInBlocks(await create('logs'), blob);
      const answer = await twirp('FinalizeArtifact', { ...finalizeBody('logs', blob), size: '1' });
      expect(answer).toMatchObject({
        status: 400,
        body: { code: 'invalid_argument', meta: { argument: 'size' } },
      });
      expect(fake.artifacts).toEqual([]);
    });

    it('refuses a hash other than the blob’s', async () => {
      const blob = await zipOf({ 'a.txt': 'a' });
      await uploadInBlocks(await create('logs'), blob);
      const answer = await twirp('FinalizeArtifact', {
        ...finalizeBody('logs', blob),
        hash: `sha256:${'0'.repeat(64)}`,
      });
      expect(answer).toMatchObject({
        status: 400,
        body: { code: 'invalid_argument', meta: { argument: 'hash' } },
      });
    });

    it('answers 404 for an artifact never created', async () => {
      const answer = await twirp('FinalizeArtifact', finalizeBody('ghost', Buffer.from('x')));
      expect(answer).toMatchObject({ status: 404, body: { code: 'not_found' } });
    });

    it('answers 412 when nothing was committed, and when it is finalized twice', async () => {
      const blob = await zipOf({ 'a.txt': 'a' });
      const url = await create('logs');
      expect(await twirp('FinalizeArtifact', finalizeBody('logs', blob))).toMatchObject({
        status: 412,
        body: { code: 'failed_precondition' },
      });
      await uploadInBlocks(url, blob);
      expect((await twirp('FinalizeArtifact', finalizeBody('logs', blob))).status).toBe(200);
      expect(await twirp('FinalizeArtifact', finalizeBody('logs', blob))).toMatchObject({
        status: 412,
      });
    });

    it('records a violation when the committed zip cannot be read', async () => {
      const blob = Buffer.from('not a zip archive at all, just text');
      await uploadInBlocks(await create('logs'), blob);
      expect((await twirp('FinalizeArtifact', finalizeBody('logs', blob))).status).toBe(200);
      expect(fake.artifacts[0]?.files).toEqual({});
      expect(fake.violations()[0]).toContain('the artifact logs is not a readable zip archive');
    });
  });

  describe('when blob storage is written wrongly', () => {
    it('answers 403 AuthenticationFailed without the signature CreateArtifact gave', async () => {
      const url = new URL(await create('logs'));
      url.searchParams.set('sig', 'forged');
      const response = await put(url.href, {}, 'x', { 'x-ms-blob-type': 'BlockBlob' });
      expect(response.status).toBe(403);
      expect(response.headers.get('x-ms-error-code')).toBe('AuthenticationFailed');
      expect(await response.text()).toContain('<Code>AuthenticationFailed</Code>');
    });

    it('answers 400 InvalidBlockList for a block list naming a block never staged', async () => {
      const url = await create('logs');
      const response = await put(
        url,
        { comp: 'blocklist' },
        '<BlockList><Latest>bm9wZQ==</Latest></BlockList>',
      );
      expect(response.status).toBe(400);
      expect(response.headers.get('x-ms-error-code')).toBe('InvalidBlockList');
      expect(fake.violations()[0]).toContain('bm9wZQ==');
    });

    it('refuses Put Blob without x-ms-blob-type, a block without a base64 id, and writes after finalize', async () => {
      const url = await create('logs');
      expect((await put(url, {}, 'x')).status).toBe(400);
      expect((await put(url, { comp: 'block', blockid: 'not base64!' }, 'x')).status).toBe(400);
      await put(url, {}, 'x', { 'x-ms-blob-type': 'BlockBlob' });
      await twirp('FinalizeArtifact', { ...ids, name: 'logs', size: '1' });
      expect((await put(url, {}, 'y', { 'x-ms-blob-type': 'BlockBlob' })).status).toBe(403);
      expect(fake.violations()).toEqual([
        expect.stringContaining('Put Blob without x-ms-blob-type'),
        expect.stringContaining('Put Block without a base64 blockid'),
        expect.stringContaining('not a readable zip archive'),
        expect.stringContaining('written after FinalizeArtifact'),
      ]);
    });
  });

  describe('when a fault is scripted', () => {
    it('answers with it as many times as asked, then normally', async () => {
      const fault: ArtifactFault = {
        operation: 'CreateArtifact',
        status: 503,
        times: 1,
        message: 'down for maintenance',
      };
      fake.faults.push(fault);
      expect(await twirp('CreateArtifact', { ...ids, name: 'a' })).toEqual({
        status: 503,
        body: { code: 'unavailable', msg: 'down for maintenance' },
      });
      expect((await twirp('CreateArtifact', { ...ids, name: 'a' })).status).toBe(200);
      expect(fake.requests.map((request) => request.fault)).toEqual([true, false]);
      expect(fake.violations()).toEqual([]);
    });
  });
});
