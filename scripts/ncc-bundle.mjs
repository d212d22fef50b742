// Bundles TypeScript entry points with @vercel/ncc, one build per entry, each into a folder of its
// own: the entry as index.js, and ncc's chunks (one per dynamic import()) beside it as N.index.js,
// loaded only when that import() runs. Used by scripts/build.mjs (dist/) and by
// bench/action-startup.ts (the library floor, bundled the same way).
//
// The steps, and why each is there:
// 1. tsc compiles the sources to ES modules in WORK_DIR (no type check: `npm run typecheck` does
//    that). ncc's own TypeScript pass transpiles file by file, and with the project's
//    `module: NodeNext` a file on its own compiles to CommonJS, where `await` at the top is an
//    error; type-checking the whole program instead takes a minute per entry.
// 2. `replace` swaps compiled modules for generated ones (the build puts the search worker's source
//    in as a string): what esbuild's `define` did, at the module level.
// 3. ncc bundles each entry; its minify mangles the entry only, so terser minifies the entry and
//    every chunk, in ASCII only (minifyModule says why).
// WORK_DIR sits at a fixed place inside the project: webpack's module ids are hashes of module
// paths relative to the working directory, so the same tree must compile at the same relative
// paths for a rebuild to match the committed dist/ byte for byte.
import { execaSync } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import ncc from '@vercel/ncc';
import { minify } from 'terser';

const require = createRequire(import.meta.url);
const ROOT = resolve(import.meta.dirname, '..');
// ES2023 as tsconfig.json's target; the action runs node24, the CLI needs node >= 20.19.
const TARGET = 'es2023';

/**
 * @param {object} options
 * @param {string} options.workDir where tsc writes, relative to the project (removed afterwards)
 * @param {string[]} options.sources what tsc compiles (project-relative files or folders)
 * @param {Record<string, (tools: { bundle: (entry: string, format: 'esm' | 'cjs') => Promise<string> }) => Promise<string>>} [options.replace]
 *   compiled module (project-relative .ts path) → its new source; `bundle` makes one file of an
 *   entry (e.g. a worker's source, to put in as a string)
 * @param {{ entry: string, out: string, format?: 'esm' | 'cjs' }[]} options.builds
 *   each entry (project-relative .ts) and the folder its bundle goes to
 * @returns {Promise<{ modules: Set<string>, bundled: Map<string, Set<string>> }>} every file
 *   bundled (absolute paths), for the licenses; and each build's (by its `out`)
 */
export async function nccBundle({ workDir, sources, replace = {}, builds }) {
  const work = resolve(ROOT, workDir);
  if (relative(ROOT, work).startsWith('..') || isAbsolute(relative(ROOT, work))) {
    throw new Error(`nccBundle: workDir "${workDir}" must be inside the project (${ROOT})`);
  }
  const cwd = process.cwd();
  const modules = new Set();
  const bundled = new Map();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    compile(work, sources);
    // ncc resolves and names modules relative to the working directory (see above).
    process.chdir(ROOT);
    /** One entry bundled into one file: its code. */
    const bundle = async (entry, format) => {
      const { code, assets } = await build(work, entry, format, modules);
      if (Object.keys(assets).length > 0) {
        throw new Error(
          `ncc: ${entry} must bundle into one file, but it emits ${Object.keys(assets).join(', ')}`,
        );
      }
      return code;
    };
    for (const [source, make] of Object.entries(replace)) {
      writeFileSync(compiledPath(work, source), await make({ bundle }));
    }
    for (const { entry, out, format = 'esm' } of builds) {
      const dir = resolve(cwd, out);
      const own = new Set();
      const { code, assets } = await build(work, entry, format, own);
      for (const file of own) modules.add(file);
      bundled.set(out, own);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'index.js'), code);
      for (const [name, source] of Object.entries(assets)) {
        const file = resolve(dir, name);
        if (relative(dir, file).startsWith('..')) {
          throw new Error(`ncc: ${entry} emits the asset "${name}" outside ${dir}`);
        }
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, source);
      }
    }
    return { modules, bundled };
  } finally {
    process.chdir(cwd);
    rmSync(work, { recursive: true, force: true });
  }
}

/** ncc on one compiled entry: the minified entry, and its assets (chunks minified too). */
async function build(work, entry, format, modules) {
  const result = await ncc(compiledPath(work, entry), {
    esm: format === 'esm',
    cache: false,
    quiet: true,
    minify: false,
    target: TARGET,
  });
  if (Object.keys(result.symlinks ?? {}).length > 0) {
    throw new Error(
      `ncc: ${entry} bundles symlinks (${Object.keys(result.symlinks).join(', ')}); not expected`,
    );
  }
  for (const file of bundledFiles(result.stats.compilation)) modules.add(file);
  const assets = {};
  for (const [name, asset] of Object.entries(result.assets)) {
    assets[name] = name.endsWith('.js')
      ? await minifyModule(String(asset.source), format, `${entry}: ${name}`)
      : asset.source;
  }
  return { code: await minifyModule(result.code, format, entry), assets };
}

/** tsc: the sources as ES modules under `work`, at their project-relative paths. */
function compile(work, sources) {
  const config = join(work, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        noCheck: true,
        outDir: join(work, 'out'),
        rootDir: ROOT,
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      include: sources.map((source) => join(ROOT, source)),
    }),
  );
  // Bare imports resolve from the project's node_modules; ES module scope as in the project.
  writeFileSync(join(work, 'package.json'), '{ "type": "module" }\n');
  execaSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', config], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

function compiledPath(work, source) {
  const file = join(work, 'out', source.replace(/\.ts$/, '.js'));
  if (!existsSync(file)) throw new Error(`nccBundle: tsc did not write ${file} for ${source}`);
  return file;
}

/** Every file webpack bundled, including those concatenated into one module. */
function bundledFiles(compilation) {
  const files = [];
  const visit = (module) => {
    if (module.resource) files.push(module.resource.split('?')[0]);
    for (const inner of module.modules ?? []) visit(inner);
  };
  for (const module of compilation.modules) visit(module);
  return files;
}

async function minifyModule(code, format, what) {
  const result = await minify(code, {
    module: format === 'esm',
    ecma: 2020,
    compress: true,
    mangle: true,
    format: {
      // Licenses go to licenses.txt, whole.
      comments: false,
      // Non-ASCII characters as \u escapes: one such character anywhere makes Node decode the
      // whole file to a two-byte string, and V8 scan and parse it as one (+23 ms to the
      // action's first request, docs/BENCHMARKS.md).
      ascii_only: true,
    },
  });
  if (result.code === undefined) throw new Error(`terser produced nothing for ${what}`);
  return result.code;
}

/**
 * Each chunk in `dirs` that is byte for byte the chunk of the same name in `shared` becomes a
 * one-line re-export of it: webpack's module and chunk ids are hashes of module paths, so the same
 * lazy part of two builds makes the same file, and the chunk's exports (`id`, `ids`, `modules`)
 * are all that its loader reads. Returns the files replaced.
 */
export function shareChunks(shared, dirs) {
  const replaced = [];
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) {
      if (!/^\d+\.index\.js$/.test(name) || !existsSync(join(shared, name))) continue;
      if (!readFileSync(join(dir, name)).equals(readFileSync(join(shared, name)))) continue;
      const target = relative(dir, join(shared, name)).split(sep).join('/');
      writeFileSync(
        join(dir, name),
        `export * from '${target.startsWith('.') ? target : `./${target}`}';\n`,
      );
      replaced.push(join(dir, name));
    }
  }
  return replaced;
}

/** Every bundled npm package once, with its license text, sorted by name. */
export function licenses(files) {
  const roots = new Set();
  for (const file of files) {
    const root = packageRoot(file);
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
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const seen = new Set();
  return `${entries
    .filter((entry) => !seen.has(entry.name) && seen.add(entry.name))
    .map((entry) => entry.text)
    .join('\n\n')}\n`;
}

/** The directory of the npm package a bundled file belongs to, or undefined for our own code. */
function packageRoot(file) {
  const parts = file.split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at === -1) return undefined;
  let length = parts[at + 1]?.startsWith('@') ? 3 : 2;
  // A package's nested package.json (dist/esm/package.json with only "type") is not its manifest.
  let root = parts.slice(0, at + length).join(sep);
  while (!existsSync(join(root, 'package.json')) && length < parts.length - at) {
    length += 1;
    root = parts.slice(0, at + length).join(sep);
  }
  return existsSync(join(root, 'package.json')) ? root : undefined;
}
