/**
 * The built-in tools: the one list to touch when adding a tool.
 */
import type { Tool } from '../tool.js';
import { agentTool } from './agent.js';
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { exitPlanModeTool } from './exit-plan-mode.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { builtJsonSchemas } from './json-schemas.js';
import { notebookEditTool } from './notebook-edit.js';
import { readTool } from './read.js';
import { todoWriteTool } from './todo-write.js';
import { webFetchTool } from './web-fetch.js';
import { writeTool } from './write.js';

const tools: readonly Tool[] = [
  agentTool,
  bashTool,
  editTool,
  exitPlanModeTool,
  globTool,
  grepTool,
  notebookEditTool,
  readTool,
  todoWriteTool,
  webFetchTool,
  writeTool,
];

// In the bundle, each tool's JSON Schema as the build computed it (json-schemas.ts): the same
// objects, so that a tool is the same wherever it is referred to.
for (const tool of tools) {
  const schema = builtJsonSchemas?.[tool.name];
  if (schema !== undefined) tool.jsonSchema = () => schema;
}

export const builtinTools: readonly Tool[] = tools;
