/**
 * The blob storage behind a signed upload URL, as far as @azure/storage-blob's BlockBlobClient
 * uses it for an artifact: Put Block (`PUT ?comp=block&blockid=…`) stages a block, Put Block List
 * (`PUT ?comp=blocklist`, an XML list of block ids) commits them in that order as the blob, and Put
 * Blob (`PUT` with `x-ms-blob-type: BlockBlob`) writes the blob in one request. The `sig`
 * parameter must be the one CreateArtifact signed. Errors are Azure's: `x-ms-error-code` and an
 * XML `<Error>` body.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ArtifactState, PendingArtifact } from './artifact-state.js';

export interface BlobRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface BlobReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const STORAGE_VERSION = '2025-01-05';

export function handleBlob(
  request: BlobRequest,
  state: ArtifactState,
  violations: string[],
): BlobReply {
  const artifact = state.byBlobPath(request.path);
  if (artifact === undefined) {
    violations.push(`no artifact upload has the URL path ${request.path}`);
    return blobError(404, 'ResourceNotFound', 'The specified resource does not exist.');
  }
  if (request.query.get('sig') !== artifact.signature || artifact.finalized) {
    violations.push(
      artifact.finalized
        ? `the blob of ${artifact.name} was written after FinalizeArtifact`
        : `the upload URL of ${artifact.name} was used without its signature`,
    );
    return blobError(
      403,
      'AuthenticationFailed',
      'Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature.',
    );
  }
  if (request.method !== 'PUT') {
    violations.push(`${request.method} is not a write the artifact upload makes`);
    return blobError(
      405,
      'UnsupportedHttpVerb',
      "The resource doesn't support specified Http Verb.",
    );
  }
  const comp = request.query.get('comp');
  if (comp === 'block') return putBlock(request, artifact, violations);
  if (comp === 'blocklist') return putBlockList(request, artifact, violations);
  if (comp === null) return putBlob(request, artifact, violations);
  violations.push(`comp=${comp} is not an operation of a block blob upload`);
  return blobError(
    400,
    'InvalidQueryParameterValue',
    `Value for one of the query parameters specified in the request URI is invalid: comp=${comp}`,
  );
}

function putBlock(
  request: BlobRequest,
  artifact: PendingArtifact,
  violations: string[],
): BlobReply {
  const blockId = request.query.get('blockid');
  if (!blockId || !isBase64(blockId)) {
    violations.push(`Put Block without a base64 blockid (got ${JSON.stringify(blockId)})`);
    return blobError(
      400,
      'InvalidQueryParameterValue',
      'The specified blockid is not a valid base64 string.',
    );
  }
  artifact.blocks.set(blockId, request.body);
  return created();
}

function putBlockList(
  request: BlobRequest,
  artifact: PendingArtifact,
  violations: string[],
): BlobReply {
  const xml = request.body.toString('utf8');
  if (!/<BlockList>[\s\S]*<\/BlockList>/.test(xml)) {
    violations.push('Put Block List without a <BlockList> body');
    return blobError(400, 'InvalidXmlDocument', 'XML specified is not syntactically valid.');
  }
  // Latest and Uncommitted name staged blocks; nothing is ever committed before this one list,
  // so a Committed entry can name nothing.
  const ids = [...xml.matchAll(/<(Latest|Uncommitted|Committed)>([^<]*)<\/\1>/g)].map(
    (match) => match[2]!,
  );
  const missing = ids.filter((id) => !artifact.blocks.has(id));
  if (missing.length > 0) {
    violations.push(`Put Block List names blocks that were never staged: ${missing.join(', ')}`);
    return blobError(400, 'InvalidBlockList', 'The specified block list is invalid.');
  }
  artifact.blob = Buffer.concat(ids.map((id) => artifact.blocks.get(id)!));
  artifact.blocks.clear();
  const contentType = header(request.headers, 'x-ms-blob-content-type');
  if (contentType !== undefined) artifact.blobContentType = contentType;
  return created();
}

function putBlob(request: BlobRequest, artifact: PendingArtifact, violations: string[]): BlobReply {
  if (header(request.headers, 'x-ms-blob-type') !== 'BlockBlob') {
    violations.push('Put Blob without x-ms-blob-type: BlockBlob');
    return blobError(
      400,
      'MissingRequiredHeader',
      "An HTTP header that's mandatory for this request is not specified.",
    );
  }
  artifact.blob = request.body;
  artifact.blocks.clear();
  const contentType =
    header(request.headers, 'x-ms-blob-content-type') ?? header(request.headers, 'content-type');
  if (contentType !== undefined) artifact.blobContentType = contentType;
  return created();
}

function created(): BlobReply {
  return {
    status: 201,
    headers: {
      etag: `"0x${randomUUID().replaceAll('-', '').slice(0, 15).toUpperCase()}"`,
      'last-modified': new Date().toUTCString(),
      'x-ms-request-id': randomUUID(),
      'x-ms-version': STORAGE_VERSION,
      'x-ms-request-server-encrypted': 'true',
    },
    body: '',
  };
}

export function blobError(status: number, code: string, message: string): BlobReply {
  return {
    status,
    headers: {
      'content-type': 'application/xml',
      'x-ms-error-code': code,
      'x-ms-request-id': randomUUID(),
      'x-ms-version': STORAGE_VERSION,
    },
    body: `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error>`,
  };
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isBase64(text: string): boolean {
  return /^[A-Za-z0-9+/]+={0,2}$/.test(text);
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
