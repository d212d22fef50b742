/**
 * The workflow expressions the example tests evaluate: GitHub's semantics where the examples lean
 * on them, and a loud failure for anything the evaluator does not know.
 */
import { describe, expect, it } from 'vitest';
import { evaluate, evaluateCondition, interpolate } from './workflow-file.js';

const context = {
  github: {
    repository: 'Codertocat/Hello-World',
    token: 'ghs_job',
    event: {
      label: { name: 'CI-Agent' },
      comment: { body: '/ci-agent fix it' },
      workflow_run: { conclusion: 'failure', pull_requests: [{ number: 2 }], id: 7 },
      pull_request: { head: { repo: { full_name: 'Codertocat/Hello-World' } } },
    },
  },
  secrets: { ANTHROPIC_API_KEY: 'sk-ant-x' },
  inputs: { prompt: 'do it' },
};

describe('evaluate', () => {
  it('reads contexts, paths and indexes', () => {
    expect(evaluate('secrets.ANTHROPIC_API_KEY', context)).toBe('sk-ant-x');
    expect(evaluate("github.event['workflow_run'].pull_requests[0].number", context)).toBe(2);
    expect(evaluate('github.event.workflow_run.id', context)).toBe(7);
  });

  it('compares strings ignoring case, as GitHub does', () => {
    expect(evaluate("github.event.label.name == 'ci-agent'", context)).toBe(true);
    expect(evaluate("github.event.label.name != 'ci-agent'", context)).toBe(false);
  });

  it('gives null for what the event lacks, and compares it', () => {
    expect(evaluate('github.event.workflow_run.pull_requests[1]', context)).toBeNull();
    expect(evaluate('github.event.issue.number', context)).toBeNull();
    expect(evaluate('github.event.workflow_run.pull_requests[0] != null', context)).toBe(true);
  });

  it('gives an operand for && and ||', () => {
    expect(evaluate("inputs.prompt || 'fallback'", context)).toBe('do it');
    expect(evaluate("github.event.nothing || 'fallback'", context)).toBe('fallback');
    expect(evaluate("!github.event.nothing && 'yes'", context)).toBe('yes');
  });

  it('knows startsWith, endsWith and contains', () => {
    expect(evaluate("startsWith(github.event.comment.body, '/ci-agent')", context)).toBe(true);
    expect(evaluate("endsWith(github.repository, '/hello-world')", context)).toBe(true);
    expect(evaluate("contains(github.event.comment.body, 'FIX')", context)).toBe(true);
  });

  it.each([
    ['an unknown function', "fromJSON('{}')", /fromJSON\(\) is not one this evaluator knows/],
    ['an unknown context', 'steps.download.outcome', /the context "steps" is not in the fixture/],
    ['a secret the fixture lacks', 'secrets.OTHER', /the fixture gives no secrets\.OTHER/],
    ['an input the fixture lacks', 'inputs.model', /the fixture gives no inputs\.model/],
    ['a github value the fixture lacks', 'github.run_id', /the fixture gives no github\.run_id/],
    ['an operator it does not know', "github.repository > 'a'", /cannot read "> 'a'"/],
    ['a dangling operator', 'secrets.ANTHROPIC_API_KEY ==', /expected more, got the end/],
  ])('fails loudly on %s', (_label, source, message) => {
    expect(() => evaluate(source, context, 'examples/x.yml')).toThrow(message);
    expect(() => evaluate(source, context, 'examples/x.yml')).toThrow(/^examples\/x\.yml: /);
  });
});

describe('interpolate and evaluateCondition', () => {
  it('put values into text as the runner does: null as nothing', () => {
    expect(interpolate('key=${{ secrets.ANTHROPIC_API_KEY }}', context)).toBe('key=sk-ant-x');
    expect(interpolate('${{ github.event.nothing }}', context)).toBe('');
  });

  it('take a condition with or without ${{ }}', () => {
    expect(evaluateCondition("github.event.label.name == 'ci-agent'", context)).toBe(true);
    expect(evaluateCondition("${{ github.event.label.name == 'other' }}", context)).toBe(false);
  });
});
