/**
 * A small repository for the Grep engine tests: ignore files of every kind, hidden files, a
 * binary file, nested directories, and distinct modification times so that file listings have
 * one right order.
 */
import { mkdir, utimes } from 'node:fs/promises';
import type { Workspace } from '../../../helpers/tool-harness.js';

/** Oldest first: each file is one minute newer than the one before it. */
export const CORPUS: ReadonlyArray<readonly [string, string | Buffer]> = [
  ['.git/HEAD', 'needle in git internals\n'],
  ['.git/info/exclude', 'excluded-by-info.txt\n'],
  ['.gitignore', 'ignored.txt\nbuild/\n*.log\n!keep.log\n'],
  ['.ignore', 'ignored-by-dot-ignore.txt\n'],
  ['ignored-by-dot-ignore.txt', 'needle\n'],
  ['excluded-by-info.txt', 'needle\n'],
  ['ignored.txt', 'needle ignored\n'],
  ['debug.log', 'needle log\n'],
  ['keep.log', 'needle kept\n'],
  ['build/out.js', 'needle built\n'],
  ['bin/data.bin', Buffer.from('needle\0\u0001\u0002binary\n')],
  ['.env', 'NEEDLE=1\n'],
  ['.hidden/secret.txt', 'a needle in a hidden dir\n'],
  ['dash.txt', 'plain\n-v flag\n--verbose\n'],
  ['src/util.js', '// needle helper\nmodule.exports = {};\n'],
  ['src/nested/.gitignore', 'generated.ts\n'],
  ['src/nested/generated.ts', 'needle generated\n'],
  ['src/nested/deep.py', 'def needle():\n    pass\n'],
  [
    'src/app.ts',
    "import x from 'y';\nconst needle = 1;\nexport function findNeedle() {\n  return needle;\n}\n",
  ],
  [
    'docs/readme.md',
    '# Needle\n\nThe needle is here.\nno match\nno match\nno match\nAnother needle line.\nend\n',
  ],
];

const BASE_SECONDS = 1_700_000_000;

export async function writeCorpus(workspace: Workspace): Promise<void> {
  await mkdir(workspace.path('.git'), { recursive: true });
  for (const [index, [relative, content]] of CORPUS.entries()) {
    const path = await workspace.write(relative, content);
    const seconds = BASE_SECONDS + index * 60;
    await utimes(path, seconds, seconds);
  }
}
