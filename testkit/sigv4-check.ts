/**
 * Checks an AWS Signature Version 4 `authorization` header the way an AWS front end does, in
 * its order, with its error names:
 * 1. a header in the `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` form
 *    (else MissingAuthenticationTokenException / IncompleteSignatureException);
 * 2. the access key id and the session token are the known ones (UnrecognizedClientException);
 * 3. the credential scope names the region and the service (InvalidSignatureException);
 * 4. `x-amz-date` is the scope's day and within 15 minutes of now (InvalidSignatureException:
 *    "Signature expired", "Signature not yet current");
 * 5. the signature: the request re-signed with the known secret, over exactly the headers it
 *    lists, with the body's own SHA-256 (not the `x-amz-content-sha256` it claims), matches.
 *
 * Step 5 uses @smithy/signature-v4 (a newer major than the one the Bedrock SDK signs with), so
 * the check is an independent signer agreeing, not the SDK's signer checking itself.
 */
import { createHash, createHmac } from 'node:crypto';
import type { Hash, Hmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { sameSecret } from './replay-http.js';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface SigV4Expectation {
  credentials: AwsCredentials;
  region: string;
  service: string;
  /** The server's clock; default `Date.now`. */
  now?: () => number;
}

/** Why AWS refuses the request: the status, the `x-amzn-ErrorType` name and the message. */
export interface SigV4Refusal {
  status: number;
  errorType: string;
  message: string;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const MAX_SKEW_MS = 15 * 60_000;

export async function checkSigV4(
  request: IncomingMessage,
  body: Buffer,
  expected: SigV4Expectation,
): Promise<SigV4Refusal | undefined> {
  const header = request.headers.authorization;
  if (header === undefined) {
    return refusal(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  }
  const match = AUTHORIZATION.exec(header);
  if (match === null) {
    return refusal(
      400,
      'IncompleteSignatureException',
      `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters. Authorization=${header.split(' ')[0] ?? ''}`,
    );
  }
  const [, accessKeyId, scopeDate = '', region, service, signedList = '', signature = ''] = match;
  const { credentials } = expected;
  const token = request.headers['x-amz-security-token'];
  if (
    accessKeyId !== credentials.accessKeyId ||
    (credentials.sessionToken === undefined
      ? token !== undefined
      : !sameSecret(single(token), credentials.sessionToken))
  ) {
    return refusal(
      403,
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
    );
  }
  if (region !== expected.region) {
    return invalidSignature('Credential should be scoped to a valid region.');
  }
  if (service !== expected.service) {
    return invalidSignature(
      `Credential should be scoped to correct service: '${expected.service}'.`,
    );
  }
  const signed = signedList.split(';');
  const amzDate = single(request.headers['x-amz-date']) ?? '';
  const signingDate = parseAmzDate(amzDate);
  if (!signed.includes('host') || !signed.includes('x-amz-date') || signingDate === undefined) {
    return invalidSignature(
      "'Host' and 'X-Amz-Date' must be SignedHeaders, and X-Amz-Date a basic ISO 8601 time.",
    );
  }
  const now = (expected.now ?? Date.now)();
  if (!amzDate.startsWith(scopeDate)) {
    return invalidSignature(
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${scopeDate}' != '${amzDate.slice(0, 8)}'.`,
    );
  }
  if (now - signingDate.getTime() > MAX_SKEW_MS) {
    return invalidSignature(
      `Signature expired: ${amzDate} is now earlier than ${formatAmzDate(now - MAX_SKEW_MS)} (${formatAmzDate(now)} - 15 min.)`,
    );
  }
  if (signingDate.getTime() - now > MAX_SKEW_MS) {
    return invalidSignature(
      `Signature not yet current: ${amzDate} is still later than ${formatAmzDate(now + MAX_SKEW_MS)} (${formatAmzDate(now)} + 15 min.)`,
    );
  }
  const expectedSignature = await resign(request, body, signed, signingDate, expected);
  if (!sameSecret(signature, expectedSignature)) {
    return invalidSignature(
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    );
  }
  return undefined;
}

/** The signature of `request` as the known secret signs it, over the headers it lists. */
async function resign(
  request: IncomingMessage,
  body: Buffer,
  signed: string[],
  signingDate: Date,
  expected: SigV4Expectation,
): Promise<string> {
  const headers: Record<string, string> = {};
  for (const name of signed) headers[name] = single(request.headers[name]) ?? '';
  if ('x-amz-content-sha256' in headers) {
    headers['x-amz-content-sha256'] = createHash('sha256').update(body).digest('hex');
  }
  const url = new URL(request.url ?? '/', 'http://placeholder');
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) query[key] = url.searchParams.getAll(key);
  const signer = new SignatureV4({
    service: expected.service,
    region: expected.region,
    credentials: expected.credentials,
    sha256: NodeSha256,
    applyChecksum: false,
  });
  const resigned = await signer.sign(
    {
      method: request.method ?? 'GET',
      protocol: 'http:',
      hostname: headers['host'] ?? '',
      // The path exactly as it arrived: the signer escapes it once more, as the client's did.
      path: (request.url ?? '/').split('?')[0] ?? '/',
      query,
      headers,
      body,
    },
    { signingDate, signableHeaders: new Set(signed) },
  );
  const authorization = resigned.headers['authorization'] ?? '';
  return /Signature=([0-9a-f]{64})$/.exec(authorization)?.[1] ?? '';
}

/**
 * Signs a request as an AWS SDK does, for tests that send what the Bedrock SDK never would (a
 * body changed after signing, an old date, a body with `model`): the headers to send with it.
 */
export async function signAwsRequest(request: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body: string;
  credentials: AwsCredentials;
  region: string;
  service?: string;
  signingDate?: Date;
}): Promise<Record<string, string>> {
  const url = new URL(request.url);
  const signer = new SignatureV4({
    service: request.service ?? 'bedrock',
    region: request.region,
    credentials: request.credentials,
    sha256: NodeSha256,
  });
  const signed = await signer.sign(
    {
      method: request.method ?? 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      path: url.pathname,
      query: {},
      headers: { 'content-type': 'application/json', ...request.headers, host: url.host },
      body: request.body,
    },
    request.signingDate === undefined ? {} : { signingDate: request.signingDate },
  );
  return signed.headers;
}

/** SHA-256 and HMAC-SHA256 from node:crypto, in the shape @smithy/signature-v4 asks for. */
class NodeSha256 {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = this.create();
  }

  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(toBuffer(data));
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }

  reset(): void {
    this.hash = this.create();
  }

  private create(): Hash | Hmac {
    return this.secret === undefined
      ? createHash('sha256')
      : createHmac('sha256', toBuffer(this.secret));
  }
}

function toBuffer(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

function parseAmzDate(text: string): Date | undefined {
  const parts = AMZ_DATE.exec(text);
  if (parts === null) return undefined;
  const [, year = 0, month = 1, day, hour, minute, second] = parts.map(Number);
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second));
}

function formatAmzDate(milliseconds: number): string {
  return new Date(milliseconds)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function refusal(status: number, errorType: string, message: string): SigV4Refusal {
  return { status, errorType, message };
}

function invalidSignature(message: string): SigV4Refusal {
  return refusal(403, 'InvalidSignatureException', message);
}
