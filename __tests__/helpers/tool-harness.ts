/**
 * Test support for tools: a real temp workspace, a real ToolContext, and a runner that takes a
 * tool through parse → validateInput → call → result mapping the way the pipeline does (without
 * permissions or hooks, which have their own tests).
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FileStateCache } from '../../src/tools/file-state.js';
import type { Tool, ToolContext, ToolProgress } from '../../src/tools/tool.js';
import { toolUseError } from '../../src/tools/tool.js';
import type { ToolResultBlock } from '../../src/model/types.js';
import { buildChildEnv } from '../../src/util/child-env.js';

export interface Workspace {
  root: string;
  path(relative: string): string;
  write(relative: string, content: string | Buffer): Promise<string>;
  cleanup(): void;
}

export function makeWorkspace(prefix = 'ci-agent-test-'): Workspace {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return {
    root,
    path: (relative) => join(root, relative),
    async write(relative, content) {
      const target = join(root, relative);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
      return target;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function makeContext(
  workspace: Workspace,
  overrides: Partial<ToolContext> = {},
): ToolContext {
  return {
    projectDir: workspace.root,
    workspaceRoots: [workspace.root],
    shell: { cwd: workspace.root },
    fileState: new FileStateCache(),
    signal: new AbortController().signal,
    toolUseId: 'toolu_test',
    env: buildChildEnv(process.env),
    ripgrepPath: null,
    ...overrides,
  };
}

export interface ToolRun {
  block: ToolResultBlock;
  /** The structured output, when call() ran. */
  data?: unknown;
  progress: ToolProgress[];
  /** Text of the result block (text parts joined). */
  text: string;
}

/** Runs one call like the pipeline does, minus permissions and hooks. */
export async function runTool(
  tool: Tool,
  input: unknown,
  context: ToolContext,
  options: { internal?: boolean } = {},
): Promise<ToolRun> {
  const schema = options.internal ? tool.internalInputSchema : tool.inputSchema;
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    return errorRun(toolUseError(`InputValidationError: ${parsed.error.message}`));
  }
  const validation = await tool.validateInput(parsed.data, context);
  if (!validation.result) return errorRun(toolUseError(validation.message));
  const progress: ToolProgress[] = [];
  const generator = tool.call(parsed.data, context);
  for (;;) {
    const step = await generator.next();
    if (step.done) {
      const block = tool.mapToolResultToToolResultBlockParam(step.value.data, context.toolUseId);
      return { block, data: step.value.data, progress, text: blockText(block) };
    }
    progress.push(step.value);
  }
}

function errorRun(content: string): ToolRun {
  const block: ToolResultBlock = {
    type: 'tool_result',
    tool_use_id: 'toolu_test',
    content,
    is_error: true,
  };
  return { block, progress: [], text: content };
}

export function blockText(block: ToolResultBlock): string {
  if (typeof block.content === 'string') return block.content;
  return block.content
    .map((part) => (part.type === 'text' ? part.text : `[${part.type}]`))
    .join('\n');
}
