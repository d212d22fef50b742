/**
 * Grep calls over the corpus of grep-corpus.ts and the text each must give, `<root>` standing
 * for the workspace. Both engines are held to the same expected text.
 */

export interface GrepCase {
  name: string;
  input: Record<string, unknown>;
  expected: string;
  isError?: boolean;
}

const NEEDLE_LINES = [
  '<root>/.hidden/secret.txt:1:a needle in a hidden dir',
  '<root>/docs/readme.md:3:The needle is here.',
  '<root>/docs/readme.md:7:Another needle line.',
  '<root>/keep.log:1:needle kept',
  '<root>/src/app.ts:2:const needle = 1;',
  '<root>/src/app.ts:4:  return needle;',
  '<root>/src/nested/deep.py:1:def needle():',
  '<root>/src/util.js:1:// needle helper',
];

export const GREP_CASES: readonly GrepCase[] = [
  {
    name: 'lists matching files newest first, skipping ignored, binary and .git files',
    input: { pattern: 'needle' },
    expected: [
      'Found 6 files',
      '<root>/docs/readme.md',
      '<root>/src/app.ts',
      '<root>/src/nested/deep.py',
      '<root>/src/util.js',
      '<root>/.hidden/secret.txt',
      '<root>/keep.log',
    ].join('\n'),
  },
  {
    name: 'ignores case with -i, which also finds the hidden .env file',
    input: { pattern: 'NEEDLE', '-i': true },
    expected: [
      'Found 7 files',
      '<root>/docs/readme.md',
      '<root>/src/app.ts',
      '<root>/src/nested/deep.py',
      '<root>/src/util.js',
      '<root>/.hidden/secret.txt',
      '<root>/.env',
      '<root>/keep.log',
    ].join('\n'),
  },
  {
    name: 'shows matching lines with numbers in path order in content mode',
    input: { pattern: 'needle', output_mode: 'content' },
    expected: NEEDLE_LINES.join('\n'),
  },
  {
    name: 'leaves line numbers out when -n is false',
    input: { pattern: 'needle', output_mode: 'content', '-n': false },
    expected: NEEDLE_LINES.map((line) => line.replace(/:\d+:/, ':')).join('\n'),
  },
  {
    name: 'counts matching lines per file with a total',
    input: { pattern: 'needle', output_mode: 'count' },
    expected: [
      '<root>/.hidden/secret.txt:1',
      '<root>/docs/readme.md:2',
      '<root>/keep.log:1',
      '<root>/src/app.ts:2',
      '<root>/src/nested/deep.py:1',
      '<root>/src/util.js:1',
      '',
      'Found 8 total occurrences across 6 files.',
    ].join('\n'),
  },
  {
    name: 'shows context around matches with -C and separates distant groups',
    input: { pattern: 'needle', output_mode: 'content', glob: '*.md', '-C': 1 },
    expected: [
      '<root>/docs/readme.md-2-',
      '<root>/docs/readme.md:3:The needle is here.',
      '<root>/docs/readme.md-4-no match',
      '--',
      '<root>/docs/readme.md-6-no match',
      '<root>/docs/readme.md:7:Another needle line.',
      '<root>/docs/readme.md-8-end',
    ].join('\n'),
  },
  {
    name: 'shows only following context with -A',
    input: { pattern: 'needle', output_mode: 'content', glob: '*.md', '-A': 1 },
    expected: [
      '<root>/docs/readme.md:3:The needle is here.',
      '<root>/docs/readme.md-4-no match',
      '--',
      '<root>/docs/readme.md:7:Another needle line.',
      '<root>/docs/readme.md-8-end',
    ].join('\n'),
  },
  {
    name: 'shows only preceding context with -B',
    input: { pattern: 'needle', output_mode: 'content', glob: '*.md', '-B': 2 },
    expected: [
      '<root>/docs/readme.md-1-# Needle',
      '<root>/docs/readme.md-2-',
      '<root>/docs/readme.md:3:The needle is here.',
      '--',
      '<root>/docs/readme.md-5-no match',
      '<root>/docs/readme.md-6-no match',
      '<root>/docs/readme.md:7:Another needle line.',
    ].join('\n'),
  },
  {
    name: 'takes context as an alias of -C',
    input: { pattern: 'Another', output_mode: 'content', context: 1 },
    expected: [
      '<root>/docs/readme.md-6-no match',
      '<root>/docs/readme.md:7:Another needle line.',
      '<root>/docs/readme.md-8-end',
    ].join('\n'),
  },
  {
    name: 'filters by a glob, which also reaches files a nested .gitignore names',
    input: { pattern: 'needle', glob: '*.ts' },
    expected: 'Found 2 files\n<root>/src/app.ts\n<root>/src/nested/generated.ts',
  },
  {
    name: 'filters by a glob with braces',
    input: { pattern: 'needle', glob: '*.{ts,js}' },
    expected:
      'Found 3 files\n<root>/src/app.ts\n<root>/src/nested/generated.ts\n<root>/src/util.js',
  },
  {
    name: 'filters by several globs separated by spaces',
    input: { pattern: 'needle', glob: '*.ts *.py' },
    expected:
      'Found 3 files\n<root>/src/app.ts\n<root>/src/nested/deep.py\n<root>/src/nested/generated.ts',
  },
  {
    name: 'filters by several globs separated by commas',
    input: { pattern: 'needle', glob: '*.ts,*.py' },
    expected:
      'Found 3 files\n<root>/src/app.ts\n<root>/src/nested/deep.py\n<root>/src/nested/generated.ts',
  },
  {
    name: 'excludes files with a negated glob',
    input: { pattern: 'needle', glob: '!**/*.md' },
    expected: [
      'Found 5 files',
      '<root>/src/app.ts',
      '<root>/src/nested/deep.py',
      '<root>/src/util.js',
      '<root>/.hidden/secret.txt',
      '<root>/keep.log',
    ].join('\n'),
  },
  {
    name: 'anchors a glob with a slash to the searched directory',
    input: { pattern: 'needle', glob: 'src/*.ts' },
    expected: 'Found 1 file\n<root>/src/app.ts',
  },
  {
    name: 'lets a glob bring back files .gitignore and info/exclude leave out',
    input: { pattern: 'needle', glob: '*.log' },
    expected: 'Found 2 files\n<root>/keep.log\n<root>/debug.log',
  },
  {
    name: 'filters by file type',
    input: { pattern: 'needle', type: 'py' },
    expected: 'Found 1 file\n<root>/src/nested/deep.py',
  },
  {
    name: 'matches across lines in multiline mode',
    input: {
      pattern: 'findNeedle\\(\\) \\{\\n\\s+return',
      multiline: true,
      output_mode: 'content',
    },
    expected: [
      '<root>/src/app.ts:3:export function findNeedle() {',
      '<root>/src/app.ts:4:  return needle;',
    ].join('\n'),
  },
  {
    name: 'counts multiline matches',
    input: { pattern: '\\{\\n[^}]*\\}', multiline: true, output_mode: 'count' },
    expected: '<root>/src/app.ts:1\n\nFound 1 total occurrence across 1 file.',
  },
  {
    name: 'limits the file list with head_limit and says so',
    input: { pattern: 'needle', head_limit: 2 },
    expected: [
      'Found 2 files',
      '<root>/docs/readme.md',
      '<root>/src/app.ts',
      '',
      '[Limited to 2 files. Pass offset: 2 to see the next ones, or narrow the search.]',
    ].join('\n'),
  },
  {
    name: 'skips entries with offset',
    input: { pattern: 'needle', head_limit: 2, offset: 1 },
    expected: [
      'Found 2 files',
      '<root>/src/app.ts',
      '<root>/src/nested/deep.py',
      '',
      '[Limited to 2 files after skipping 1. Pass offset: 3 to see the next ones, or narrow the search.]',
    ].join('\n'),
  },
  {
    name: 'pages content lines with head_limit and offset',
    input: { pattern: 'needle', output_mode: 'content', head_limit: 3, offset: 2 },
    expected: [
      '<root>/docs/readme.md:7:Another needle line.',
      '<root>/keep.log:1:needle kept',
      '<root>/src/app.ts:2:const needle = 1;',
      '',
      '[Limited to 3 lines after skipping 2. Pass offset: 5 to see the next ones, or narrow the search.]',
    ].join('\n'),
  },
  {
    name: 'shows every line when head_limit is 0',
    input: { pattern: 'needle', output_mode: 'content', head_limit: 0 },
    expected: NEEDLE_LINES.join('\n'),
  },
  {
    name: 'limits count lines and totals what is shown',
    input: { pattern: 'needle', output_mode: 'count', head_limit: 1 },
    expected: [
      '<root>/.hidden/secret.txt:1',
      '',
      'Found 1 total occurrence across 1 file.',
      '',
      '[Limited to 1 file. Pass offset: 1 to see the next ones, or narrow the search.]',
    ].join('\n'),
  },
  {
    name: 'searches for a pattern that starts with a dash',
    input: { pattern: '-v' },
    expected: 'Found 1 file\n<root>/dash.txt',
  },
  {
    name: 'shows lines for a pattern that looks like a long option',
    input: { pattern: '--verbose', output_mode: 'content' },
    expected: '<root>/dash.txt:3:--verbose',
  },
  {
    name: 'says no files were found',
    input: { pattern: 'nothing-here' },
    expected: 'No files found',
  },
  {
    name: 'says no matches were found in content mode',
    input: { pattern: 'nothing-here', output_mode: 'content' },
    expected: 'No matches found',
  },
  {
    name: 'says no matches were found in count mode',
    input: { pattern: 'nothing-here', output_mode: 'count' },
    expected: 'No matches found',
  },
  {
    name: 'leaves the path out of content lines when searching one file',
    input: { pattern: 'needle', path: 'docs/readme.md', output_mode: 'content' },
    expected: '3:The needle is here.\n7:Another needle line.',
  },
  {
    name: 'keeps the path in count mode when searching one file',
    input: { pattern: 'needle', path: 'docs/readme.md', output_mode: 'count' },
    expected: '<root>/docs/readme.md:2\n\nFound 2 total occurrences across 1 file.',
  },
  {
    name: 'searches a named file even when it is ignored',
    input: { pattern: 'needle', path: 'ignored.txt' },
    expected: 'Found 1 file\n<root>/ignored.txt',
  },
  {
    name: 'only says a named binary file matches',
    input: { pattern: 'needle', path: 'bin/data.bin', output_mode: 'content' },
    expected: 'binary file matches (found "\\0" byte around offset 6)',
  },
  {
    name: 'searches a subdirectory given as a relative path',
    input: { pattern: 'needle', path: 'src', output_mode: 'content' },
    expected: [
      '<root>/src/app.ts:2:const needle = 1;',
      '<root>/src/app.ts:4:  return needle;',
      '<root>/src/nested/deep.py:1:def needle():',
      '<root>/src/util.js:1:// needle helper',
    ].join('\n'),
  },
  {
    name: 'refuses an unknown file type as an error',
    input: { pattern: 'needle', type: 'nosuch' },
    expected: 'unrecognized file type: nosuch',
    isError: true,
  },
];
