/**
 * Bedrock's InvokeModelWithResponseStream body: binary AWS event-stream messages (prelude,
 * headers, payload, CRCs; framed by @smithy/eventstream-codec), content type
 * `application/vnd.amazon.eventstream`.
 *
 * - Each Messages API event is one `chunk` event whose JSON payload carries the event's JSON in
 *   base64 under `bytes`, beside a `p` field of padding whose length varies, as Bedrock pads
 *   chunks so their sizes do not reveal the text.
 * - A failure mid-stream is an `exception` message named by its camel-cased type
 *   (`throttlingException`, `modelStreamErrorException`, …) with `{message}` as payload.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';

const codec = new EventStreamCodec(
  (bytes: Uint8Array) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);

const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export const EVENT_STREAM_CONTENT_TYPE = 'application/vnd.amazon.eventstream';

/** The exceptions Bedrock may send inside a 200 stream (its ResponseStream union). */
export type BedrockStreamExceptionType =
  | 'internalServerException'
  | 'modelStreamErrorException'
  | 'validationException'
  | 'throttlingException'
  | 'modelTimeoutException'
  | 'serviceUnavailableException';

/** One `chunk` event carrying `data`, a Messages API stream event, as JSON. */
export function chunkMessage(data: Record<string, unknown>): Uint8Array {
  const bytes = Buffer.from(JSON.stringify(data), 'utf8').toString('base64');
  const payload = { bytes, p: PADDING.slice(0, 1 + (bytes.length % PADDING.length)) };
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: 'chunk' },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: new TextEncoder().encode(JSON.stringify(payload)),
  });
}

export function exceptionMessage(
  type: BedrockStreamExceptionType,
  payload: Record<string, unknown>,
): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: new TextEncoder().encode(JSON.stringify(payload)),
  });
}

/** Every message in `bytes`, decoded, for tests that read the wire themselves. */
export function decodeEventStream(
  bytes: Uint8Array,
): Array<{ headers: Record<string, string>; body: string }> {
  const messages = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Each message starts with its total length (big-endian), the prelude's first field.
  for (let offset = 0; offset < bytes.byteLength;) {
    const length = view.getUint32(offset, false);
    const message = codec.decode(bytes.subarray(offset, offset + length));
    offset += length;
    messages.push({
      headers: Object.fromEntries(
        Object.entries(message.headers).map(([name, header]) => [name, String(header.value)]),
      ),
      body: new TextDecoder().decode(message.body),
    });
  }
  return messages;
}
