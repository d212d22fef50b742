/**
 * Small file trees and queries with the results ripgrep 13 gives for them (checked against rg),
 * paths relative to the tree. Both engines are held to these.
 */
import type { SearchQuery } from '../../../../src/tools/builtin/search/types.js';

export interface Scenario {
  name: string;
  directories?: string[];
  files: Record<string, string | Buffer>;
  /** `target`, when given, is relative to the tree. */
  query: Partial<SearchQuery>;
  expected: { files: string[] } | { counts: string[] } | { lines: string[] } | { error: string };
}

const LONG_ASCII = `foo ${'x'.repeat(600)} foo end`;
const SHORT_GRAPHEMES = `${'é'.repeat(300)}foo`;
const CUT_AFTER_ACCENT = `${'a'.repeat(499)}éfoo`;
const COMBINING = `${'e\u0301'.repeat(300)}foo`;
const SUFFIX = ' [... omitted end of long line]';

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'ignores .gitignore outside a git repository',
    files: { '.gitignore': 'a.txt\n', 'a.txt': 'x\n' },
    query: {},
    expected: { files: ['.gitignore', 'a.txt'] },
  },
  {
    name: 'applies .ignore outside a git repository',
    files: { '.ignore': 'a.txt\n', 'a.txt': 'x\n', 'b.txt': 'x\n' },
    query: {},
    expected: { files: ['.ignore', 'b.txt'] },
  },
  {
    name: 'ranks .rgignore above a .gitignore negation',
    directories: ['.git'],
    files: { '.gitignore': '!a.txt\n', '.rgignore': 'a.txt\n', 'a.txt': 'x\n' },
    query: {},
    expected: { files: ['.gitignore', '.rgignore'] },
  },
  {
    name: 'lets a deeper .gitignore re-include what a higher one ignores',
    directories: ['.git'],
    files: {
      '.gitignore': '*.gen\n',
      'sub/.gitignore': '!keep.gen\n',
      'sub/keep.gen': 'x\n',
      'sub/drop.gen': 'x\n',
    },
    query: { mode: 'count' },
    expected: { counts: ['sub/keep.gen:1'] },
  },
  {
    name: 'applies the .gitignore of a parent directory when searching below it',
    directories: ['.git'],
    files: {
      '.gitignore': 'sub/gen/\n*.tmp\n',
      'sub/gen/a.txt': 'x\n',
      'sub/b.tmp': 'x\n',
      'sub/c.txt': 'x\n',
    },
    query: { target: 'sub' },
    expected: { files: ['sub/c.txt'] },
  },
  {
    name: 'searches a directory inside an ignored one when it is the target',
    directories: ['.git'],
    files: { '.gitignore': 'gen/\n', 'gen/a.txt': 'x\n' },
    query: { target: 'gen' },
    expected: { files: ['gen/a.txt'] },
  },
  {
    name: 'stops applying a parent .gitignore at a nested repository',
    directories: ['.git', 'inner/.git'],
    files: { '.gitignore': '*.txt\n', 'inner/a.txt': 'x\n', 'b.txt': 'x\n' },
    query: {},
    expected: { files: ['.gitignore', 'inner/a.txt'] },
  },
  {
    name: 'applies .git/info/exclude',
    directories: ['.git/info'],
    files: { '.git/info/exclude': 'a.txt\n', 'a.txt': 'x\n', 'b.txt': 'x\n' },
    query: {},
    expected: { files: ['b.txt'] },
  },
  {
    name: 'never searches .git, even when a glob names it',
    directories: ['.git'],
    files: { '.git/config': 'x\n', a: 'x\n' },
    query: { globs: ['.git/**', '.git'] },
    expected: { files: [] },
  },
  {
    name: 'skips files with a NUL byte near the start',
    files: { 'a.bin': Buffer.from('x\0y\n'), 'b.txt': 'x\n' },
    query: {},
    expected: { files: ['b.txt'] },
  },
  {
    name: 'excludes a directory with a directory-only negated glob',
    files: { 'sub/a.txt': 'x\n', 'b/sub': 'x\n' },
    query: { globs: ['!sub/'] },
    expected: { files: ['b/sub'] },
  },
  {
    name: 'anchors a glob with a leading slash',
    files: { 'sub/a.txt': 'x\n', 'x/sub/a.txt': 'x\n' },
    query: { globs: ['/sub/*.txt'] },
    expected: { files: ['sub/a.txt'] },
  },
  {
    name: 'matches a directory at any depth with **/name/**',
    files: { 'sub/a.txt': 'x\n', 'x/sub/b/a.txt': 'x\n', 'other/a.txt': 'x\n' },
    query: { globs: ['**/sub/**'] },
    expected: { files: ['sub/a.txt', 'x/sub/b/a.txt'] },
  },
  {
    name: 'lets the last matching glob decide',
    files: { 'a.ts': 'x\n', 'a.test.ts': 'x\n', 'b.js': 'x\n' },
    query: { globs: ['*.ts', '!*.test.ts'] },
    expected: { files: ['a.ts'] },
  },
  {
    name: 'lets an including glob win over the type filter',
    files: { 'a.md': 'x\n', 'b.py': 'x\n', 'c.js': 'x\n' },
    query: { type: 'py', globs: ['*.md'] },
    expected: { files: ['a.md'] },
  },
  {
    name: 'combines a type with an excluding glob',
    files: { 'a.md': 'x\n', 'b.py': 'x\n', 'sub/c.py': 'x\n' },
    query: { type: 'py', globs: ['!sub'] },
    expected: { files: ['b.py'] },
  },
  {
    name: 'matches type globs with character classes and bare names',
    files: { Makefile: 'x\n', makefile: 'x\n', 'a.mk': 'x\n', 'b.c': 'x\n' },
    query: { type: 'make' },
    expected: { files: ['Makefile', 'a.mk', 'makefile'] },
  },
  {
    name: 'refuses an unknown type',
    files: { 'a.txt': 'x\n' },
    query: { type: 'klingon' },
    expected: { error: 'unrecognized file type: klingon' },
  },
  {
    name: 'refuses an invalid pattern',
    files: { 'a.txt': 'x\n' },
    query: { pattern: 'a(' },
    expected: { error: 'regex parse error' },
  },
  {
    name: 'refuses a literal line break outside multiline mode',
    files: { 'a.txt': 'a\nb\n' },
    query: { pattern: 'a\\nb' },
    expected: { error: 'the literal' },
  },
  {
    name: 'does not match $ before a carriage return',
    files: { 'a.txt': 'foo\r\nbar\n' },
    query: { pattern: 'foo$', mode: 'count' },
    expected: { counts: [] },
  },
  {
    name: 'keeps the carriage return of a CRLF line',
    files: { 'a.txt': 'foo\r\nbar\r\n' },
    query: { pattern: 'foo', mode: 'content' },
    expected: { lines: ['a.txt:1:foo\r'] },
  },
  {
    name: 'treats accented letters as word characters',
    files: { 'a.txt': 'café au lait\nnaïve\nplain\n' },
    query: { pattern: '\\bcafé\\b|\\w+ï\\w+', mode: 'content' },
    expected: { lines: ['a.txt:1:café au lait', 'a.txt:2:naïve'] },
  },
  {
    name: 'treats any Unicode decimal digit as \\d',
    files: { 'a.txt': '٣ arabic\n3 ascii\nnone\n' },
    query: { pattern: '^\\d', mode: 'content' },
    expected: { lines: ['a.txt:1:٣ arabic', 'a.txt:2:3 ascii'] },
  },
  {
    name: 'folds case beyond ASCII',
    files: { 'a.txt': 'ÉCOLE\nécole\n' },
    query: { pattern: 'école', ignoreCase: true, mode: 'content' },
    expected: { lines: ['a.txt:1:ÉCOLE', 'a.txt:2:école'] },
  },
  {
    name: 'reads a leading (?i) flag',
    files: { 'a.txt': 'FOO\nfoo\n' },
    query: { pattern: '(?i)foo', mode: 'count' },
    expected: { counts: ['a.txt:2'] },
  },
  {
    name: 'reads POSIX classes, named groups, stray brackets and escaped punctuation',
    files: { 'a.txt': '123\nk=v\na]b}\n#x\n' },
    query: { pattern: '^[[:digit:]]+$|(?P<key>\\w)=|a]b}|\\#x', mode: 'content' },
    expected: { lines: ['a.txt:1:123', 'a.txt:2:k=v', 'a.txt:3:a]b}', 'a.txt:4:#x'] },
  },
  {
    name: 'strips a UTF-8 byte order mark',
    files: { 'a.txt': Buffer.from([0xef, 0xbb, 0xbf, 0x66, 0x6f, 0x6f, 0x0a]) },
    query: { pattern: '^foo', mode: 'content' },
    expected: { lines: ['a.txt:1:foo'] },
  },
  {
    name: 'reads UTF-16 files that start with a byte order mark',
    files: {
      'a.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('one\nfoo two\n', 'utf16le')]),
    },
    query: { pattern: 'foo', mode: 'content' },
    expected: { lines: ['a.txt:2:foo two'] },
  },
  {
    name: 'counts every line for an empty pattern',
    files: { 'a.txt': 'a\n\nb\n', 'empty.txt': '' },
    query: { pattern: '', mode: 'count' },
    expected: { counts: ['a.txt:3'] },
  },
  {
    name: 'prints a last line that has no line break',
    files: { 'a.txt': 'a\nfoo' },
    query: { pattern: 'foo', mode: 'content', before: 1 },
    expected: { lines: ['a.txt-1-a', 'a.txt:2:foo'] },
  },
  {
    name: 'continues after-context through further matches',
    files: { 'a.txt': 'm\na\nm\nb\nc\nd\nm\n' },
    query: { pattern: 'm', mode: 'content', after: 1 },
    expected: { lines: ['a.txt:1:m', 'a.txt-2-a', 'a.txt:3:m', 'a.txt-4-b', '--', 'a.txt:7:m'] },
  },
  {
    name: 'separates files with -- when context is shown',
    files: { 'a.txt': 'x\n', 'b.txt': 'y\nx\n' },
    query: { mode: 'content', before: 1, lineNumbers: false },
    expected: { lines: ['a.txt:x', '--', 'b.txt-y', 'b.txt:x'] },
  },
  {
    name: 'counts multiline matches inside merged groups',
    files: { 'a.txt': 'ab\nab\nab\n' },
    query: { pattern: 'b\\na|b', multiline: true, mode: 'count' },
    expected: { counts: ['a.txt:3'] },
  },
  {
    name: 'counts lines in multiline mode when the pattern cannot match a line break',
    files: { 'a.txt': 'foo foo\nx\nfoo\n' },
    query: { pattern: 'foo', multiline: true, mode: 'count' },
    expected: { counts: ['a.txt:2'] },
  },
  {
    name: 'lets . match line breaks in multiline mode and merges touching matches',
    files: { 'a.txt': 'start\nfoo\nbar\nmid\nfoo\nbar baz foo\nbar\nend\n' },
    query: { pattern: 'foo.bar', multiline: true, mode: 'content', before: 1, after: 1 },
    expected: {
      lines: [
        'a.txt-1-start',
        'a.txt:2:foo',
        'a.txt:3:bar',
        'a.txt-4-mid',
        'a.txt:5:foo',
        'a.txt:6:bar baz foo',
        'a.txt:7:bar',
        'a.txt-8-end',
      ],
    },
  },
  {
    name: 'anchors ^ and $ at line breaks only in multiline mode',
    files: { 'a.txt': 'ab\r\ncd\nef\n' },
    query: { pattern: '^c|b$|f$', multiline: true, mode: 'content' },
    expected: { lines: ['a.txt:2:cd', 'a.txt:3:ef'] },
  },
  {
    name: 'cuts long lines by bytes to a preview of 500 graphemes',
    files: {
      'a.txt': [
        LONG_ASCII,
        SHORT_GRAPHEMES,
        CUT_AFTER_ACCENT,
        COMBINING,
        `ctx ${'y'.repeat(600)}`,
        'short foo',
        `${'a'.repeat(497)}foo`,
        `${'a'.repeat(496)}foo`,
        '',
      ].join('\n'),
    },
    query: { pattern: 'foo', mode: 'content', before: 1 },
    expected: {
      lines: [
        `a.txt:1:${LONG_ASCII.slice(0, 500)}${SUFFIX}`,
        `a.txt:2:${SHORT_GRAPHEMES}${SUFFIX}`,
        `a.txt:3:${'a'.repeat(499)}é${SUFFIX}`,
        `a.txt:4:${COMBINING}${SUFFIX}`,
        `a.txt-5-ctx ${'y'.repeat(496)}${SUFFIX}`,
        'a.txt:6:short foo',
        `a.txt:7:${'a'.repeat(497)}foo${SUFFIX}`,
        `a.txt:8:${'a'.repeat(496)}foo`,
      ],
    },
  },
];
