/**
 * The file tools run in ci-agent's own process, outside the OS sandbox Bash runs in
 * (ToolContext.sandbox), and keep to the same boundary:
 *   - a path the model gives means what it means inside the sandbox: its /tmp is a private
 *     folder, so `/tmp/out.log` that a command wrote is found there (`toolPath`), and a path this
 *     process found there is shown to the model under /tmp again (`sandboxName`);
 *   - what the sandbox hides (kernel interfaces, the home directory's credentials, the runner's
 *     files) is not read, and what it may not write is not written, whether the path names it or
 *     a symbolic link on the way leads there (`readProblem`, `writeProblem`).
 * Without a sandbox each of these is the identity, or finds nothing to refuse.
 */
import { join, relative } from 'node:path';
import { expandPath, isInside, realPathOf } from '../../paths.js';
import type { ToolContext } from '../../tool.js';

/** The absolute path for this process of a path as the model gave it. */
export function toolPath(filePath: string, context: ToolContext): string {
  const path = expandPath(filePath, context.projectDir);
  return context.sandbox ? context.sandbox.hostPath(path) : path;
}

/** A path of this process's as the sandbox names it: under the private folder, /tmp/…. */
export function sandboxName(path: string, context: ToolContext): string {
  const privateTmp = privateTmpOf(context);
  if (privateTmp === undefined || !isInside(path, privateTmp)) return path;
  return join('/tmp', relative(privateTmp, path));
}

/** Every mention of the private folder in a text (a result line, a message) as /tmp. */
export function inSandboxTerms(text: string, context: ToolContext): string {
  const privateTmp = privateTmpOf(context);
  if (privateTmp === undefined) return text;
  return text.split(`${privateTmp}/`).join('/tmp/').split(privateTmp).join('/tmp');
}

/** Why `path` (absolute, this process's) may not be read in the sandbox; undefined if it may. */
export function readProblem(tool: string, path: string, context: ToolContext): string | undefined {
  const sandbox = context.sandbox;
  if (!sandbox) return undefined;
  const real = realPathOf(path);
  const hidden = [path, real].find((each) => sandbox.isHidden(each));
  if (hidden === undefined) return undefined;
  return `${tool} may not read ${describe(path, hidden, context)}: the sandbox keeps it out of reach of everything the agent runs (kernel interfaces, the home directory's credentials, the runner's files).`;
}

/** Why `path` may not be written in the sandbox (hidden or read-only there); undefined if it may. */
export function writeProblem(tool: string, path: string, context: ToolContext): string | undefined {
  const sandbox = context.sandbox;
  if (!sandbox) return undefined;
  const real = realPathOf(path);
  const hidden = [path, real].find((each) => sandbox.isHidden(each));
  if (hidden !== undefined) {
    return `${tool} may not write ${describe(path, hidden, context)}: the sandbox keeps it out of reach of everything the agent runs (kernel interfaces, the home directory's credentials, the runner's files).`;
  }
  const locked = [path, real].find((each) => !sandbox.isWritable(each));
  if (locked === undefined) return undefined;
  return `${tool} may not write ${describe(path, locked, context)}: the sandbox lets nothing the agent runs change it (only the workspace, /tmp and the caches the policy names are writable, and not the policy, settings, hooks or .git/config in them).`;
}

/** Folders the sandbox always shows differently from this process (mount-plan.ts). */
const NOT_AS_HERE = ['/proc', '/sys', '/dev', '/tmp'];

/**
 * What Glob and Grep leave out of a search of `root` (a folder they checked with readProblem):
 * what the Read deny rules cover (ToolContext.isReadDenied) and what the sandbox hides, such as
 * a denyRead folder in the workspace. The searches follow no links, so a file found under
 * `root` really is where `root` leads, plus its path below. Undefined: nothing to leave out.
 */
export function searchHides(
  root: string,
  context: ToolContext,
): ((path: string) => boolean) | undefined {
  const { sandbox, isReadDenied } = context;
  if (!sandbox) return isReadDenied;
  const realRoot = realPathOf(root);
  // readProblem refused a root the sandbox hides: only a mount below it can hide anything.
  const inside = (path: string) => isInside(path, realRoot);
  const mounts = sandbox.plan?.mounts;
  const hidesInside =
    mounts === undefined ||
    NOT_AS_HERE.some(inside) ||
    mounts.some(
      (mount) => (mount.kind === 'tmpfs' || mount.kind === 'hide-file') && inside(mount.target),
    );
  if (!hidesInside) return isReadDenied;
  const real = (path: string) =>
    realRoot === root || !isInside(path, root) ? path : join(realRoot, relative(root, path));
  return (path) => {
    if (isReadDenied?.(path) === true) return true;
    const leadsTo = real(path);
    return sandbox.isHidden(leadsTo) || (leadsTo !== path && sandbox.isHidden(path));
  };
}

function describe(path: string, refused: string, context: ToolContext): string {
  const shown = sandboxName(path, context);
  return refused === path ? shown : `${shown} (a symbolic link on the way leads to ${refused})`;
}

function privateTmpOf(context: ToolContext): string | undefined {
  const privateTmp = context.sandbox?.hostPath('/tmp');
  return privateTmp === undefined || privateTmp === '/tmp' ? undefined : privateTmp;
}
