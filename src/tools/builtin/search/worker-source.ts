/**
 * The source of the search worker (search-worker.ts and what it imports), as one CommonJS script
 * for `new Worker(source, { eval: true })`. Running from source (tests, benchmarks), esbuild
 * bundles it on first use; the build (scripts/build.mjs) replaces this module with one that returns
 * the source ncc bundled, so the bundles neither import esbuild nor look for a file.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

let fromSource: Promise<string> | undefined;

export const searchWorkerSource = (): Promise<string> => (fromSource ??= bundleFromSource());

async function bundleFromSource(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [fileURLToPath(new URL('search-worker.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
    alias: { fdir: fdirForWorker() },
  });
  return result.outputFiles[0]!.text;
}

/**
 * fdir's CommonJS build, for the worker's bundle. Its ES module
 * build loads picomatch with `createRequire(import.meta.url)`, which a CommonJS bundle lacks; the
 * CommonJS build's plain `require` is bundled instead of being resolved at run time.
 */
function fdirForWorker(): string {
  return createRequire(import.meta.url).resolve('fdir');
}
