import { describe, expect, it } from 'vitest';
import type { AgentEvent, RunResult } from '../../src/agent/events.js';
import type { OutputFormat } from '../../src/cli/args.js';
import { OutputRenderer } from '../../src/cli/render.js';
import { createSecretMasker } from '../../src/log/secret-masker.js';
import { StreamJsonMapper, streamJsonSink } from '../../src/log/stream-json.js';
import {
  assistantMessage,
  permissionDecision,
  resultEvent,
  sessionStart,
  toolResult,
  toolResultsMessage,
} from '../log/events.js';

/** Runs the events through the mapper into a renderer; returns each write separately. */
function render(
  format: OutputFormat,
  verbose: boolean,
  result: Partial<RunResult> = {},
  secrets: string[] = [],
): { writes: string[]; afterEvent: number[] } {
  const writes: string[] = [];
  const afterEvent: number[] = [];
  const renderer = new OutputRenderer(format, verbose, (text) => writes.push(text));
  const mapper = new StreamJsonMapper({ version: '1', masker: createSecretMasker(secrets) });
  const sink = streamJsonSink(mapper, [renderer.accept]);
  const events: AgentEvent[] = [
    sessionStart,
    assistantMessage('Reading.', [['toolu_1', 'Read', {}]]),
    permissionDecision('toolu_1', 'Read', 'allow'),
    toolResult('toolu_1', 'one'),
    toolResultsMessage(['toolu_1', 'one']),
    assistantMessage('All done.'),
    resultEvent(result),
  ];
  for (const event of events) {
    sink(event);
    afterEvent.push(writes.length);
  }
  return { writes, afterEvent };
}

const parse = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe('OutputRenderer', () => {
  describe('when the format is stream-json', () => {
    it('writes each line as it comes, one JSON object per line', () => {
      const { writes, afterEvent } = render('stream-json', true);
      expect(afterEvent).toEqual([1, 2, 3, 4, 5, 6, 7]);
      for (const write of writes) expect(write).toMatch(/^\{.*\}\n$/);
      expect(writes.map((write) => parse(write).type)).toEqual([
        'system',
        'assistant',
        'system',
        'system',
        'user',
        'assistant',
        'result',
      ]);
    });
  });

  describe('when the format is json', () => {
    it('writes only the result message, once the run ends', () => {
      const { writes, afterEvent } = render('json', false);
      expect(afterEvent).toEqual([0, 0, 0, 0, 0, 0, 1]);
      expect(parse(writes[0] ?? '')).toMatchObject({
        type: 'result',
        subtype: 'success',
        result: 'All done.',
        session_id: 'session-1',
      });
    });

    it('writes every message as one array with --verbose', () => {
      const { writes } = render('json', true);
      expect(writes).toHaveLength(1);
      const messages = JSON.parse(writes[0] ?? '') as Array<{ type: string }>;
      expect(messages.map((message) => message.type)).toEqual([
        'system',
        'assistant',
        'system',
        'system',
        'user',
        'assistant',
        'result',
      ]);
    });
  });

  describe('when the format is text', () => {
    it('writes the final answer once the run ends', () => {
      const { writes, afterEvent } = render('text', false);
      expect(afterEvent).toEqual([0, 0, 0, 0, 0, 0, 1]);
      expect(writes).toEqual(['All done.\n']);
    });

    it.each([
      ['error_max_turns', ['Reached max turns (3)']],
      ['error_during_execution', ['model overloaded', 'gave up']],
      ['error_during_execution', []],
    ] as const)(
      'writes nothing on stdout for an %s result: errors go to stderr',
      (subtype, errors) => {
        const { writes } = render('text', false, { subtype, isError: true, errors: [...errors] });
        expect(writes).toEqual([]);
      },
    );

    it('masks a secret in the final answer', () => {
      const key = 'sk-ant-api03-do-not-print';
      const { writes } = render('text', false, { result: `key: ${key}` }, [key]);
      expect(writes).toEqual(['key: ***\n']);
    });
  });
});
