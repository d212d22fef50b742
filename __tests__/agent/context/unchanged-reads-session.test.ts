/**
 * Unchanged re-reads in a real session (real Read and Bash tools on a temp dir, the replay
 * server): the model is told a file is unchanged only when the text it would see is the text of a
 * read still whole in the request, however the file was touched in between; the run's own record
 * of each result stays whole.
 */
import { realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { runSession } from '../../../src/agent/session.js';
import { createAnthropicClient } from '../../../src/model/anthropic-client.js';
import type { Message, ToolResultBlock } from '../../../src/model/types.js';
import type { ReplayBlock } from '../../../testkit/replay-server.js';
import { startReplayServer } from '../../../testkit/replay-server.js';
import { resultOf } from './conversation.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function session(turns: (root: string) => ReplayBlock[][]) {
  const root = realpathSync(await mkdtemp(join(tmpdir(), 'ci-agent-reread-')));
  await writeFile(join(root, 'a.txt'), fileText('first'));
  const server = await startReplayServer({
    turns: [...turns(root), [{ type: 'text', text: 'Done.' }]],
  });
  cleanups.push(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });
  const events: AgentEvent[] = [];
  const result = await runSession({
    prompt: 'look at a.txt',
    cwd: root,
    model: 'claude-sonnet-4-5',
    modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
    permissionMode: 'bypassPermissions',
    rules: { allow: [], deny: [] },
    maxTurns: 20,
    env: { PATH: process.env.PATH ?? '', HOME: root },
    events: (event) => events.push(event),
    retry: false,
  });
  expect(result.subtype).toBe('success');
  const sent = (index: number) =>
    (server.requests[index]?.body as { messages: Message[] }).messages;
  const recorded = (id: string) =>
    events
      .flatMap((event) => (event.type === 'tool-results-message' ? event.results : []))
      .find((block: ToolResultBlock) => block.tool_use_id === id)?.content;
  return { root, sent, recorded, requests: server.requests.length };
}

const LINES = 30;
const fileText = (word: string) =>
  Array.from({ length: LINES }, (_, index) => `${word} version, line ${index + 1}`).join('\n');
/** What Read shows for fileText(word). */
const shown = (word: string) =>
  fileText(word)
    .split('\n')
    .map((line, index) => `${index + 1}\t${line}`)
    .join('\n');

const readOf = (root: string, id: string): ReplayBlock => ({
  type: 'tool_use',
  id,
  name: 'Read',
  input: { file_path: join(root, 'a.txt') },
});
const bash = (id: string, command: string): ReplayBlock => ({
  type: 'tool_use',
  id,
  name: 'Bash',
  input: { command },
});

describe('a session that reads a file again', () => {
  it('refers an unchanged re-read to the earlier result and sends a changed one whole', async () => {
    const { root, sent, recorded, requests } = await session((root) => [
      [readOf(root, 'toolu_r1')],
      [readOf(root, 'toolu_r2')],
      [bash('toolu_b1', 'sed -i s/first/second/ a.txt')],
      [readOf(root, 'toolu_r3')],
      // Only the time changes: the text the model would see is the text it has.
      [bash('toolu_b2', 'touch -d "2001-01-01" a.txt')],
      [readOf(root, 'toolu_r4')],
    ]);
    expect(requests).toBe(7);
    const last = sent(6);
    const contentOf = (id: string) => resultOf(last, id)?.content;
    expect(contentOf('toolu_r1')).toBe(shown('first'));
    expect(contentOf('toolu_r2')).toBe(
      `[File unchanged since the earlier read of ${join(root, 'a.txt')} (toolu_r1): the lines read here are the ones that result shows. Refer to it rather than reading again while the file is unchanged.]`,
    );
    expect(contentOf('toolu_r3')).toBe(shown('second'));
    expect(contentOf('toolu_r4')).toContain('(toolu_r3)');
    // The request that first carried the re-read already had the reference.
    expect(resultOf(sent(2), 'toolu_r2')?.content).toContain('File unchanged');
    // What the run recorded (the log, the report, hooks) is the whole result.
    expect(recorded('toolu_r2')).toBe(shown('first'));
    expect(recorded('toolu_r4')).toBe(shown('second'));
  });

  it('never calls a file unchanged when a tool rewrote it with text of the same length', async () => {
    const { sent } = await session((root) => [
      [readOf(root, 'toolu_r1')],
      [
        bash(
          'toolu_b1',
          // Same size, same modification time: only the text tells.
          'cp -p a.txt .a && sed -i s/first/FIRST/ a.txt && touch -r .a a.txt && rm .a',
        ),
      ],
      [readOf(root, 'toolu_r2')],
    ]);
    expect(resultOf(sent(3), 'toolu_r2')?.content).toBe(shown('FIRST'));
  });
});
