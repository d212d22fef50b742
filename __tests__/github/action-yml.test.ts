import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { INPUT_DEFAULTS, INPUT_NAMES } from '../../src/github/inputs.js';

const actionSchema = z.object({
  name: z.string(),
  description: z.string().min(1),
  branding: z.object({ icon: z.string(), color: z.string() }),
  inputs: z.record(
    z.string(),
    z.object({
      description: z.string().min(1),
      required: z.boolean().optional(),
      default: z.string().optional(),
    }),
  ),
  outputs: z.record(z.string(), z.object({ description: z.string().min(1) })),
  runs: z.object({ using: z.string(), main: z.string() }),
});

const action = actionSchema.parse(
  parse(readFileSync(fileURLToPath(new URL('../../action.yml', import.meta.url)), 'utf8')),
);

describe('action.yml', () => {
  it('runs dist/index.js on node24', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' });
  });

  it('declares exactly the inputs readInputs reads, in the same order', () => {
    expect(Object.keys(action.inputs)).toEqual([...INPUT_NAMES]);
  });

  it('requires no input, so that a skipped run needs no key', () => {
    expect(Object.values(action.inputs).filter((input) => input.required === true)).toEqual([]);
  });

  it('has the same defaults as readInputs, and the job token for github-token', () => {
    const defaults = Object.fromEntries(
      Object.entries(action.inputs)
        .filter(([, input]) => input.default !== undefined)
        .map(([name, input]) => [name, input.default]),
    );
    expect(defaults).toEqual({
      'github-token': '${{ github.token }}',
      ...Object.fromEntries(
        Object.entries(INPUT_DEFAULTS).map(([name, value]) => [name, String(value)]),
      ),
    });
  });

  it('declares the outputs the issue asks for', () => {
    expect(Object.keys(action.outputs)).toEqual([
      'conclusion',
      'branch',
      'pr-number',
      'commit-sha',
      'comment-url',
      'diff-path',
      'log-path',
      'log-hash',
      'audit-result',
      'turns',
      'cost-usd',
    ]);
  });
});
