/** What Read, Write and Edit ask of the policy: the absolute path, and its symlink target. */
import { expandPath, permissionPaths } from '../../paths.js';
import type { PermissionRequest, ToolContext } from '../../tool.js';

export function filePermissionRequest(
  filePath: string,
  context: ToolContext,
  access: 'read' | 'edit',
): PermissionRequest {
  const path = expandPath(filePath, context.projectDir);
  return { access, ruleContent: path, paths: permissionPaths(path) };
}
