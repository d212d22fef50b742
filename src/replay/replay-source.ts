/**
 * Where a replay's recording comes from: the run's artifact as GitHub serves it (a zip), its
 * unpacked folder, or a tool log `.jsonl` itself, all read by the audit's one reader
 * (audit/source.ts) and audited as `ci-agent audit` does it (audit/audit.ts: the chain, against
 * the hash the artifact's report published, and the attestation); the prompt comes from the
 * artifact's `transcript.jsonl` when it is there.
 */
import { join } from 'node:path';
import { auditSource } from '../audit/audit.js';
import type { AuditResult } from '../audit/audit.js';
import { AuditSourceError, readAuditSource } from '../audit/source.js';
import { ReplayInputError } from './recorded-run.js';

export const TRANSCRIPT_FILE = 'transcript.jsonl';

export interface ReplaySource {
  /** The tool log's path, as messages name it. */
  logPath: string;
  logText: string;
  /** The prompt the run started with, when the artifact's transcript has it. */
  prompt?: string;
  /** The recording's audit: exit code 2 is a log that fails verification. */
  audit: AuditResult;
}

export function readReplaySource(path: string): Promise<ReplaySource> {
  let source;
  try {
    source = readAuditSource(path);
  } catch (error) {
    if (error instanceof AuditSourceError) throw new ReplayInputError(error.message);
    throw error;
  }
  const transcript = source.files.get(TRANSCRIPT_FILE);
  const prompt = transcript && promptOf(new TextDecoder().decode(transcript));
  const logPath = source.kind === 'log' ? path : join(path, source.logName);
  return Promise.resolve({
    logPath,
    logText: source.logText,
    audit: auditSource(source),
    ...(prompt !== undefined && prompt !== '' && { prompt }),
  });
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
