/**
 * A long scripted session that reads many large files, for the context-management test and
 * benchmark: the real loop, the real Read and Edit tools on a temp directory, the real SDK against
 * the replay server. Turn i reads file i mod `files`; every `editEvery`-th turn edits the file the
 * turn before read instead, and files come round again, so stale reads pile up as in a real run.
 * Summarising requests (no tools) are answered with a fixed summary.
 */
import { realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContextSettings } from '../src/agent/context/context-settings.js';
import type { AgentEvent, RunResult } from '../src/agent/events.js';
import { runAgent } from '../src/agent/loop.js';
import { createAnthropicClient } from '../src/model/anthropic-client.js';
import type { RecordedRequest, ReplayTurnInput } from '../testkit/replay-server.js';
import { startReplayServer } from '../testkit/replay-server.js';
import { editTool } from '../src/tools/builtin/edit.js';
import { readTool } from '../src/tools/builtin/read.js';
import { FileStateCache } from '../src/tools/file-state.js';
import { benchPipeline } from './bench-pipeline.js';

export interface ReadingSessionOptions {
  turns: number;
  files: number;
  linesPerFile: number;
  editEvery: number;
  contextManagement: Partial<ContextSettings> | false;
}

export interface SentRequest {
  /** Bytes of the JSON body. */
  bytes: number;
  /** A request asking for a summary (compaction), not a turn. */
  summary: boolean;
  body: unknown;
}

export interface ReadingSession {
  result: RunResult;
  events: AgentEvent[];
  requests: SentRequest[];
  /** How many of the scripted edits are on disk at the end. */
  editsOnDisk: number;
}

export const SESSION_PROMPT = 'Read every source file and fix the lines that need it.';
export const SESSION_SUMMARY = 'Summary: read the source files one by one and made small edits.';

export type ScriptOptions = Pick<
  ReadingSessionOptions,
  'turns' | 'files' | 'linesPerFile' | 'editEvery'
>;

/** The files the session reads, written into `root`. */
export async function writeSessionFiles(root: string, options: ScriptOptions): Promise<void> {
  const padding = 'lorem ipsum dolor sit amet '.repeat(2);
  for (let file = 0; file < options.files; file++) {
    const lines = Array.from(
      { length: options.linesPerFile },
      (_, line) => `F${file}L${line}: ${padding}`,
    );
    await writeFile(join(root, `file${file}.txt`), `${lines.join('\n')}\n`);
  }
}

export interface ReadingScript {
  /** Answers one request: a turn of the script, or the summary when `isSummary` says so. */
  respond: (request: RecordedRequest) => ReplayTurnInput;
  /** Pairs of (file, marker) the scripted edits made. */
  edited: string[];
}

/**
 * The scripted model of the session. `isSummary` tells a summarising request from a turn (ours
 * sends no tools with it; another client may send them).
 */
export function readingScript(
  root: string,
  options: ScriptOptions,
  isSummary: (request: RecordedRequest) => boolean = (request) => !hasTools(request.body),
): ReadingScript {
  const edited: string[] = [];
  let turn = 0;
  const respond = (request: RecordedRequest): ReplayTurnInput => {
    if (isSummary(request)) return [{ type: 'text', text: SESSION_SUMMARY }];
    const index = turn++;
    if (index >= options.turns) return [{ type: 'text', text: 'Done.' }];
    const previous = (index - 1) % options.files;
    if (index > 0 && index % options.editEvery === options.editEvery - 1) {
      const marker = `F${previous}L${index % options.linesPerFile}:`;
      edited.push(join(root, `file${previous}.txt`), marker);
      return [
        { type: 'text', text: `Fixing line ${index} of file ${previous}.` },
        {
          type: 'tool_use',
          id: `toolu_${index}`,
          name: 'Edit',
          input: {
            file_path: join(root, `file${previous}.txt`),
            old_string: marker,
            new_string: `${marker} edited`,
          },
        },
      ];
    }
    return [
      { type: 'text', text: `Reading file ${index % options.files}.` },
      {
        type: 'tool_use',
        id: `toolu_${index}`,
        name: 'Read',
        input: { file_path: join(root, `file${index % options.files}.txt`) },
      },
    ];
  };
  return { respond, edited };
}

/** How many of the scripted edits are on disk. */
export async function countEditsOnDisk(edited: readonly string[]): Promise<number> {
  let editsOnDisk = 0;
  for (let index = 0; index < edited.length; index += 2) {
    const text = await readFile(edited[index] as string, 'utf8');
    if (text.includes(`${edited[index + 1]} edited`)) editsOnDisk++;
  }
  return editsOnDisk;
}

export async function runReadingSession(options: ReadingSessionOptions): Promise<ReadingSession> {
  const root = realpathSync(await mkdtemp(join(tmpdir(), 'ci-agent-context-')));
  try {
    await writeSessionFiles(root, options);
    const { respond, edited } = readingScript(root, options);
    const server = await startReplayServer({
      turns: Array.from({ length: options.turns * 2 + 10 }, () => respond),
    });
    const events: AgentEvent[] = [];
    const fileState = new FileStateCache();
    const result = await runAgent({
      prompt: SESSION_PROMPT,
      model: 'claude-sonnet-5-5',
      systemPrompt: 'You are a careful CI agent.',
      modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
      pipeline: benchPipeline([readTool, editTool], root, { fileState }),
      permissionMode: 'bypassPermissions',
      cwd: root,
      events: (event) => events.push(event),
      contextManagement: options.contextManagement,
    });
    await server.close();
    const editsOnDisk = await countEditsOnDisk(edited);
    const requests = server.requests.map((request) => ({
      bytes: Buffer.byteLength(JSON.stringify(request.body)),
      summary: !hasTools(request.body),
      body: request.body,
    }));
    return { result, events, requests, editsOnDisk };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export function hasTools(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'tools' in body;
}
