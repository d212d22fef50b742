import { describe, expect, it } from 'vitest';
import { findSupersededReads } from '../../../src/agent/context/stale-reads.js';
import { fileAccessOf, indexToolCalls } from '../../../src/agent/context/tool-calls.js';
import { call, conversation, edit, read } from './conversation.js';

const CWD = '/repo';
const stale = (...turns: Parameters<typeof conversation>) =>
  Object.fromEntries(
    [...findSupersededReads(indexToolCalls(conversation(...turns)), CWD)].map(([id, by]) => [
      id,
      by.id,
    ]),
  );

describe('findSupersededReads', () => {
  it('marks a read stale once a later Edit of the same file succeeded', () => {
    expect(stale([read('r1', '/repo/a.ts', 'x')], [edit('e1', '/repo/a.ts')])).toEqual({
      r1: 'e1',
    });
  });

  it('marks a read stale when a later call in the same message edits the file', () => {
    expect(stale([read('r1', '/repo/a.ts', 'x'), edit('e1', '/repo/a.ts')])).toEqual({ r1: 'e1' });
  });

  it('matches relative and absolute spellings of the same path', () => {
    expect(stale([read('r1', 'src/a.ts', 'x')], [edit('e1', '/repo/src/./a.ts')])).toEqual({
      r1: 'e1',
    });
  });

  it('names the first call that made the read stale', () => {
    expect(
      stale(
        [read('r1', '/repo/a.ts', 'x')],
        [read('r2', '/repo/a.ts', 'x')],
        [edit('e1', '/repo/a.ts')],
      ),
    ).toEqual({ r1: 'r2', r2: 'e1' });
  });

  describe('when the later call failed', () => {
    it('keeps the read: a failed Edit leaves the file as it was read', () => {
      expect(stale([read('r1', '/repo/a.ts', 'x')], [edit('e1', '/repo/a.ts', true)])).toEqual({});
    });

    it('keeps the read while the later call has no result yet', () => {
      const messages = conversation([read('r1', '/repo/a.ts', 'x')]);
      messages.push({
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'e1', name: 'Edit', input: { file_path: '/repo/a.ts' } }],
      });
      expect(findSupersededReads(indexToolCalls(messages), CWD).size).toBe(0);
    });
  });

  describe('when the later call is a Read', () => {
    it('supersedes a read of the whole file with a later read of the whole file', () => {
      expect(stale([read('r1', '/repo/a.ts', 'x')], [read('r2', '/repo/a.ts', 'x')])).toEqual({
        r1: 'r2',
      });
    });

    it('supersedes a partial read from the top with a whole read', () => {
      expect(
        stale(
          [read('r1', '/repo/a.ts', 'x', { offset: 1, limit: 20 })],
          [read('r2', '/repo/a.ts', 'x')],
        ),
      ).toEqual({ r1: 'r2' });
    });

    it('supersedes a read of the same range', () => {
      expect(
        stale(
          [read('r1', '/repo/a.ts', 'x', { offset: 50, limit: 20 })],
          [read('r2', '/repo/a.ts', 'x', { offset: 50, limit: 20 })],
        ),
      ).toEqual({ r1: 'r2' });
    });

    it('keeps a read of lines a later partial read does not show', () => {
      expect(
        stale(
          [read('r1', '/repo/a.ts', 'x', { offset: 3000 })],
          [read('r2', '/repo/a.ts', 'x')],
          [read('r3', '/repo/a.ts', 'x', { offset: 1, limit: 10 })],
        ),
      ).toEqual({});
    });
  });

  it('marks a read of a notebook stale once NotebookEdit changed it', () => {
    const notebookEdit = call('n1', 'NotebookEdit', { notebook_path: '/repo/a.ipynb' }, 'ok');
    expect(stale([read('r1', '/repo/a.ipynb', 'cells')], [notebookEdit])).toEqual({ r1: 'n1' });
  });

  it('leaves reads of other files, failed reads and other tools alone', () => {
    expect(
      stale(
        [
          read('r1', '/repo/a.ts', 'x'),
          call('r2', 'Read', { file_path: '/repo/b.ts' }, 'missing', true),
          call('b1', 'Bash', { command: 'cat /repo/b.ts' }, 'x'),
        ],
        [edit('e1', '/repo/b.ts'), call('c1', 'constructor', { file_path: '/repo/a.ts' }, 'x')],
      ),
    ).toEqual({});
  });
});

describe('fileAccessOf', () => {
  const only = (name: string, input: unknown) =>
    fileAccessOf({ id: 'x', name, input, turn: 0, order: 0 }, CWD);

  it('resolves the file a Read, Write or Edit names', () => {
    expect(only('Read', { file_path: 'a.ts', offset: 5, limit: 10 })).toEqual({
      kind: 'read',
      path: '/repo/a.ts',
      offset: 5,
      limit: 10,
    });
    expect(only('Write', { file_path: '/x/b.ts', content: '' })).toEqual({
      kind: 'write',
      path: '/x/b.ts',
    });
  });

  it('finds nothing for other tools, inherited names or inputs without a path', () => {
    expect(only('Bash', { file_path: '/repo/a.ts' })).toBeUndefined();
    expect(only('toString', { file_path: '/repo/a.ts' })).toBeUndefined();
    expect(only('Read', { file_path: '' })).toBeUndefined();
    expect(only('Read', 'a.ts')).toBeUndefined();
  });
});

describe('indexToolCalls', () => {
  it('numbers calls by turn and order and records which results were errors', () => {
    const calls = indexToolCalls(
      conversation([read('r1', '/a', 'x'), edit('e1', '/a', true)], [read('r2', '/a', 'x')]),
    );
    expect(
      [...calls.values()].map(({ id, turn, order, isError }) => [id, turn, order, isError]),
    ).toEqual([
      ['r1', 0, 0, false],
      ['e1', 0, 1, true],
      ['r2', 1, 2, false],
    ]);
  });
});
