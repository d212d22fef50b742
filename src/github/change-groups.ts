/**
 * Vendored, generated and dependency files, told apart by path alone (no `.gitattributes`: the
 * agent may have written it). A reviewer reads the source a change touches; a committed
 * `node_modules/` or a regenerated lock file would take the whole diff budget, so the report
 * counts such files per group instead of showing them (issue 12, item 7).
 */

export interface ChangeGroup {
  /** How the report names the group, e.g. `node_modules/`. */
  label: string;
  /** Why it is not shown: what kind of file it is. */
  kind: string;
  matches: (path: string) => boolean;
}

const LOCK_FILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'Cargo.lock',
  'Gemfile.lock',
  'composer.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'go.sum',
  'flake.lock',
  'packages.lock.json',
]);

const segments = (path: string) => path.split('/');
const basename = (path: string) => segments(path).at(-1) ?? path;

/** In the order the report lists them; a path belongs to the first group that matches. */
export const CHANGE_GROUPS: readonly ChangeGroup[] = [
  {
    label: 'node_modules/',
    kind: 'installed dependencies',
    matches: (path) => segments(path).slice(0, -1).includes('node_modules'),
  },
  {
    label: 'vendor/',
    kind: 'vendored code',
    matches: (path) =>
      segments(path)
        .slice(0, -1)
        .some((part) => part === 'vendor' || part === 'third_party' || part === 'third-party'),
  },
  {
    label: 'dist/, build/',
    kind: 'build output',
    matches: (path) => /^(?:dist|build|out)\//.test(path),
  },
  {
    label: 'lock files',
    kind: 'generated dependency locks',
    matches: (path) => LOCK_FILES.has(basename(path)),
  },
  {
    label: '*.min.js, *.min.css, *.map',
    kind: 'minified files and source maps',
    matches: (path) => /\.min\.(?:js|css|mjs)$|\.(?:js|css)\.map$/.test(basename(path)),
  },
];

export function changeGroupOf(path: string): ChangeGroup | undefined {
  return CHANGE_GROUPS.find((group) => group.matches(path));
}

/** A patch cut before each `diff --git ` line, each piece with the path it changes. */
export function diffSections(patch: string): Array<{ path: string; text: string }> {
  const starts = [...patch.matchAll(/^diff --git /gm)].map((match) => match.index);
  if (starts.length === 0) return patch === '' ? [] : [{ path: '', text: patch }];
  const bounds = [0, ...starts.filter((start) => start > 0), patch.length];
  return bounds.slice(0, -1).map((start, index) => {
    const text = patch.slice(start, bounds[index + 1]);
    return { path: headerPath(text.split('\n', 1)[0] ?? ''), text };
  });
}

/**
 * The new path of `diff --git a/X b/Y`: what follows the last ` b/` (or ` "b/` when git quoted
 * it). Good enough to tell groups apart; the file table names files from git's numstat.
 */
function headerPath(header: string): string {
  const quoted = header.lastIndexOf(' "b/');
  if (quoted !== -1) return header.slice(quoted + 4).replace(/"$/, '');
  const plain = header.lastIndexOf(' b/');
  return plain === -1 ? '' : header.slice(plain + 3);
}
