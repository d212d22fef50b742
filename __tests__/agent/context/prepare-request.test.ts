import { describe, expect, it } from 'vitest';
import {
  prepareRequest,
  shortenBeforeTurn,
  withSummary,
} from '../../../src/agent/context/prepare-request.js';
import type { PrepareSettings } from '../../../src/agent/context/prepare-request.js';
import type { Message } from '../../../src/model/types.js';
import { big, call, conversation, edit, read, resultOf } from './conversation.js';

const SETTINGS: PrepareSettings = {
  cwd: '/repo',
  keepRecentTurns: 2,
  boundaryStep: 1,
  shortenAboveChars: 500,
};
const filler = (index: number) => [call(`f${index}`, 'Glob', { pattern: '*.ts' }, 'a.ts')];
const contentOf = (messages: Message[], id: string) => resultOf(messages, id)?.content;

describe('prepareRequest', () => {
  it('sends a short conversation exactly as recorded', () => {
    const messages = conversation([read('r1', '/repo/a.ts', big('a'))], filler(1));
    expect(prepareRequest(messages, SETTINGS)).toEqual(messages);
  });

  it('never changes the conversation it is given', () => {
    const messages = conversation([read('r1', '/repo/a.ts', big('a'))], filler(1), filler(2));
    const before = structuredClone(messages);
    prepareRequest(messages, SETTINGS);
    expect(messages).toEqual(before);
  });

  describe('when a turn is older than the recent turns', () => {
    it('shortens a long result to one line naming the call, its size and its first line', () => {
      const sent = prepareRequest(
        conversation(
          [call('b1', 'Bash', { command: 'npm test' }, big('out'))],
          filler(1),
          filler(2),
        ),
        SETTINGS,
      );
      expect(contentOf(sent, 'b1')).toBe(
        `[Old tool result shortened to save context: Bash(npm test) returned ${big('out').length} characters in 200 lines, starting "1\tout line 1". Run the call again if you need it.]`,
      );
    });

    it('keeps short results, errors and the results of file writes whole', () => {
      const failing = call('b2', 'Bash', { command: 'make' }, big('err'), true);
      const write = call('w1', 'Write', { file_path: '/repo/x', content: '' }, big('diff'));
      const sent = prepareRequest(
        conversation(
          [call('g1', 'Glob', { pattern: '*' }, 'a.ts'), failing, write],
          filler(1),
          filler(2),
        ),
        SETTINGS,
      );
      expect(contentOf(sent, 'g1')).toBe('a.ts');
      expect(contentOf(sent, 'b2')).toBe(big('err'));
      expect(contentOf(sent, 'w1')).toBe(big('diff'));
    });

    it('replaces a read that a later edit made stale with a note, whatever its size', () => {
      const text = 'x'.repeat(400);
      const sent = prepareRequest(
        conversation([read('r1', 'a.ts', text)], [edit('e1', '/repo/a.ts')], filler(2), filler(3)),
        SETTINGS,
      );
      expect(contentOf(sent, 'r1')).toBe(
        '[Earlier read of /repo/a.ts removed from the context: the file was changed later by Edit (e1). Read the file again if you need its current content.]',
      );
    });

    it('waits until the call that made a read stale is behind the boundary too', () => {
      const turns = [[read('r1', '/repo/a.ts', big('a'))], filler(1), [edit('e1', '/repo/a.ts')]];
      const sent = prepareRequest(conversation(...turns, filler(3)), SETTINGS);
      expect(contentOf(sent, 'r1')).toContain('Old tool result shortened');
      const later = prepareRequest(conversation(...turns, filler(3), filler(4)), SETTINGS);
      expect(contentOf(later, 'r1')).toContain('changed later by Edit (e1)');
    });

    it('says when a read was superseded by reading the same lines again', () => {
      const sent = prepareRequest(
        conversation(
          [read('r1', '/repo/a.ts', big('a'))],
          [read('r2', '/repo/a.ts', 'short')],
          filler(2),
          filler(3),
        ),
        SETTINGS,
      );
      expect(contentOf(sent, 'r1')).toContain('the same lines were read again later (r2)');
    });

    it('keeps a stale read that is shorter than its note', () => {
      const sent = prepareRequest(
        conversation(
          [read('r1', '/repo/a.ts', '1\tok')],
          [edit('e1', '/repo/a.ts')],
          filler(2),
          filler(3),
        ),
        SETTINGS,
      );
      expect(contentOf(sent, 'r1')).toBe('1\tok');
    });

    it('shortens image results by the size of their data', () => {
      const messages = conversation(
        [call('i1', 'Read', { file_path: '/repo/p.png' }, '')],
        filler(1),
        filler(2),
      );
      const results = messages[2];
      if (results?.role !== 'user' || typeof results.content === 'string') throw new Error('shape');
      results.content = [
        {
          type: 'tool_result',
          tool_use_id: 'i1',
          content: [
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(900) },
            },
          ],
        },
      ];
      expect(contentOf(prepareRequest(messages, SETTINGS), 'i1')).toContain(
        'returned 900 characters',
      );
    });
  });

  describe('when a turn is among the recent turns', () => {
    it('keeps its results whole, stale or long', () => {
      const messages = conversation(
        filler(0),
        [read('r1', '/repo/a.ts', big('a'))],
        [edit('e1', '/repo/a.ts')],
      );
      expect(contentOf(prepareRequest(messages, SETTINGS), 'r1')).toBe(big('a'));
    });
  });

  it('keeps a shortened result shortened on every later request', () => {
    let messages = conversation(
      [call('b1', 'Bash', { command: 'ls' }, big('x'))],
      filler(1),
      filler(2),
    );
    const first = contentOf(prepareRequest(messages, SETTINGS), 'b1');
    for (let turn = 3; turn < 9; turn++) {
      messages = [...messages, ...conversation(filler(turn)).slice(1)];
      expect(contentOf(prepareRequest(messages, SETTINGS), 'b1')).toBe(first);
    }
  });

  it('changes older messages only when the boundary moves a whole step', () => {
    const turns = Array.from({ length: 9 }, (_, index) => [
      call(`b${index}`, 'Bash', { command: `step ${index}` }, big(`out${index}`)),
    ]);
    const sentAt = (count: number) =>
      JSON.stringify(
        prepareRequest(conversation(...turns.slice(0, count)), {
          ...SETTINGS,
          boundaryStep: 2,
        }).slice(0, 7),
      );
    // 5 turns: boundary 2; 6 turns: boundary 4 (turns 2 and 3 shortened); 7 turns: still 4.
    expect(sentAt(5)).not.toBe(sentAt(6));
    expect(sentAt(6)).toBe(sentAt(7));
  });

  describe('when a read repeats an earlier one word for word', () => {
    const note = (anchor: string) =>
      `[File unchanged since the earlier read of /repo/a.ts (${anchor}): the lines read here are the ones that result shows. Refer to it rather than reading again while the file is unchanged.]`;

    it('sends the re-read as a reference from its first request on, and the earlier read whole', () => {
      const sent = prepareRequest(
        conversation([read('r1', '/repo/a.ts', big('a'))], [read('r2', '/repo/a.ts', big('a'))]),
        SETTINGS,
      );
      expect(contentOf(sent, 'r2')).toBe(note('r1'));
      expect(contentOf(sent, 'r1')).toBe(big('a'));
    });

    it('keeps the earlier read whole while it is re-read within the recent turns', () => {
      const turns = [
        [read('r1', '/repo/a.ts', big('a'))],
        filler(1),
        [read('r2', '/repo/a.ts', big('a'))],
        filler(3),
        [read('r3', '/repo/a.ts', big('a'))],
        filler(5),
      ];
      // Turn 0 is four turns behind the boundary, yet its newest re-read is in turn 4.
      const sent = prepareRequest(conversation(...turns), SETTINGS);
      expect(contentOf(sent, 'r1')).toBe(big('a'));
      expect([contentOf(sent, 'r2'), contentOf(sent, 'r3')]).toEqual([note('r1'), note('r1')]);
    });

    it('shortens the earlier read once its newest re-read is behind the boundary too', () => {
      const turns = [
        [read('r1', '/repo/a.ts', big('a'))],
        [read('r2', '/repo/a.ts', big('a'))],
        filler(2),
        filler(3),
        filler(4),
      ];
      const sent = prepareRequest(conversation(...turns), SETTINGS);
      expect(contentOf(sent, 'r1')).toContain('Old tool result shortened');
      expect(contentOf(sent, 'r2')).toBe(note('r1'));
    });

    it('keeps a reference the same on every later request, so the cached prefix holds', () => {
      const turns = [[read('r1', '/repo/a.ts', big('a'))], [read('r2', '/repo/a.ts', big('a'))]];
      const first = JSON.stringify(prepareRequest(conversation(...turns), SETTINGS));
      const later = prepareRequest(conversation(...turns, filler(2)), SETTINGS);
      expect(JSON.stringify(later).startsWith(first.slice(0, -1))).toBe(true);
    });

    it('sends a re-read whole when the file changed in between, by whatever means', () => {
      const turns = [
        [read('r1', '/repo/a.ts', big('a'))],
        [call('b1', 'Bash', { command: 'sed -i s/a/b/ a.ts' }, '')],
        [read('r2', '/repo/a.ts', big('b'))],
      ];
      const sent = prepareRequest(conversation(...turns), SETTINGS);
      expect(contentOf(sent, 'r2')).toBe(big('b'));
    });

    it('sends the re-read whole when compaction summarised the earlier read away', () => {
      const messages = conversation([read('r1', '/repo/a.ts', big('a'))], filler(1), [
        read('r2', '/repo/a.ts', big('a')),
      ]);
      const sent = prepareRequest(messages, SETTINGS, { keptFrom: 3, summary: 'Read a.ts.' });
      expect(contentOf(sent, 'r1')).toBeUndefined();
      expect(contentOf(sent, 'r2')).toBe(big('a'));
    });
  });

  describe('when the conversation was compacted', () => {
    it('sends the task with the summary, then the kept messages', () => {
      const messages = conversation(filler(0), filler(1), filler(2));
      const sent = prepareRequest(messages, SETTINGS, { keptFrom: 5, summary: 'Globbed twice.' });
      expect(sent).toHaveLength(3);
      expect(sent[0]).toEqual(
        withSummary({ role: 'user', content: 'fix the build' }, 'Globbed twice.'),
      );
      expect(sent.slice(1)).toEqual(messages.slice(5));
    });
  });

  it('sends nothing for an empty conversation', () => {
    expect(prepareRequest([], SETTINGS)).toEqual([]);
  });
});

describe('shortenBeforeTurn', () => {
  it('keeps the recent turns and moves in whole steps', () => {
    const settings = { keepRecentTurns: 4, boundaryStep: 5 };
    expect([0, 4, 8, 9, 13, 14, 100].map((turns) => shortenBeforeTurn(turns, settings))).toEqual([
      0, 0, 0, 5, 5, 10, 95,
    ]);
  });
});

describe('withSummary', () => {
  it('appends the summary to the task, whether the task is a string or blocks', () => {
    const summary = {
      type: 'text',
      text: '<conversation-summary>\nThe earlier part of this session was compacted to save context. What happened in it:\n\nDid X.\n</conversation-summary>',
    };
    expect(withSummary({ role: 'user', content: 'task' }, 'Did X.').content).toEqual([
      { type: 'text', text: 'task' },
      summary,
    ]);
    expect(
      withSummary({ role: 'user', content: [{ type: 'text', text: 'task' }] }, 'Did X.').content,
    ).toEqual([{ type: 'text', text: 'task' }, summary]);
  });
});
