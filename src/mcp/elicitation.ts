/**
 * An MCP server's question to the user (`elicitation/create`), answered without a user: in CI
 * nobody is there, so the question resolves through the policy like any ask.
 *
 * - URL mode: always declined (nobody can open a browser);
 * - form mode: declined, unless the policy lists the server in `mcp.acceptElicitationDefaults`
 *   and every required field of the requested schema has a default: then accepted with every
 *   default the schema gives.
 *
 * The server's message is untrusted text: it is only recorded (cut to MAX_MESSAGE_CHARS), never
 * read for meaning.
 */
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/** Characters of the server's message kept in the log. */
export const MAX_ELICITATION_MESSAGE_CHARS = 500;

/** What was asked and what was answered, as the tool log records it with the call. */
export interface ElicitationRecord {
  server: string;
  mode: 'form' | 'url';
  /** The server's message, cut to MAX_ELICITATION_MESSAGE_CHARS. */
  message: string;
  /** Form mode: the fields asked for. */
  fields?: string[];
  action: 'accept' | 'decline';
  /** The values sent with `accept`. */
  content?: NonNullable<ElicitResult['content']>;
  reason: string;
}

export interface ElicitationAnswer {
  result: ElicitResult;
  record: ElicitationRecord;
}

/** The answer to one request; `acceptDefaults` is the policy's word for this server. */
export function answerElicitation(
  server: string,
  params: ElicitRequest['params'],
  acceptDefaults: boolean,
): ElicitationAnswer {
  const message = cut(params.message);
  if (params.mode === 'url') {
    return decline(
      { server, mode: 'url', message },
      'a URL-mode request is always declined: nobody can open a browser in CI',
    );
  }
  const schema = params.requestedSchema;
  const fields = Object.keys(schema.properties);
  const asked = { server, mode: 'form' as const, message, fields };
  if (!acceptDefaults) {
    return decline(
      asked,
      `nobody can answer in CI, and the policy does not list "${server}" in mcp.acceptElicitationDefaults`,
    );
  }
  const missing = (schema.required ?? []).filter((field) => !hasDefault(schema, field));
  if (missing.length > 0) {
    const names = missing.map((field) => `"${field}"`).join(', ');
    return decline(
      asked,
      `required field${missing.length > 1 ? 's' : ''} ${names} ha${missing.length > 1 ? 've' : 's'} no default, so the defaults cannot answer it`,
    );
  }
  const content: NonNullable<ElicitResult['content']> = {};
  for (const [field, property] of Object.entries(schema.properties)) {
    if ('default' in property && property.default !== undefined) content[field] = property.default;
  }
  return {
    result: { action: 'accept', content },
    record: {
      ...asked,
      action: 'accept',
      content,
      reason: `accepted with the requested schema's defaults (mcp.acceptElicitationDefaults lists "${server}")`,
    },
  };
}

/** One line for a message: what the server asked and how it was answered. */
export function describeElicitation(record: ElicitationRecord): string {
  return `MCP server "${record.server}" asked for input (${JSON.stringify(record.message)}): ${record.action}, ${record.reason}`;
}

type Asked = Pick<ElicitationRecord, 'server' | 'mode' | 'message' | 'fields'>;

function decline(asked: Asked, reason: string): ElicitationAnswer {
  return { result: { action: 'decline' }, record: { ...asked, action: 'decline', reason } };
}

type FormSchema = Extract<ElicitRequest['params'], { requestedSchema: unknown }>['requestedSchema'];

function hasDefault(schema: FormSchema, field: string): boolean {
  const property = schema.properties[field];
  return property !== undefined && 'default' in property && property.default !== undefined;
}

function cut(text: string): string {
  if (text.length <= MAX_ELICITATION_MESSAGE_CHARS) return text;
  return `${text.slice(0, MAX_ELICITATION_MESSAGE_CHARS)}… (${text.length} characters)`;
}
