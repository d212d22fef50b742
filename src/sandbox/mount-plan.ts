/**
 * What the sandbox sees of the file system, as a list of mounts in the order bubblewrap makes
 * them, and the questions the file tools ask of the same plan (`isHidden`, `isWritable`), so that
 * Read, Grep, Glob, Write and Edit, which run in ci-agent's own process, keep to the boundary that
 * the kernel holds for everything the agent runs.
 *
 * The order, each step over the one before (a later mount shadows an earlier one):
 *   1. the whole file system, read-only (`/`): the toolchains, wherever a runner keeps them;
 *   2. a new /dev (null, zero, random, tty, shm) and a /proc of the sandbox's own PID namespace:
 *      no /proc/<pid>/environ, cmdline, mem or maps of any process outside;
 *   3. hidden, each an empty tmpfs: the home directory (credentials: ~/.git-credentials, ~/.ssh,
 *      ~/.npmrc, ~/.docker, cloud CLIs), /run and /var/run (the docker socket, D-Bus, systemd),
 *      the runner's own directories (its temp folder with the file-command files, the runner's
 *      installation with its credentials, the other actions' code), and what the policy denies;
 *   4. brought back read-only: tool folders under the home that hold programs and no credentials
 *      (`~/.local/bin`, `~/.cargo/bin`, `~/.rustup`, `~/.dotnet/tools`), the runner's tool cache,
 *      and what the policy lets the sandbox read;
 *   5. writable: a private /tmp, then the workspace (and the other workspace roots) and the
 *      caches the policy names;
 *   6. each directory between a writable root and a path step 7 keeps read-only, bound onto
 *      itself (writable as before): a mount point cannot be renamed or removed (EBUSY), so no
 *      process can move `.github` or `.git` aside and put a directory of its own in their place;
 *   7. read-only again inside the writable places: the judges (policy and settings files, hook
 *      scripts, `.claude/`, `.mcp.json`, `.github/workflows`, `.github/actions`), the repository's
 *      `.git/config` and `.git/hooks` (and each submodule git directory's, and each submodule's
 *      `.git` file), and what the policy keeps from writes;
 *   8. hidden files, /dev/null bound over each, read-only (a host device, which nothing in the
 *      sandbox's user namespace may open): the model provider's credential files, wherever they
 *      are in sight (google-github-actions/auth writes its own into the workspace).
 *
 * Pure: paths in, mounts out. Which of the paths exist is the caller's to find out (sandbox.ts);
 * a path that does not exist is left out (bubblewrap cannot mount over nothing; the judges that
 * do not exist are kept so by absent-judges.ts).
 */
import { dirname, relative, sep } from 'node:path';
import { isInside } from '../tools/paths.js';

export type Mount =
  | { kind: 'ro-bind'; source: string; target: string }
  | { kind: 'bind'; source: string; target: string }
  /** Empty; read-only once every mount is made (the home stays writable: a call's scratch). */
  | { kind: 'tmpfs'; target: string; readOnly: boolean }
  /** A file nothing inside can open or change: /dev/null bound over it, read-only. */
  | { kind: 'hide-file'; target: string }
  | { kind: 'dev'; target: string }
  | { kind: 'proc'; target: string };

export interface MountPlanInput {
  /** Writable, in this order: the workspace first. Real paths. */
  workspaceRoots: readonly string[];
  /** The private temporary folder, mounted at /tmp. */
  privateTmp: string;
  /** Hidden whole, as a writable scratch folder per call; absent when there is none. */
  home: string | undefined;
  /** Step 3: hidden whole (the runner's folders, /run, the policy's denyRead). */
  hidden: readonly string[];
  /** Step 4: read-only inside what is hidden (tool folders, the tool cache, allowRead). */
  readable: readonly string[];
  /** Step 5: writable besides the workspace (the policy's allowWrite: caches). */
  writable: readonly string[];
  /** Step 7: read-only inside the writable places (judges, .git/config, denyWrite). */
  readOnly: readonly string[];
  /** Files and folders bound in as they are (the network proxy's socket). */
  passThrough?: readonly string[];
  /** Step 8: files hidden where the rest would show them (credential files). Real paths. */
  hiddenFiles?: readonly string[];
}

export interface MountPlan {
  mounts: readonly Mount[];
  /** Whether a path (real, absolute) is out of the sandbox's sight. */
  isHidden(path: string): boolean;
  /** Whether the sandbox could write to a path (real, absolute). */
  isWritable(path: string): boolean;
  /** Where a path as the sandbox names it is in this process's view (/tmp is the private one). */
  hostPath(path: string): string;
}

/** Folders no process in the sandbox sees into, whatever the policy says. */
export const ALWAYS_HIDDEN = ['/run', '/var/run'] as const;
/** Kernel interfaces the file tools never read from, as the sandbox's own /proc and /dev differ. */
const KERNEL_VIEWS = ['/proc', '/sys', '/dev'] as const;

export function buildMountPlan(input: MountPlanInput): MountPlan {
  const writable = unique([...input.workspaceRoots, ...input.writable]);
  // Under /tmp the sandbox sees only its private folder: what is there needs no hiding (and a
  // mount there would land on nothing), unless a writable root brings it back into sight.
  const hidden = unique([...(input.home ? [input.home] : []), ...input.hidden]).filter(
    (path) => !isInside(path, '/tmp') || writable.some((root) => isInside(path, root)),
  );
  const readOnly = unique(input.readOnly).filter((path) =>
    writable.some((root) => isInside(path, root)),
  );
  const pinned = pinnedAncestors(readOnly, writable);
  const writableTargets = new Set([...writable, ...pinned]);
  // /tmp before the workspace roots: a workspace in /tmp (a temp checkout) stays in sight.
  const privateTmp: Mount = { kind: 'bind', source: input.privateTmp, target: '/tmp' };
  const mounts: Mount[] = [
    { kind: 'ro-bind', source: '/', target: '/' },
    { kind: 'dev', target: '/dev' },
    { kind: 'proc', target: '/proc' },
    // Outer folders first: a hidden folder inside another (the runner's temp folder in its work
    // folder, both in the home on GitHub-hosted runners) gets its mount point in the outer
    // tmpfs; mounted before it, it would be covered, and making it read-only would then fail.
    ...outerFirst(hidden).map((target): Mount => ({
      kind: 'tmpfs',
      target,
      readOnly: target !== input.home,
    })),
    privateTmp,
    ...unique(input.readable).map((path): Mount => ({
      kind: 'ro-bind',
      source: path,
      target: path,
    })),
    ...[...writable, ...pinned].map((path): Mount => ({
      kind: 'bind',
      source: path,
      target: path,
    })),
    // What is hidden inside a writable place (a runner's temp folder in the workspace) stays so.
    ...hidden
      .filter((path) => writable.some((root) => path !== root && isInside(path, root)))
      .map((target): Mount => ({ kind: 'tmpfs', target, readOnly: true })),
    ...readOnly.map((path): Mount => ({ kind: 'ro-bind', source: path, target: path })),
    ...(input.passThrough ?? []).map((path): Mount => ({
      kind: 'bind',
      source: path,
      target: path,
    })),
  ];
  // Only where something would show them: a mount inside a hidden folder lands on nothing.
  for (const file of unique(input.hiddenFiles ?? [])) {
    const over = decisiveOf(mounts, file);
    if (over !== undefined && over.kind !== 'tmpfs' && over !== privateTmp)
      mounts.push({ kind: 'hide-file', target: file });
  }
  const decisive = (path: string): Mount | undefined => decisiveOf(mounts, path);
  const inPrivateTmp = (path: string) => isInside(path, input.privateTmp);
  const isHidden = (path: string): boolean => {
    if (inPrivateTmp(path)) return false;
    if (KERNEL_VIEWS.some((view) => isInside(path, view))) return true;
    const mount = decisive(path);
    // Under /tmp the sandbox sees its private folder, not this process's /tmp.
    return (
      mount === undefined ||
      mount.kind === 'tmpfs' ||
      mount.kind === 'hide-file' ||
      mount === privateTmp
    );
  };
  const isWritable = (path: string): boolean => {
    if (inPrivateTmp(path)) return true;
    if (isHidden(path)) return false;
    const mount = decisive(path);
    return mount?.kind === 'bind' && writableTargets.has(mount.target);
  };
  const hostPath = (path: string): string => {
    if (decisive(path) !== privateTmp) return path;
    const rest = relative('/tmp', path);
    return rest === '' ? input.privateTmp : `${input.privateTmp}${sep}${rest}`;
  };
  return { mounts, isHidden, isWritable, hostPath };
}

/**
 * Step 6: the directories strictly between each read-only path and the deepest writable root
 * that holds it, parents first (a mount made later over a parent would hide the child's).
 * Real paths: every one of them is a directory, as the read-only path below it exists.
 */
function pinnedAncestors(readOnly: readonly string[], writable: readonly string[]): string[] {
  const pinned = new Set<string>();
  for (const path of readOnly) {
    const root = writable
      .filter((candidate) => isInside(path, candidate))
      .reduce((deepest, candidate) => (candidate.length > deepest.length ? candidate : deepest));
    for (let parent = dirname(path); parent !== root && isInside(parent, root);) {
      pinned.add(parent);
      parent = dirname(parent);
    }
  }
  return [...pinned].sort((a, b) => a.split(sep).length - b.split(sep).length);
}

/**
 * The deepest mount over a path decides what the sandbox sees there; among equally deep ones,
 * the later (they are made in order).
 */
function decisiveOf(mounts: readonly Mount[], path: string): Mount | undefined {
  let best: Mount | undefined;
  let bestDepth = -1;
  for (const mount of mounts) {
    if (!isInside(path, mount.target)) continue;
    const depth = mount.target === '/' ? 0 : mount.target.split('/').length;
    if (depth >= bestDepth) {
      best = mount;
      bestDepth = depth;
    }
  }
  return best;
}

/**
 * bubblewrap's arguments for the mounts, in order. A read-only tmpfs is made read-only last:
 * the mounts inside it need their mount points made first.
 */
export function mountArguments(mounts: readonly Mount[]): string[] {
  const readOnlyLast = mounts.flatMap((mount) =>
    mount.kind === 'tmpfs' && mount.readOnly ? ['--remount-ro', mount.target] : [],
  );
  return [...mountSteps(mounts), ...readOnlyLast];
}

function mountSteps(mounts: readonly Mount[]): string[] {
  return mounts.flatMap((mount) => {
    switch (mount.kind) {
      case 'ro-bind':
        return ['--ro-bind', mount.source, mount.target];
      case 'bind':
        return ['--bind', mount.source, mount.target];
      case 'tmpfs':
        return ['--tmpfs', mount.target];
      case 'hide-file':
        return ['--ro-bind', '/dev/null', mount.target];
      case 'dev':
        return ['--dev', mount.target];
      case 'proc':
        return ['--proc', mount.target];
    }
  });
}

/** Shallower paths before deeper ones; otherwise in the order given. */
function outerFirst(paths: readonly string[]): string[] {
  const depth = (path: string) => path.split(sep).filter(Boolean).length;
  return [...paths].sort((a, b) => depth(a) - depth(b));
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}
