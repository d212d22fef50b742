/**
 * The demo's embedded default: a small repository with a failing test, and a recorded model
 * session that fixes it. The session's paths are filled in for the temp checkout at run time.
 */
import type { ReplayScriptEntry } from '../../testkit/replay-server.js';

/** The issue a maintainer labels `ci-agent`. */
export const SAMPLE_ISSUE = {
  number: 7,
  title: 'mean() returns the wrong value',
  body: 'The test suite fails: `mean([1, 2, 3])` should be 2. Please fix the code (not the test) and run the tests again.',
};

export const SAMPLE_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify(
    { name: 'sample-math', version: '1.0.0', type: 'module', scripts: { test: 'node --test' } },
    null,
    2,
  )}\n`,
  'src/stats.js': `/** Arithmetic mean of a non-empty list of numbers. */
export function mean(values) {
  let total = 0;
  for (let i = 1; i < values.length; i++) total += values[i];
  return total / values.length;
}
`,
  'test/stats.test.js': `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mean } from '../src/stats.js';

test('mean of three numbers', () => {
  assert.equal(mean([1, 2, 3]), 2);
});

test('mean of one number', () => {
  assert.equal(mean([5]), 5);
});
`,
  'CLAUDE.md': '# Sample\n\nRun the tests with `npm test`. Keep fixes minimal.\n',
};

/** The repository's policy: edits in the workspace, and the test command, nothing else. */
export const SAMPLE_POLICY = `# .github/ci-agent.yml of the sample repository
permissions:
  allow:
    - Bash(npm test)
    - Bash(node --test:*)
  onAsk:
    default: deny
    tools:
      Edit: allow
limits:
  maxTurns: 20
`;

export function recordedSession(root: string): ReplayScriptEntry[] {
  return [
    [
      { type: 'text', text: 'Let me run the test suite first to see what fails.' },
      {
        type: 'tool_use',
        id: 'toolu_demo_01',
        name: 'Bash',
        input: { command: 'npm test', description: 'Run the tests' },
      },
    ],
    [
      {
        type: 'text',
        text: 'Both tests of `mean` fail. I will read the implementation and the tests together.',
      },
      {
        type: 'tool_use',
        id: 'toolu_demo_02',
        name: 'Read',
        input: { file_path: `${root}/src/stats.js` },
      },
      {
        type: 'tool_use',
        id: 'toolu_demo_03',
        name: 'Read',
        input: { file_path: `${root}/test/stats.test.js` },
      },
    ],
    [
      {
        type: 'text',
        text: 'The loop starts at index 1, so the first value is never added. Fixing the start index.',
      },
      {
        type: 'tool_use',
        id: 'toolu_demo_04',
        name: 'Edit',
        input: {
          file_path: `${root}/src/stats.js`,
          old_string: 'for (let i = 1; i < values.length; i++)',
          new_string: 'for (let i = 0; i < values.length; i++)',
        },
      },
    ],
    [
      { type: 'text', text: 'Running the tests again.' },
      {
        type: 'tool_use',
        id: 'toolu_demo_05',
        name: 'Bash',
        input: { command: 'npm test', description: 'Run the tests' },
      },
    ],
    [
      {
        type: 'text',
        text: 'Fixed `mean` in src/stats.js: the loop skipped the first element (it started at index 1). Both tests pass now.',
      },
    ],
  ];
}
