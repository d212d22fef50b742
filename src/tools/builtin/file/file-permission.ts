/**
 * What Read, Write and Edit ask of the policy: the absolute path (the sandbox's /tmp is its
 * private folder: sandbox-reach.ts), and where it really leads.
 *
 * An edit's request is remembered for its input, so that the write can make sure the file it
 * opens is the one the decision judged: hooks and other processes run between the two, and may
 * have replaced a directory on the way by a link (no-follow-write.ts).
 */
import { permissionPaths, realPathOf } from '../../paths.js';
import type { PermissionRequest, ToolContext } from '../../tool.js';
import { toolPath } from './sandbox-reach.js';

const judged = new WeakMap<object, { path: string; location: string }>();

export function filePermissionRequest(
  filePath: string,
  context: ToolContext,
  access: 'read' | 'edit',
): PermissionRequest {
  const path = toolPath(filePath, context);
  return { access, ruleContent: path, paths: permissionPaths(path) };
}

/** filePermissionRequest for an edit, remembering where the path led for `input`'s write. */
export function editPermissionRequest(
  input: object,
  filePath: string,
  context: ToolContext,
): PermissionRequest {
  const request = filePermissionRequest(filePath, context, 'edit');
  const [path, real] = request.paths ?? [];
  if (path !== undefined) judged.set(input, { path, location: real ?? path });
  return request;
}

/**
 * Where the permission decision saw `path` lead for this input; for a call made without one (a
 * test, a caller outside the pipeline), where it leads now.
 */
export function judgedLocation(input: object, path: string): string {
  const seen = judged.get(input);
  return seen?.path === path ? seen.location : realPathOf(path);
}
