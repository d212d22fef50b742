/**
 * The files a run leaves behind, one JSON object per line, each line appended with one
 * synchronous write the moment it is produced: a run killed with SIGKILL still leaves every
 * line written so far, whole (ARCHITECTURE: "a killed run still leaves a log"). No fsync: the
 * kernel keeps what was written when the process dies; only a machine crash can lose it.
 *
 * - the tool log (`openToolLog`): every stream-json line (stream-json.ts), audit lines included;
 * - the transcript (`openTranscript`): the conversation only — the prompt as a `user` entry, then
 *   the `assistant` and `user` (tool_result) entries — shaped as Claude Code's session JSONL
 *   (transcript-entry.ts), since that is what hooks read at `transcript_path`.
 *
 * Both files are appended to, never truncated; the directory is created when missing.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { errorMessage } from '../util/errors.js';
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

/** The tool log (docs/DECISIONS.md #14). Throws LogFileError when the file cannot be opened. */
export function openToolLog(path: string): NdjsonFile {
  return openNdjsonFile(path, 'tool log', (line) => line);
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
): NdjsonFile {
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
  const append = (line: StreamJsonLine) => {
    if (fd === undefined) return;
    const data = Buffer.from(`${JSON.stringify(line)}\n`, 'utf8');
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
  for (const line of head) append(line);
  const write = (line: StreamJsonLine) => {
    const shaped = shape(line);
    if (shaped !== undefined) append(shaped);
  };
  return {
    path,
    write,
    get error() {
      return error;
    },
    close,
  };
}
