// Bundles each entry point into one self-contained file under dist/ with @vercel/ncc,
// so the action and the CLI start without installing anything at run time.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

const entries = [
  ['src/index.ts', 'dist'],
  ['src/cli/index.ts', 'dist/cli'],
  ['src/demo/index.ts', 'dist/demo'],
];

rmSync('dist', { recursive: true, force: true });
for (const [entry, outDir] of entries) {
  execFileSync(
    'npx',
    [
      'ncc',
      'build',
      entry,
      '-o',
      outDir,
      '--minify',
      '--no-source-map-register',
      '--license',
      'licenses.txt',
      '--quiet',
    ],
    {
      stdio: 'inherit',
    },
  );
}
