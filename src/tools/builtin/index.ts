/**
 * The built-in tools: the one list to touch when adding a tool.
 */
import type { Tool } from '../tool.js';
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { readTool } from './read.js';
import { writeTool } from './write.js';

export const builtinTools: readonly Tool[] = [
  bashTool,
  editTool,
  globTool,
  grepTool,
  readTool,
  writeTool,
];
