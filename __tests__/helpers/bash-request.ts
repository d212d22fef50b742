/**
 * A Bash call's decision request as the Bash tool's checkPermissions builds it for the floors
 * (src/tools/builtin/bash.ts): its file operands, and what it may write when not read-only.
 */
import type { DecisionRequest } from '../../src/permissions/decide.js';
import { bashFileOperands } from '../../src/tools/builtin/bash/file-operands.js';
import { possibleWrites } from '../../src/tools/builtin/bash/possible-writes.js';
import { isReadOnlyCommand } from '../../src/tools/builtin/bash/read-only.js';

export function bashDecisionRequest(
  command: string,
  { projectDir, homeDir }: { projectDir: string; homeDir: string },
): DecisionRequest {
  const context = { cwd: projectDir, homeDir, env: {} };
  const readOnly = isReadOnlyCommand(command);
  const fileOperands = bashFileOperands(command, context);
  const mayWrite = readOnly ? [] : possibleWrites(command, context);
  return {
    toolName: 'Bash',
    aliases: [],
    request: {
      access: readOnly ? 'read' : 'execute',
      ruleContent: command,
      ...(fileOperands.length > 0 && { fileOperands }),
      ...(mayWrite.length > 0 && { mayWrite }),
    },
    readOnly,
    requiresUserInteraction: false,
    projectDir,
    homeDir,
  };
}
