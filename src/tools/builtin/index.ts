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
import { notebookEditTool } from './notebook-edit.js';
import { readTool } from './read.js';
import { todoWriteTool } from './todo-write.js';
import { webFetchTool } from './web-fetch.js';
import { writeTool } from './write.js';

export const builtinTools: readonly Tool[] = [
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
