// Bundles the entry points into dist/ with @vercel/ncc, so the action and the CLI start without
// installing anything at run time:
//   dist/index.js (the action), dist/cli/index.js (the CLI), dist/demo/index.js (npm run demo),
//   each with ncc's chunks beside it (N.index.js: what loads on demand, like the artifact client),
//   and the Bedrock and Vertex AI SDKs, each a bundle of its own in a folder beside each entry
//   (bedrock-sdk/index.js, vertex-sdk/index.js), which src/model/provider-sdks.ts imports at run
//   time past webpack: bundled with an entry, they would keep every resource of the Anthropic SDK
//   in it (webpack counts used exports over a whole build), +0.27 MB that every run parses,
//   dist/licenses.txt (the licenses of every bundled package, for the three bundles).
// ncc makes one bundle per entry, so the CLI and the demo each carry their own copy of the engine.
// A chunk of the demo that is byte for byte one of the action's (webpack's module and chunk ids
// are hashes of the module paths, so the same lazy part makes the same file) becomes a one-line
// re-export of the action's: the artifact client, turndown, the Markdown parser and secretlint
// are in dist/ once (sizes in docs/BENCHMARKS.md, "The action's start-up"). The CLI's chunks stay
// its own: dist/cli/ is the npm package's whole program (package.json `files`), which must not
// reach into the action's files (__tests__/scripts/npm-pack.test.ts).
import { execaSync } from 'execa';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { licenses, nccBundle, shareChunks } from './ncc-bundle.mjs';

// CI_AGENT_DIST: build elsewhere (a benchmark of a work-in-progress tree, the tests), never in CI.
const OUT = process.env.CI_AGENT_DIST ?? 'dist';

// Each provider SDK's folder (beside every entry) and the module bundled there.
const PROVIDER_SDKS = {
  'bedrock-sdk': 'src/model/bedrock-sdk.ts',
  'vertex-sdk': 'src/model/vertex-sdk.ts',
};
const ENTRIES = [
  { entry: 'src/index.ts', out: OUT },
  { entry: 'src/cli/index.ts', out: join(OUT, 'cli') },
  { entry: 'src/demo/index.ts', out: join(OUT, 'demo') },
];

rmSync(OUT, { recursive: true, force: true });
const { modules, bundled } = await nccBundle({
  workDir: '.build-tmp/dist',
  sources: ['src'],
  replace: {
    // The built-in search's worker thread runs from a string (worker-source.ts): no file to find.
    'src/tools/builtin/search/worker-source.ts': async ({ bundle }) => {
      const worker = await bundle('src/tools/builtin/search/search-worker.ts', 'cjs');
      return `export const searchWorkerSource = () => Promise.resolve(${JSON.stringify(worker)});\n`;
    },
    // The built-in tools' JSON Schemas, converted from their zod schemas here rather than at
    // every start (json-schemas.ts).
    'src/tools/builtin/json-schemas.ts': () => {
      const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
      const { stdout } = execaSync(tsx, ['scripts/tool-schemas.ts']);
      const schemas = JSON.parse(stdout);
      if (Object.keys(schemas).length === 0) throw new Error('build: no built-in tool schemas');
      return Promise.resolve(`export const builtJsonSchemas = ${JSON.stringify(schemas)};\n`);
    },
    // The SDKs from the folders beside the bundle that runs this (webpackIgnore: left to Node).
    'src/model/provider-sdks.ts': () =>
      Promise.resolve(
        [
          `export const loadBedrockSdk = () => import(/* webpackIgnore: true */ './bedrock-sdk/index.js');`,
          `export const loadVertexSdk = () => import(/* webpackIgnore: true */ './vertex-sdk/index.js');`,
          '',
        ].join('\n'),
      ),
  },
  builds: [
    ...ENTRIES,
    ...Object.entries(PROVIDER_SDKS).map(([name, entry]) => ({ entry, out: join(OUT, name) })),
  ],
});
for (const { entry, out } of ENTRIES) {
  const sdk = [...bundled.get(out)].find((file) =>
    /[\\/]node_modules[\\/]@anthropic-ai[\\/](bedrock|vertex)-sdk[\\/]/.test(file),
  );
  if (sdk)
    throw new Error(
      `build: ${entry} bundles ${sdk}; the provider SDKs load from their own bundles`,
    );
}

mkdirSync(OUT, { recursive: true });
// ncc writes one per bundle; one file for all three, since the entries sit in one package.
for (const dir of ['cli', 'demo', ...Object.keys(PROVIDER_SDKS)]) {
  rmSync(join(OUT, dir, 'package.json'), { force: true });
}
// The same bytes for each entry: the CLI gets a copy (dist/cli/ is the npm package's whole
// program), the demo a re-export of the action's.
for (const name of Object.keys(PROVIDER_SDKS)) {
  cpSync(join(OUT, name), join(OUT, 'cli', name), { recursive: true });
  mkdirSync(join(OUT, 'demo', name), { recursive: true });
  writeFileSync(join(OUT, 'demo', name, 'index.js'), `export * from '../../${name}/index.js';\n`);
}
shareChunks(OUT, [join(OUT, 'demo')]);
writeFileSync(join(OUT, 'package.json'), '{ "type": "module" }\n');
writeFileSync(join(OUT, 'licenses.txt'), licenses(modules));
