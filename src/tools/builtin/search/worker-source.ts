/**
 * The source of the search worker (search-worker.ts and what it imports), as one CommonJS script
 * for `new Worker(source, { eval: true })`. The build puts it in the bundle as a string constant;
 * running from source (tests, benchmarks), esbuild bundles it on first use.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

declare const __CI_AGENT_SEARCH_WORKER__: string | undefined;

let fromSource: Promise<string> | undefined;

// A condition the build's define makes constant, so that the bundle keeps only the first branch.
export const searchWorkerSource: () => Promise<string> =
  typeof __CI_AGENT_SEARCH_WORKER__ === 'string'
    ? () => Promise.resolve(__CI_AGENT_SEARCH_WORKER__)
    : () => (fromSource ??= bundleFromSource());

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
 * fdir's CommonJS build, for the worker's bundle (scripts/build.mjs does the same). Its ES module
 * build loads picomatch with `createRequire(import.meta.url)`, which a CommonJS bundle lacks; the
 * CommonJS build's plain `require` is bundled instead of being resolved at run time.
 */
function fdirForWorker(): string {
  return createRequire(import.meta.url).resolve('fdir');
}
