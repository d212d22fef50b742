/**
 * The tool log's hash chain (docs/AUDIT.md). Every line of the log file ends with one field,
 * added last:
 *
 *   {…the stream-json line…,"ci_agent_chain":{"seq":N,"hash":"<64 hex>"}}
 *
 * where `hash` = sha256(previous hash + "\n" + N + "\n" + the line's bytes without that field),
 * the "line without the field" being exactly the bytes before `,"ci_agent_chain":` followed by
 * `}`. Link 1 also names the session (`{"seq":1,"session_id":"…","hash":…}`) and chains to the
 * genesis, sha256("ci-agent tool log v1\n" + session id): a log copied from another run starts
 * from another genesis, and an edited session id breaks link 1. The last line of a log whose run ended is
 * `system/log_end` (its line count and the session id); its hash is the log's final hash, which
 * the action also publishes outside the log (report, job summary, the `log-hash` output), so that
 * a cut tail or a wholly recomputed chain is caught against it.
 *
 * Only the file carries the chain: stdout stays `claude -p` stream-json, byte for byte.
 */
import { createHash } from 'node:crypto';

export const CHAIN_FIELD = 'ci_agent_chain';
export const LOG_END_SUBTYPE = 'log_end';
const GENESIS_LABEL = 'ci-agent tool log v1\n';
const SUFFIX = new RegExp(
  `,"${CHAIN_FIELD}":\\{"seq":(\\d{1,15})(?:,"session_id":("(?:[^"\\\\]|\\\\.)*"))?,"hash":"([0-9a-f]{64})"\\}\\}$`,
);

/** The hash line 1 chains to, for a session id. */
export function genesisHash(sessionId: string): string {
  return sha256(`${GENESIS_LABEL}${sessionId}`);
}

/** The hash of line `seq` whose text without the chain field is `body`, after `previous`. */
export function lineHash(previous: string, seq: number, body: string): string {
  return sha256(`${previous}\n${seq}\n${body}`);
}

/** A line's serialized form with the chain field, and its hash. */
export function chainLine(
  previous: string,
  seq: number,
  body: string,
  sessionId?: string,
): { text: string; hash: string } {
  if (!body.startsWith('{') || !body.endsWith('}') || body === '{}') {
    throw new Error(`a chained log line must be a non-empty JSON object, got ${body.slice(0, 40)}`);
  }
  const hash = lineHash(previous, seq, body);
  return {
    text: `${body.slice(0, -1)},"${CHAIN_FIELD}":${JSON.stringify(seq === 1 ? { seq, session_id: sessionId ?? '', hash } : { seq, hash })}}`,
    hash,
  };
}

export interface SplitLine {
  /** The line's text without the chain field: what its hash covers. */
  body: string;
  seq: number;
  hash: string;
  /** Link 1's session id; undefined on the others. */
  sessionId: string | undefined;
}

/** A written line split into what the hash covers and the chain field; undefined: none there. */
export function splitChainedLine(text: string): SplitLine | undefined {
  const match = SUFFIX.exec(text);
  if (!match) return undefined;
  let sessionId: string | undefined;
  if (match[2] !== undefined) {
    try {
      sessionId = JSON.parse(match[2]) as string;
    } catch {
      return undefined;
    }
  }
  return {
    body: `${text.slice(0, match.index)}}`,
    seq: Number(match[1]),
    hash: match[3]!,
    sessionId,
  };
}

/**
 * Chains lines as they are written. `next` gives the text of each line; `end` the closing line.
 * `restart` rechains a rewritten file's lines (the push scan's redaction) from the genesis.
 */
export class LogChain {
  private previous: string;
  private seq = 0;

  constructor(readonly sessionId: string) {
    this.previous = genesisHash(sessionId);
  }

  next(line: object): string {
    const { text, hash } = chainLine(
      this.previous,
      this.seq + 1,
      JSON.stringify(line),
      this.sessionId,
    );
    this.seq += 1;
    this.previous = hash;
    return text;
  }

  /** The closing line: after it the log is complete, and its hash is the final one. */
  end(): string {
    return this.next({
      type: 'system',
      subtype: LOG_END_SUBTYPE,
      session_id: this.sessionId,
      lines: this.seq,
    });
  }

  restart(): void {
    this.previous = genesisHash(this.sessionId);
    this.seq = 0;
  }

  /** The hash of the last line written (the genesis before any). */
  get lastHash(): string {
    return this.previous;
  }

  get lines(): number {
    return this.seq;
  }
}

/** What the action publishes: `sha256:` and the hex digest of the closing line's chain. */
export function publishedHash(hash: string): string {
  return `sha256:${hash}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** How the report and the job summary name the final hash; findPublishedHash reads it back. */
export const LOG_HASH_LABEL = 'Tool log hash';

/**
 * The final hash a report published: the last `Tool log hash` it has (the footer comes after
 * anything the model wrote), or undefined.
 */
export function findPublishedHash(markdown: string): string | undefined {
  const pattern = new RegExp(`${LOG_HASH_LABEL}:?\\s*\`?(sha256:[0-9a-f]{64})`, 'g');
  let found: string | undefined;
  for (const match of markdown.matchAll(pattern)) found = match[1];
  return found;
}
