/**
 * What `ci-agent audit` reads: a run's artifact as GitHub serves it (a zip), that zip unpacked
 * (a folder), or a tool log on its own (a .jsonl / .ndjson file). Whatever the form, the result
 * is the same: the tool log's text, every file beside it, and what they say about the log from
 * outside it — the final hash the report published, and the attestation bundle if there is one.
 * Every error names the file and what is wrong with it. Nothing here is trusted: the files are
 * what an attacker may have changed, and are only read.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { unzipSync } from 'fflate';
import { errorMessage } from '../util/errors.js';
import { findPublishedHash } from '../log/log-chain.js';

import { ATTESTATION_FILE, REPORT_FILE, TOOL_LOG_FILE } from './artifact-names.js';

export { ATTESTATION_FILE, REPORT_FILE, TOOL_LOG_FILE };
/** An artifact holds a few text files; anything near this is not one of ours. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

export interface AuditSource {
  /** The path given, as given. */
  origin: string;
  kind: 'zip' | 'folder' | 'log';
  /** The tool log's name inside the source (the file's own name for a bare log). */
  logName: string;
  logText: string;
  /** Every file of the artifact by name (a bare log: only itself), the log included. */
  files: ReadonlyMap<string, Uint8Array>;
  /** report.md's text, when the artifact has one. */
  report: string | undefined;
  /** The final hash report.md published (`sha256:<hex>`), when it has one. */
  publishedHash: string | undefined;
  /** The attestation bundle's text, when the artifact has one. */
  attestation: string | undefined;
}

/** A source that cannot be read: the message names the file and what is wrong. */
export class AuditSourceError extends Error {
  override readonly name = 'AuditSourceError';
}

export function readAuditSource(path: string): AuditSource {
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw new AuditSourceError(`cannot read ${JSON.stringify(path)}: ${errorMessage(error)}`);
  }
  if (stats.isDirectory()) return fromFiles(path, 'folder', readFolder(path));
  if (!stats.isFile()) {
    throw new AuditSourceError(
      `${JSON.stringify(path)} is neither a file nor a folder: give an artifact .zip, its unpacked folder, or a tool log .jsonl`,
    );
  }
  const bytes = readBounded(path, stats.size);
  if (isZip(bytes)) return fromFiles(path, 'zip', readZip(path, bytes));
  const name = basename(path);
  return {
    origin: path,
    kind: 'log',
    logName: name,
    logText: decodeText(path, bytes),
    files: new Map([[name, bytes]]),
    report: undefined,
    publishedHash: undefined,
    attestation: undefined,
  };
}

function fromFiles(
  origin: string,
  kind: 'zip' | 'folder',
  files: Map<string, Uint8Array>,
): AuditSource {
  const log = files.get(TOOL_LOG_FILE);
  if (log === undefined) {
    const names = [...files.keys()].sort();
    throw new AuditSourceError(
      `${JSON.stringify(origin)} has no ${TOOL_LOG_FILE}: ${names.length === 0 ? 'it is empty' : `it holds ${names.map((name) => JSON.stringify(name)).join(', ')}`}; a ci-agent artifact has its tool log at the top level`,
    );
  }
  const text = (name: string) => {
    const bytes = files.get(name);
    return bytes && decodeText(`${origin}: ${name}`, bytes);
  };
  const report = text(REPORT_FILE);
  return {
    origin,
    kind,
    logName: TOOL_LOG_FILE,
    logText: decodeText(`${origin}: ${TOOL_LOG_FILE}`, log),
    files,
    report,
    publishedHash: report === undefined ? undefined : findPublishedHash(report),
    attestation: text(ATTESTATION_FILE),
  };
}

function readFolder(path: string): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  let names: string[];
  try {
    names = readdirSync(path).sort();
  } catch (error) {
    throw new AuditSourceError(
      `cannot list the folder ${JSON.stringify(path)}: ${errorMessage(error)}`,
    );
  }
  for (const name of names) {
    const file = join(path, name);
    const stats = statSync(file);
    if (stats.isFile()) files.set(name, readBounded(file, stats.size));
  }
  return files;
}

function readZip(path: string, bytes: Uint8Array): Map<string, Uint8Array> {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes, {
      // A zip bomb is refused before it is inflated: fflate reports each entry's size first.
      filter: (entry) => {
        if (entry.originalSize > MAX_FILE_BYTES) {
          throw new Error(`${entry.name} would inflate to ${entry.originalSize} bytes`);
        }
        return !entry.name.endsWith('/');
      },
    });
  } catch (error) {
    throw new AuditSourceError(
      `${JSON.stringify(path)} is not a readable zip archive: ${errorMessage(error)}`,
    );
  }
  const files = new Map<string, Uint8Array>();
  for (const [name, content] of Object.entries(entries)) {
    // upload-artifact zips flat files; one in a folder is kept under its path, never resolved.
    files.set(name, content);
  }
  return files;
}

function readBounded(path: string, size: number): Uint8Array {
  if (size > MAX_FILE_BYTES) {
    throw new AuditSourceError(
      `${JSON.stringify(path)} is ${size} bytes: more than a run's artifact holds (${MAX_FILE_BYTES})`,
    );
  }
  try {
    return readFileSync(path);
  } catch (error) {
    throw new AuditSourceError(`cannot read ${JSON.stringify(path)}: ${errorMessage(error)}`);
  }
}

function isZip(bytes: Uint8Array): boolean {
  // "PK\3\4" (a local file header) or "PK\5\6" (an empty archive's end record).
  return (
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6))
  );
}

function decodeText(where: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AuditSourceError(`${where} is not UTF-8 text: a tool log is UTF-8 JSON lines`);
  }
}
