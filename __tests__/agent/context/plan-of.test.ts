import { describe, expect, it } from 'vitest';
import { planOf } from '../../../src/agent/context/plan-of.js';
import { call, conversation } from './conversation.js';

const todos = (id: string, ...items: Array<[string, string]>) =>
  call(
    id,
    'TodoWrite',
    { todos: items.map(([status, content]) => ({ status, content, activeForm: content })) },
    'ok',
  );

describe('planOf', () => {
  it('renders the last task list and the last presented plan, word for word', () => {
    const plan = planOf(
      conversation(
        [todos('t1', ['pending', 'Old step'])],
        [call('p1', 'ExitPlanMode', { plan: '1. Fix parser\n2. Test' }, 'ok')],
        [todos('t2', ['completed', 'Fix parser'], ['in_progress', 'Run the tests'])],
      ),
    );
    expect(plan).toBe(
      [
        'The plan you presented:\n1. Fix parser\n2. Test',
        'Your task list (last TodoWrite):\n- [completed] Fix parser\n- [in_progress] Run the tests',
      ].join('\n\n'),
    );
  });

  it('ignores failed calls, malformed inputs and tools that hold no plan', () => {
    expect(
      planOf(
        conversation([
          call('t1', 'TodoWrite', { todos: [{ status: 'pending', content: 'x' }] }, 'bad', true),
          call('t2', 'TodoWrite', { todos: 'x' }, 'ok'),
          call('p1', 'ExitPlanMode', { plan: 3 }, 'ok'),
          call('b1', 'Bash', { plan: 'not a plan' }, 'ok'),
          call('h1', 'hasOwnProperty', { plan: 'not a plan' }, 'ok'),
        ]),
      ),
    ).toBeUndefined();
  });
});
