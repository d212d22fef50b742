/**
 * Edit's checks and the change they allow, computed in one place so validateInput and call() run
 * the same logic (call() runs it again: hooks may have touched the file in between).
 *
 * Order, as the reference CLI checks: no-op edit → a symbolic link (links.ts, not written
 * through) → create via empty old_string → missing file → notebook → not read → stale → not
 * found → ambiguous → edited lines not seen (docs/DECISIONS.md #2).
 */
import { stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { extname } from 'node:path';
import type { ToolContext } from '../../tool.js';
import { describeError, errorCode } from './fs-errors.js';
import { linkProblem } from './links.js';
import { fileNotFoundMessage } from './missing-file.js';
import { readStateProblem } from './read-guard.js';
import { findMatches, lineSpan, replaceMatches } from './replace.js';
import { readTextFile, toLf } from './text-file.js';
import type { TextEncoding, TextFile } from './text-file.js';

export interface EditRequest {
  path: string;
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

export interface EditPlan {
  /** The file before the edit; null when the edit creates it. */
  original: TextFile | null;
  /** Before and after with LF line endings: what the patch is computed on. */
  before: string;
  after: string;
  /** `after` with the file's own line endings, to be written in `encoding`. */
  output: string;
  encoding: TextEncoding;
  occurrences: number;
}

export type PlanResult = { ok: true; plan: EditPlan } | { ok: false; message: string };

export async function planEdit(request: EditRequest, context: ToolContext): Promise<PlanResult> {
  const { path, oldString, newString } = request;
  const fail = (message: string): PlanResult => ({ ok: false, message });
  if (oldString === newString) {
    return fail('No changes to make: old_string and new_string are exactly the same.');
  }
  const link = await linkProblem(path);
  if (link) return fail(link);
  let info: Stats | undefined;
  try {
    info = await stat(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') return fail(`Cannot edit ${path}: ${describeError(error)}`);
  }
  if (!info) {
    if (oldString !== '') return fail(await fileNotFoundMessage(path, context.projectDir));
    return { ok: true, plan: wholeFile(null, newString) };
  }
  if (info.isDirectory()) return fail(`${path} is a directory, not a file.`);
  let file: TextFile;
  try {
    file = await readTextFile(path);
  } catch (error) {
    return fail(`Cannot edit ${path}: ${describeError(error)}`);
  }
  if (oldString === '') {
    // Filling an empty file is creating it; anything else would silently drop content.
    if (file.text.trim() !== '') return fail('Cannot create new file - file already exists.');
    return { ok: true, plan: wholeFile(file, newString) };
  }
  if (extname(path).toLowerCase() === '.ipynb') {
    return fail('File is a Jupyter Notebook. Use the NotebookEdit to edit this file.');
  }
  const stateProblem = readStateProblem(context.fileState, path, file);
  if (stateProblem) return fail(stateProblem);
  return planReplacement(request, file, context);
}

function planReplacement(request: EditRequest, file: TextFile, context: ToolContext): PlanResult {
  const before = toLf(file.text);
  const needle = toLf(request.oldString);
  const matches = findMatches(before, needle);
  if (matches.length === 0) {
    return {
      ok: false,
      message: `String to replace not found in file.\nString: ${request.oldString}`,
    };
  }
  if (matches.length > 1 && !request.replaceAll) {
    return {
      ok: false,
      message: `Found ${matches.length} matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: ${request.oldString}`,
    };
  }
  for (const match of matches) {
    const [start, end] = lineSpan(before, match);
    if (!context.fileState.hasSeenLines(request.path, start, end)) {
      const lines = start === end ? `line ${start}` : `lines ${start}-${end}`;
      return {
        ok: false,
        message: `The text to replace is on ${lines}, which you have not read yet. Read that part of the file (offset ${start}) before editing it.`,
      };
    }
  }
  const after = replaceMatches(before, matches, needle, toLf(request.newString));
  const output = file.lineEnding === '\r\n' ? after.replaceAll('\n', '\r\n') : after;
  const plan = { original: file, before, after, output, encoding: file.encoding };
  return { ok: true, plan: { ...plan, occurrences: matches.length } };
}

/** old_string "" on a missing or blank file: new_string becomes the whole file, verbatim. */
function wholeFile(original: TextFile | null, newString: string): EditPlan {
  return {
    original,
    before: original ? toLf(original.text) : '',
    after: toLf(newString),
    output: newString,
    encoding: original?.encoding ?? 'utf8',
    occurrences: 1,
  };
}
