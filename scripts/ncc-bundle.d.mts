// Types of ncc-bundle.mjs, for bench/action-startup.ts.
export interface NccBuild {
  /** The entry, a project-relative .ts file. */
  entry: string;
  /** The folder its index.js and chunks go to. */
  out: string;
  format?: 'esm' | 'cjs';
}

export function nccBundle(options: {
  workDir: string;
  sources: string[];
  replace?: Record<
    string,
    (tools: {
      bundle: (entry: string, format: 'esm' | 'cjs') => Promise<string>;
    }) => Promise<string>
  >;
  builds: NccBuild[];
}): Promise<{ modules: Set<string> }>;

export function licenses(files: Iterable<string>): string;

export function shareChunks(shared: string, dirs: string[]): string[];
