import { describe, expect, it } from 'vitest';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import { makePipeline } from '../helpers/pipeline-harness.js';
import { controlledTool, makeCallLog, toolUse } from '../helpers/test-tools.js';

describe('executeSingleToolUse', () => {
  describe('when a call outlives its time limit', () => {
    it('keeps what a cooperative tool reported, marks it failed and says it was stopped', async () => {
      const calls = makeCallLog();
      const { deps, events } = makePipeline([controlledTool('Edit', false, calls)]);
      deps.callTimeoutMs = 50;
      const outcome = await executeSingleToolUse(
        toolUse('Edit', 'toolu_slow'),
        deps,
        new AbortController().signal,
      );
      expect(calls.events).toEqual(['start:toolu_slow', 'abort:toolu_slow']);
      expect(outcome.stage).toBe('call');
      expect(outcome.result).toEqual({
        type: 'tool_result',
        tool_use_id: 'toolu_slow',
        content:
          'aborted toolu_slow\nError: Edit did not finish within 0s and was stopped (the time limit for one call).',
        is_error: true,
      });
      expect(events.at(-1)).toMatchObject({ type: 'tool-result', toolUseId: 'toolu_slow' });
    });

    it('leaves a call that ends in time alone', async () => {
      const calls = makeCallLog();
      const { deps } = makePipeline([controlledTool('Edit', false, calls)]);
      deps.callTimeoutMs = 5_000;
      const outcome = await executeSingleToolUse(
        toolUse('Edit', 'toolu_fast', { auto: true }),
        deps,
        new AbortController().signal,
      );
      expect(outcome.result).toMatchObject({ content: 'done toolu_fast', is_error: false });
    });
  });
});
