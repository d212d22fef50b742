import { describe, expect, it } from 'vitest';
import { formatInputValidationError } from '../../src/execution/input-errors.js';
import { compileInputSchema } from '../../src/mcp/input-schema.js';

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    path: { type: 'string' },
    depth: { type: 'integer', minimum: 1 },
    mode: { enum: ['fast', 'full'] },
    options: {
      type: 'object',
      properties: { 'a/b': { type: 'boolean' } },
      additionalProperties: false,
    },
  },
  required: ['path'],
  additionalProperties: false,
};

function problems(input: unknown, source: Record<string, unknown> = schema): string {
  const { inputSchema } = compileInputSchema(source);
  const result = inputSchema.safeParse(input);
  return result.success ? 'valid' : formatInputValidationError('mcp__s__t', result.error, input);
}

describe('compileInputSchema', () => {
  it('gives the model the server’s schema without the $schema marker', () => {
    const { $schema: _marker, ...rest } = schema;
    expect(compileInputSchema(schema).jsonSchema).toEqual(rest);
  });

  it('accepts input the schema allows and passes it on unchanged', () => {
    const { inputSchema } = compileInputSchema(schema);
    const input = { path: 'a', depth: 2, mode: 'fast', options: { 'a/b': true } };
    expect(inputSchema.parse(input)).toBe(input);
  });

  it.each([
    [{}, 'The required parameter `path` is missing'],
    [{ path: 1 }, 'The parameter `path` type is expected as `string` but provided as `number`'],
    [
      { path: 'a', depth: 1.5 },
      'The parameter `depth` type is expected as `integer` but provided as `number`',
    ],
    [{ path: 'a', depth: 0 }, 'The parameter `depth` must be >= 1'],
    [
      { path: 'a', mode: 'slow' },
      'The parameter `mode` must be one of the allowed values: "fast", "full"',
    ],
    [{ path: 'a', extra: 1 }, 'An unexpected parameter `extra` was provided'],
    [
      { path: 'a', options: { 'a/b': 'yes' } },
      'The parameter `options.a/b` type is expected as `boolean` but provided as `string`',
    ],
    [{ path: 'a', options: { c: 1 } }, 'An unexpected parameter `options.c` was provided'],
    ['text', 'The input is expected as `object`'],
  ])('describes %j in the words used for built-in tools', (input, message) => {
    expect(problems(input)).toBe(
      `InputValidationError: mcp__s__t failed due to the following issue:\n${message}`,
    );
  });

  it('lists every problem at once, and summarises beyond eight', () => {
    const wide = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 10 }, (_, index) => [`p${index}`, { type: 'string' }]),
      ),
      required: Array.from({ length: 10 }, (_, index) => `p${index}`),
    };
    const text = problems({}, wide);
    expect(text.split('\n').slice(1)).toEqual([
      ...Array.from({ length: 8 }, (_, index) => `The required parameter \`p${index}\` is missing`),
      '…and 2 more problems',
    ]);
  });

  it('reads draft 2020-12 schemas with their own keywords', () => {
    const tuple = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
      },
    };
    expect(problems({ pair: ['a', 1] }, tuple)).toBe('valid');
    expect(problems({ pair: [1, 1] }, tuple)).toContain(
      'The parameter `pair.0` type is expected as `string` but provided as `number`',
    );
  });

  it('does not check formats (the server checks its own input)', () => {
    const uri = { type: 'object', properties: { url: { type: 'string', format: 'uri' } } };
    expect(problems({ url: 'not a uri' }, uri)).toBe('valid');
  });

  it('throws for a schema ajv cannot compile', () => {
    expect(() =>
      compileInputSchema({ type: 'object', properties: { a: { type: 'nonsense' } } }),
    ).toThrow();
  });
});
