// Bundles the entry points into dist/ with esbuild, so the action and the CLI start without
// installing anything at run time:
//   dist/index.js (the action), dist/cli/index.js (the CLI), dist/demo/index.js (npm run demo),
//   dist/chunks/* (code they share, and what loads on demand, like the artifact client),
//   dist/licenses.txt (the licenses of every bundled package).
// esbuild rather than ncc: scope-hoisted ES modules load faster than webpack's module wrappers,
// unused exports are dropped, and the three entries share chunks instead of each carrying a copy
// (docs/BENCHMARKS.md, "The action's start-up").
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { build } from 'esbuild';

// CI_AGENT_DIST: build elsewhere (a benchmark of a work-in-progress tree), never in CI.
const OUT = process.env.CI_AGENT_DIST ?? 'dist';

rmSync(OUT, { recursive: true, force: true });
// The built-in search's worker thread runs from a string (worker-source.ts): no file to find.
const searchWorker = await build({
  entryPoints: ['src/tools/builtin/search/search-worker.ts'],
  bundle: true,
  write: false,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  // fdir's CommonJS build: its ES module one needs import.meta.url (see worker-source.ts).
  alias: { fdir: createRequire(import.meta.url).resolve('fdir') },
});
const result = await build({
  entryPoints: ['src/index.ts', 'src/cli/index.ts', 'src/demo/index.ts'],
  outbase: 'src',
  outdir: OUT,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  define: { __CI_AGENT_SEARCH_WORKER__: JSON.stringify(searchWorker.outputFiles[0].text) },
  // Only worker-source.ts imports it, in a branch the define above removes.
  external: ['esbuild'],
  // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none.
  banner: {
    js: "import { createRequire as __ciAgentCreateRequire } from 'node:module'; const require = __ciAgentCreateRequire(import.meta.url);",
  },
});

mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'package.json'), '{ "type": "module" }\n');
writeFileSync(join(OUT, 'licenses.txt'), licenses(result.metafile));

/** Every bundled package once, with its license text, sorted by name. */
function licenses(metafile) {
  const roots = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const root = packageRoot(input);
    if (root) roots.add(root);
  }
  const entries = [...roots].map((root) => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const file = readdirSync(root).find((name) => /^(licen[sc]e|copying)/i.test(name));
    // Line endings as the repository stores them (LF), so a rebuild matches the committed file.
    const text = file
      ? readFileSync(join(root, file), 'utf8').replaceAll('\r\n', '\n').trim()
      : '(no license file)';
    return { name: manifest.name, text: `${manifest.name}\n${manifest.license ?? ''}\n${text}` };
  });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  const seen = new Set();
  return `${entries
    .filter((entry) => !seen.has(entry.name) && seen.add(entry.name))
    .map((entry) => entry.text)
    .join('\n\n')}\n`;
}

/** The directory of the npm package an input file belongs to, or undefined for our own code. */
function packageRoot(input) {
  const parts = input.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at === -1) return undefined;
  const length = parts[at + 1]?.startsWith('@') ? 3 : 2;
  const root = parts.slice(0, at + length).join(sep);
  return existsSync(join(root, 'package.json')) ? relative('.', root) : dirname(root);
}
