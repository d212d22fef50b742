// Bundles the entry points into dist/ with @vercel/ncc, so the action and the CLI start without
// installing anything at run time:
//   dist/index.js (the action), dist/cli/index.js (the CLI), dist/demo/index.js (npm run demo),
//   each with ncc's chunks beside it (N.index.js: what loads on demand, like the artifact client),
//   dist/licenses.txt (the licenses of every bundled package, for the three bundles).
// ncc makes one bundle per entry, so the CLI and the demo each carry their own copy of the engine.
// A chunk of the demo that is byte for byte one of the action's (webpack's module and chunk ids
// are hashes of the module paths, so the same lazy part makes the same file) becomes a one-line
// re-export of the action's: the artifact client, turndown, the Markdown parser and secretlint
// are in dist/ once (sizes in docs/BENCHMARKS.md, "The action's start-up"). The CLI's chunks stay
// its own: dist/cli/ is the npm package's whole program (package.json `files`), which must not
// reach into the action's files (__tests__/scripts/npm-pack.test.ts).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { licenses, nccBundle, shareChunks } from './ncc-bundle.mjs';

// CI_AGENT_DIST: build elsewhere (a benchmark of a work-in-progress tree, the tests), never in CI.
const OUT = process.env.CI_AGENT_DIST ?? 'dist';

rmSync(OUT, { recursive: true, force: true });
const { modules } = await nccBundle({
  workDir: '.build-tmp/dist',
  sources: ['src'],
  replace: {
    // The built-in search's worker thread runs from a string (worker-source.ts): no file to find.
    'src/tools/builtin/search/worker-source.ts': async ({ bundle }) => {
      const worker = await bundle('src/tools/builtin/search/search-worker.ts', 'cjs');
      return `export const searchWorkerSource = () => Promise.resolve(${JSON.stringify(worker)});\n`;
    },
  },
  builds: [
    { entry: 'src/index.ts', out: OUT },
    { entry: 'src/cli/index.ts', out: join(OUT, 'cli') },
    { entry: 'src/demo/index.ts', out: join(OUT, 'demo') },
  ],
});

mkdirSync(OUT, { recursive: true });
// ncc writes one per bundle; one file for all three, since the entries sit in one package.
for (const dir of ['cli', 'demo']) rmSync(join(OUT, dir, 'package.json'), { force: true });
shareChunks(OUT, [join(OUT, 'demo')]);
writeFileSync(join(OUT, 'package.json'), '{ "type": "module" }\n');
writeFileSync(join(OUT, 'licenses.txt'), licenses(modules));
