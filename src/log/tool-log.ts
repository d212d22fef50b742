/**
 * The files a run leaves behind, one JSON object per line, each line appended with one
 * synchronous write the moment it is produced: a run killed with SIGKILL still leaves every
 * line written so far, whole (ARCHITECTURE: "a killed run still leaves a log"). No fsync: the
 * kernel keeps what was written when the process dies; only a machine crash can lose it.
 *
 * - the tool log (`openToolLog`): every stream-json line (stream-json.ts), audit lines included,
 *   each with its link in the log's hash chain (log-chain.ts), and `system/log_end` at close;
 * - the transcript (`openTranscript`): the conversation only — the prompt as a `user` entry, then
 *   the `assistant` and `user` (tool_result) entries — shaped as Claude Code's session JSONL
 *   (transcript-entry.ts), since that is what hooks read at `transcript_path`.
 *
 * Both files are appended to, never truncated; the directory is created when missing.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { errorMessage } from '../util/errors.js';
import { CHAIN_FIELD, LogChain, splitChainedLine } from './log-chain.js';
import type { SecretMasker } from './secret-masker.js';
import type { LineSink, StreamJsonLine } from './stream-json.js';
import type { TranscriptContext } from './transcript-entry.js';
import { TranscriptShaper } from './transcript-entry.js';

export interface NdjsonFile {
  readonly path: string;
  /** Appends one line now. After a failed write, later lines are dropped (see `error`). */
  readonly write: LineSink;
  /** The first write that failed (disk full, file removed…); the run goes on without the file. */
  readonly error: Error | undefined;
  /** Idempotent; lines written after it are dropped. */
  close(): void;
}

export interface ToolLog extends NdjsonFile {
  /**
   * The hash of the closing line once close() wrote it (log-chain.ts); undefined while open, or
   * when a write failed (the log then ends without one: incomplete).
   */
  readonly finalHash: string | undefined;
  /** Lines chained so far, the closing line included. */
  readonly lines: number;
  /**
   * Masks every line again with a masker that knows more (redact-ndjson.ts) and rechains them
   * from the genesis: the rewrite is the action's own, before the final hash is published.
   */
  redact(masker: SecretMasker): void;
}

/**
 * The tool log (docs/DECISIONS.md #14, docs/AUDIT.md), chained from `sessionId`'s genesis.
 * Appended to a file that already holds a log, it starts a second chain (seq 1 again) after the
 * first; the audit verifies each. Throws LogFileError when the file cannot be opened.
 */
export function openToolLog(path: string, sessionId: string): ToolLog {
  const chain = new LogChain(sessionId);
  let finalHash: string | undefined;
  const file = openNdjsonFile(path, 'tool log', (line) => line, [], {
    serialize: (line) => chain.next(line),
  });
  return {
    path,
    write: file.write,
    get error() {
      return file.error;
    },
    get finalHash() {
      return finalHash;
    },
    get lines() {
      return chain.lines;
    },
    close() {
      if (file.closed) return;
      file.appendText(chain.end());
      if (file.error === undefined) finalHash = chain.lastHash;
      file.close();
    },
    redact(masker) {
      if (file.closed) return;
      const all = readFileSync(path, 'utf8')
        .split('\n')
        .filter((text) => text !== '');
      // This run's lines are the file's last ones; an earlier run's chain is left as it is.
      const earlier = all.slice(0, all.length - chain.lines);
      const lines = all.slice(all.length - chain.lines);
      chain.restart();
      const texts = lines.map((text) => {
        const split = splitChainedLine(text);
        const line = JSON.parse(split?.body ?? text) as Record<string, unknown>;
        delete line[CHAIN_FIELD];
        return chain.next(masker.maskJson(line));
      });
      file.rewrite([...earlier, ...texts]);
    },
  };
}

export interface TranscriptOptions extends Omit<TranscriptContext, 'promptId'> {
  /** Default: a new one. The session's hooks get the same as `prompt_id`. */
  promptId?: string;
  prompt: string;
  masker?: SecretMasker;
}

/**
 * The transcript hooks get as `transcript_path`; starts with the prompt. It is written the
 * stream-json lines (already masked) and keeps the conversation's, reshaped.
 */
export function openTranscript(path: string, options: TranscriptOptions): NdjsonFile {
  const shaper = new TranscriptShaper({ ...options, promptId: options.promptId ?? randomUUID() });
  const prompt = shaper.prompt(options.prompt);
  return openNdjsonFile(path, 'transcript', (line) => shaper.shape(line), [
    options.masker ? options.masker.maskJson(prompt) : prompt,
  ]);
}

/** A log or transcript file that cannot be opened: the run does not start. */
export class LogFileError extends Error {
  override readonly name = 'LogFileError';
}

function openNdjsonFile(
  path: string,
  what: string,
  /** What is written for a line; undefined: nothing. */
  shape: (line: StreamJsonLine) => StreamJsonLine | undefined,
  /** Written first, as they are. */
  head: readonly StreamJsonLine[] = [],
  options: {
    /** A line's text (without the newline); default JSON.stringify. */
    serialize?: (line: StreamJsonLine) => string;
  } = {},
): NdjsonFile & {
  readonly closed: boolean;
  appendText(text: string): void;
  rewrite(texts: readonly string[]): void;
} {
  const serialize = options.serialize ?? ((line) => JSON.stringify(line));
  let fd: number | undefined;
  try {
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, 'a');
  } catch (error) {
    throw new LogFileError(
      `cannot open the ${what} file ${JSON.stringify(path)}: ${errorMessage(error)}`,
    );
  }
  let error: Error | undefined;
  const close = () => {
    if (fd === undefined) return;
    const open = fd;
    fd = undefined;
    closeSync(open);
  };
  const appendText = (text: string) => {
    if (fd === undefined) return;
    const data = Buffer.from(`${text}\n`, 'utf8');
    try {
      // One write per line; the loop only matters if the kernel accepts part of it.
      for (let offset = 0; offset < data.length;)
        offset += writeSync(fd, data, offset, data.length - offset);
    } catch (cause) {
      error = new LogFileError(
        `writing the ${what} file ${JSON.stringify(path)} failed: ${errorMessage(cause)}`,
      );
      try {
        close();
      } catch {
        // the write error above is the one worth reporting
      }
    }
  };
  const append = (line: StreamJsonLine) => {
    if (fd !== undefined) appendText(serialize(line));
  };
  for (const line of head) append(line);
  const write = (line: StreamJsonLine) => {
    const shaped = shape(line);
    if (shaped !== undefined) append(shaped);
  };
  const rewrite = (texts: readonly string[]) => {
    if (fd === undefined) return;
    ftruncateSync(fd, 0);
    // Opened for appending (O_APPEND): each write goes to the new end.
    for (const text of texts) appendText(text);
  };
  return {
    path,
    write,
    get error() {
      return error;
    },
    get closed() {
      return fd === undefined;
    },
    appendText,
    rewrite,
    close,
  };
}
