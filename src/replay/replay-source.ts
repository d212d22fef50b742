/**
 * Where a replay's recording comes from: the run's artifact folder (its `tool-log.jsonl`, and
 * the prompt from `transcript.jsonl` when it is there) or a tool log `.jsonl` itself. A zip (the
 * artifact as GitHub serves it for download) is refused with what to do: unzip it first.
 *
 * The one function the rest of replay reads through, so another reader of artifacts (zip,
 * folder, jsonl) can take its place without touching anything else.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../util/errors.js';
import { ReplayInputError } from './recorded-run.js';

export const TOOL_LOG_FILE = 'tool-log.jsonl';
export const TRANSCRIPT_FILE = 'transcript.jsonl';

export interface ReplaySource {
  /** The tool log's path, as messages name it. */
  logPath: string;
  logText: string;
  /** The prompt the run started with, when the artifact's transcript has it. */
  prompt?: string;
}

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

export async function readReplaySource(path: string): Promise<ReplaySource> {
  const info = await stat(path).catch((error: unknown) => {
    throw new ReplayInputError(`${path}: cannot be read: ${errorMessage(error)}`);
  });
  if (info.isDirectory()) {
    const logPath = join(path, TOOL_LOG_FILE);
    const logText = (await readText(logPath, `${path} is a folder without ${TOOL_LOG_FILE}`)) ?? '';
    const prompt = await readText(join(path, TRANSCRIPT_FILE), undefined).then(
      (text) => text && promptOf(text),
    );
    return { logPath, logText, ...(prompt !== undefined && { prompt }) };
  }
  const bytes = await readFile(path);
  if (path.toLowerCase().endsWith('.zip') || bytes.subarray(0, 4).equals(ZIP_MAGIC)) {
    throw new ReplayInputError(
      `${path} is a zip archive: unzip it first (unzip -d run ${path}) and pass the folder, or its ${TOOL_LOG_FILE}`,
    );
  }
  return { logPath: path, logText: bytes.toString('utf8') };
}

/** The file's text; undefined when it does not exist and `missing` is undefined. */
async function readText(path: string, missing: string | undefined): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && missing === undefined)
      return undefined;
    throw new ReplayInputError(missing ?? `${path}: cannot be read: ${errorMessage(error)}`);
  }
}

/** The transcript's first entry: the prompt, as a `user` entry with text content. */
function promptOf(transcript: string): string | undefined {
  const first = transcript.split('\n', 1)[0];
  try {
    const entry = JSON.parse(first ?? '') as { type?: unknown; message?: { content?: unknown } };
    const content = entry.message?.content;
    return entry.type === 'user' && typeof content === 'string' ? content : undefined;
  } catch {
    return undefined;
  }
}
