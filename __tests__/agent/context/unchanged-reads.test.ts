import { describe, expect, it } from 'vitest';
import { indexToolCalls } from '../../../src/agent/context/tool-calls.js';
import { findUnchangedReads } from '../../../src/agent/context/unchanged-reads.js';
import type { CallSpec } from './conversation.js';
import { call, conversation, edit, read } from './conversation.js';

const CWD = '/repo';
const filler = (index: number) => [call(`f${index}`, 'Glob', { pattern: '*.ts' }, 'a.ts')];
/** Re-read id → anchor id, and anchor id → the turn of its newest re-read. */
const unchanged = (turns: CallSpec[][], maxGap = 4) => {
  const messages = conversation(...turns);
  const found = findUnchangedReads(messages, indexToolCalls(messages), CWD, maxGap);
  return {
    anchors: Object.fromEntries([...found.anchorOf].map(([id, anchor]) => [id, anchor.id])),
    lastTurns: Object.fromEntries(found.lastTurnOf),
  };
};

describe('findUnchangedReads', () => {
  it('refers a re-read with the same text to the earlier read', () => {
    expect(unchanged([[read('r1', '/repo/a.ts', 'x')], [read('r2', 'a.ts', 'x')]])).toEqual({
      anchors: { r2: 'r1' },
      lastTurns: { r1: 1 },
    });
  });

  it('refers every re-read of a chain to its first read, and counts the gap from the newest', () => {
    const turns = [
      [read('r1', '/repo/a.ts', 'x')],
      filler(1),
      filler(2),
      [read('r2', '/repo/a.ts', 'x')],
      filler(4),
      filler(5),
      [read('r3', '/repo/a.ts', 'x')],
    ];
    expect(unchanged(turns, 3)).toEqual({ anchors: { r2: 'r1', r3: 'r1' }, lastTurns: { r1: 6 } });
  });

  it('sends a re-read whole when the file shows other text', () => {
    expect(unchanged([[read('r1', '/repo/a.ts', 'x')], [read('r2', '/repo/a.ts', 'y')]])).toEqual({
      anchors: {},
      lastTurns: {},
    });
  });

  it('starts a new chain from the re-read that showed other text', () => {
    const turns = [
      [read('r1', '/repo/a.ts', 'x')],
      [read('r2', '/repo/a.ts', 'y')],
      [read('r3', '/repo/a.ts', 'y')],
      [read('r4', '/repo/a.ts', 'x')],
    ];
    expect(unchanged(turns).anchors).toEqual({ r3: 'r2' });
  });

  it('sends a re-read whole after a successful write of the file, even with the same text', () => {
    const turns = [
      [read('r1', '/repo/a.ts', 'x')],
      [edit('e1', '/repo/a.ts')],
      [read('r2', '/repo/a.ts', 'x')],
    ];
    expect(unchanged(turns).anchors).toEqual({});
  });

  it('keeps the chain across a failed write, which left the file as it was', () => {
    const turns = [
      [read('r1', '/repo/a.ts', 'x')],
      [edit('e1', '/repo/a.ts', true)],
      [read('r2', '/repo/a.ts', 'x')],
    ];
    expect(unchanged(turns).anchors).toEqual({ r2: 'r1' });
  });

  it('keeps the chain across a write of another file', () => {
    const turns = [
      [read('r1', '/repo/a.ts', 'x')],
      [edit('e1', '/repo/b.ts')],
      [read('r2', '/repo/a.ts', 'x')],
    ];
    expect(unchanged(turns).anchors).toEqual({ r2: 'r1' });
  });

  it('sends a re-read whole when the earlier read is more turns back than the gap allows', () => {
    const turns = [
      [read('r1', '/repo/a.ts', 'x')],
      filler(1),
      filler(2),
      [read('r2', '/repo/a.ts', 'x')],
    ];
    expect(unchanged(turns, 2)).toEqual({ anchors: {}, lastTurns: {} });
    expect(unchanged(turns, 3).anchors).toEqual({ r2: 'r1' });
  });

  it('matches only reads of the same window', () => {
    const turns = [
      [read('r1', '/repo/a.ts', 'x', { offset: 10, limit: 5 })],
      [read('r2', '/repo/a.ts', 'x', { offset: 10 })],
      [read('r3', '/repo/a.ts', 'x', { offset: 10, limit: 5 })],
    ];
    expect(unchanged(turns).anchors).toEqual({ r3: 'r1' });
  });

  it('leaves failed reads, reads in the same turn and other tools alone', () => {
    const failed = call('r1', 'Read', { file_path: '/repo/a.ts' }, 'File does not exist.', true);
    const turns = [
      [failed],
      [
        read('r2', '/repo/a.ts', 'File does not exist.'),
        read('r3', '/repo/a.ts', 'File does not exist.'),
      ],
      [
        call('b1', 'Bash', { command: 'cat a.ts' }, 'x'),
        call('b2', 'Bash', { command: 'cat a.ts' }, 'x'),
      ],
      [call('b3', 'Bash', { command: 'cat a.ts' }, 'x')],
    ];
    expect(unchanged(turns).anchors).toEqual({});
  });

  it('leaves a read whose result holds an image', () => {
    const messages = conversation(
      [read('r1', '/repo/p.png', 'x')],
      [read('r2', '/repo/p.png', 'x')],
    );
    for (const message of messages) {
      if (message.role !== 'user' || typeof message.content === 'string') continue;
      for (const block of message.content) {
        if (block.type === 'tool_result')
          block.content = [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          ];
      }
    }
    expect(findUnchangedReads(messages, indexToolCalls(messages), CWD, 4).anchorOf.size).toBe(0);
  });
});
