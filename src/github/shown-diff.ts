/**
 * The diff a reviewer reads is the diff that is pushed (issue 12, item 2). It is made with
 * `--text`, so that no `.gitattributes` the agent wrote (`-diff`, `binary`, a diff driver) turns
 * code into "Binary files differ" or a GIT binary patch in the report; textconv and external diff
 * drivers are off as for every diff ci-agent makes. A file whose content really is not text (a
 * NUL byte, or bytes that are not UTF-8) is named with why, never dumped into the comment.
 */

/** `patch`: `git diff --text` output, decoded as UTF-8. */
export function showableDiff(patch: string): string {
  return fileSections(patch)
    .map((section) => (isText(section) ? section : binaryNote(section)))
    .join('');
}

/**
 * Lines added and removed per file of a `--text` patch, in its order (numstat's order), for the
 * files git counts as binary by their attributes; undefined for one whose content is not text.
 */
export function textLineCounts(
  patch: string,
): Array<{ added: number; removed: number } | undefined> {
  return fileSections(patch).map((section) => {
    if (!isText(section)) return undefined;
    const lines = section.split('\n');
    const hunkStart = lines.findIndex((line) => line.startsWith('@@'));
    const body = hunkStart === -1 ? [] : lines.slice(hunkStart + 1);
    return {
      added: body.filter((line) => line.startsWith('+')).length,
      removed: body.filter((line) => line.startsWith('-')).length,
    };
  });
}

/** The patch cut before each `diff --git` header; text before the first one stays with it. */
function fileSections(patch: string): string[] {
  const starts = [...patch.matchAll(/^diff --git /gm)].map((match) => match.index);
  if (starts.length === 0) return patch === '' ? [] : [patch];
  const bounds = [0, ...starts.filter((start) => start > 0), patch.length];
  return bounds.slice(0, -1).map((start, index) => patch.slice(start, bounds[index + 1]));
}

function isText(section: string): boolean {
  return !section.includes('\0') && !section.includes('\uFFFD');
}

function binaryNote(section: string): string {
  const header = section.split('\n', 1)[0] ?? '';
  const meta = section
    .split('\n')
    .slice(1)
    .filter((line) =>
      /^(?:new|deleted) file mode |^(?:old|new) mode |^rename (?:from|to) /.test(line),
    );
  return [
    header,
    ...meta,
    '(binary content not shown: the file is not text; the artifact holds the whole patch)',
    '',
  ].join('\n');
}
