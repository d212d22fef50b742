/**
 * The lines a patch adds, file by file, numbered as in the new file: what the push scan
 * (push-scan.ts) searches. Input is `git diff`/`git log -p` output made with `--text` and the
 * prefixes `a/` and `b/`; any context size.
 */

export interface AddedLine {
  /** 1-based, in the new file. */
  line: number;
  /** Without the `+`, and without a CR before the line end. */
  text: string;
}

export interface FileAdditions {
  /** The new path, repository-relative. */
  path: string;
  lines: AddedLine[];
}

/**
 * Each file the patch adds to or creates (renamed, copied, or new and empty included: their name
 * is published too), in patch order; deleted files are left out. Hunks are read by their header's
 * counts, so an added line that itself starts with `++` is never taken for a header.
 */
export function addedLines(patch: string): FileAdditions[] {
  const files: FileAdditions[] = [];
  const rows = patch.split('\n');
  let current: FileAdditions | undefined;
  let deleted = false;
  const finish = () => {
    if (current && !deleted) files.push(current);
    current = undefined;
    deleted = false;
  };
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!;
    if (row.startsWith('diff --git ')) {
      finish();
      current = { path: newPathOfHeader(row.slice('diff --git '.length)), lines: [] };
    } else if (!current) {
      continue;
    } else if (row.startsWith('deleted file mode ') || row === '+++ /dev/null') {
      deleted = true;
    } else if (/^(?:rename|copy) to /.test(row)) {
      current.path = unquote(row.replace(/^(?:rename|copy) to /, ''));
    } else if (row.startsWith('+++ ')) {
      current.path = stripPrefix(unquote(row.slice(4).replace(/\t$/, '')));
    } else if (row.startsWith('@@ ')) {
      index = readHunk(rows, index, current);
    }
  }
  finish();
  return files;
}

/** Reads the hunk whose header is rows[index] into `file`; returns the index of its last row. */
function readHunk(rows: readonly string[], index: number, file: FileAdditions): number {
  const header = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(rows[index]!);
  if (!header) return index;
  let oldLeft = Number(header[1] ?? 1);
  let newLeft = Number(header[3] ?? 1);
  let line = Number(header[2]);
  while ((oldLeft > 0 || newLeft > 0) && index + 1 < rows.length) {
    const body = rows[++index]!;
    if (body.startsWith('\\')) continue;
    if (body.startsWith('+')) {
      file.lines.push({ line: line++, text: body.slice(1).replace(/\r$/, '') });
      newLeft--;
    } else if (body.startsWith('-')) {
      oldLeft--;
    } else {
      line++;
      oldLeft--;
      newLeft--;
    }
  }
  return index;
}

/**
 * The `b/` side of `a/<old> b/<new>` (either may be quoted). Ambiguous when a name holds " b/";
 * a `+++` or `rename to` line, when there is one, says it exactly and replaces this guess.
 */
function newPathOfHeader(names: string): string {
  if (names.endsWith('"')) {
    const start = names.lastIndexOf(' "b/');
    if (start !== -1) return stripPrefix(unquote(names.slice(start + 1)));
  }
  const start = names.lastIndexOf(' b/');
  return start === -1 ? names : names.slice(start + 3);
}

/** `b/path` → `path`. */
function stripPrefix(path: string): string {
  return path.startsWith('b/') ? path.slice(2) : path;
}

/** git's C-style quoting of an unusual path (`"a\"b\tc"`, octal bytes), undone. */
function unquote(path: string): string {
  if (!path.startsWith('"') || !path.endsWith('"')) return path;
  const bytes: number[] = [];
  const body = path.slice(1, -1);
  const escapes: Record<string, number> = {
    n: 10,
    t: 9,
    r: 13,
    '"': 34,
    '\\': 92,
    a: 7,
    b: 8,
    f: 12,
    v: 11,
  };
  for (let index = 0; index < body.length; index++) {
    const char = body[index]!;
    if (char !== '\\') {
      bytes.push(...Buffer.from(char, 'utf8'));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(body.slice(index + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      index += 3;
    } else {
      const next = body[++index] ?? '';
      bytes.push(escapes[next] ?? next.charCodeAt(0));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
