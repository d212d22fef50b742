/** The lines a patch adds (added-lines.ts), on hand-made patches in git's format. */
import { describe, expect, it } from 'vitest';
import { addedLines } from '../../src/github/added-lines.js';

describe('addedLines', () => {
  it('numbers added lines in the new file and never takes an added `++` line for a header', () => {
    const patch = [
      'diff --git a/a.txt b/a.txt',
      'index 1111111..2222222 100644',
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -2,3 +2,4 @@ context',
      ' kept',
      '-gone',
      '+++ b/looks-like-a-header',
      '+new',
      ' kept too',
      '\\ No newline at end of file',
      '',
    ].join('\n');
    expect(addedLines(patch)).toEqual([
      {
        path: 'a.txt',
        lines: [
          { line: 3, text: '++ b/looks-like-a-header' },
          { line: 4, text: 'new' },
        ],
      },
    ]);
  });

  it('reads a quoted file name', () => {
    const patch = [
      'diff --git "a/tab\\there" "b/tab\\there"',
      'new file mode 100644',
      '--- /dev/null',
      '+++ "b/tab\\there \\"q\\" \\303\\251"',
      '@@ -0,0 +1 @@',
      '+one',
    ].join('\n');
    expect(addedLines(patch)[0]!.path).toBe('tab\there "q" é');
  });

  it('names a new empty file and a renamed one, which have no hunk, and leaves out a deleted one', () => {
    const patch = [
      'diff --git a/empty.txt b/empty.txt',
      'new file mode 100644',
      'index 0000000..e69de29',
      'diff --git a/old name.txt b/new name.txt',
      'similarity index 100%',
      'rename from old name.txt',
      'rename to new name.txt',
      'diff --git a/gone.txt b/gone.txt',
      'deleted file mode 100644',
      'index 1111111..0000000',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      '',
    ].join('\n');
    expect(addedLines(patch)).toEqual([
      { path: 'empty.txt', lines: [] },
      { path: 'new name.txt', lines: [] },
    ]);
  });
});
