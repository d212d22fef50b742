/**
 * One Read call in a process of its own, printing its peak memory as JSON: the resident set
 * before the call, the process's peak resident set after it (getrusage maxRSS), and the text.
 * Run as `node --import tsx bench/read-peak-child.ts <src dir> <file> <offset> <limit>`; the
 * source directory may be an older tree (the benchmark measures the implementation from git).
 * Used by bench/read.ts and by the Read memory test.
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as ReadModule from '../src/tools/builtin/read.js';
import type * as FileStateModule from '../src/tools/file-state.js';

const [srcDir, file, offset, limit] = process.argv.slice(2);
if (!srcDir || !file || !offset || !limit) {
  throw new Error('usage: read-peak-child.ts <src dir> <file> <offset> <limit>');
}
const load = (path: string) => import(pathToFileURL(join(resolve(srcDir), path)).href);
const { readTool } = (await load('tools/builtin/read.ts')) as typeof ReadModule;
const { FileStateCache } = (await load('tools/file-state.ts')) as typeof FileStateModule;

const context = {
  projectDir: process.cwd(),
  workspaceRoots: [process.cwd()],
  shell: { cwd: process.cwd() },
  fileState: new FileStateCache(),
  signal: new AbortController().signal,
  toolUseId: 'toolu_bench',
  env: {},
  ripgrepPath: null,
};
const input = { file_path: file, offset: Number(offset), limit: Number(limit) };
const baselineRss = process.memoryUsage().rss;
const validation = await readTool.validateInput(input, context);
if (!validation.result) throw new Error(validation.message);
const step = await readTool.call(input, context).next();
if (!step.done) throw new Error('Read reported progress instead of a result');
const block = readTool.mapToolResultToToolResultBlockParam(step.value.data, 'toolu_bench');
const peakRss = process.resourceUsage().maxRSS * 1024;
console.log(JSON.stringify({ baselineRss, peakRss, text: block.content }));
