/**
 * An MCP tool's JSON Schema as the two things the pipeline needs: a zod schema that validates
 * model input with ajv (so a bad call is answered by us, in the same words as for built-in
 * tools, without a round trip), and the JSON Schema the model sees (the server's, unchanged but
 * for the `$schema` marker, as for built-ins).
 *
 * Formats (`"format": "uri"`) are not checked: the server checks its own input, and an unknown
 * format must not make a tool unusable.
 */
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as z from 'zod';
import type { JsonSchema } from '../model/types.js';

export interface CompiledInputSchema {
  inputSchema: z.ZodType;
  jsonSchema: JsonSchema;
}

const OPTIONS = { strict: false, allErrors: true, validateFormats: false, addUsedSchema: false };
let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

/** Messages shown for one bad input; the rest are summarised. */
const MAX_MESSAGES = 8;

/** Compiles the schema; throws with ajv's reason when it is not a usable JSON Schema. */
export function compileInputSchema(schema: Readonly<Record<string, unknown>>): CompiledInputSchema {
  const validate = ajvFor(schema).compile(schema);
  const inputSchema = z.unknown().superRefine((input, context) => {
    if (validate(input)) return;
    for (const message of describeErrors(validate, input)) {
      context.addIssue({ code: 'custom', message, path: [] });
    }
  });
  const { $schema: _marker, ...jsonSchema } = schema;
  return { inputSchema, jsonSchema };
}

function ajvFor(schema: Readonly<Record<string, unknown>>): Ajv | Ajv2020 {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('2020-12') || dialect.includes('2019-09')) {
    return (draft2020 ??= new Ajv2020(OPTIONS));
  }
  return (draft07 ??= new Ajv(OPTIONS));
}

function describeErrors(validate: ValidateFunction, input: unknown): string[] {
  const messages = [...new Set((validate.errors ?? []).map((error) => describe(error, input)))];
  if (messages.length <= MAX_MESSAGES) return messages;
  return [
    ...messages.slice(0, MAX_MESSAGES),
    `…and ${messages.length - MAX_MESSAGES} more problems`,
  ];
}

/** In the words of input-errors.ts, which the model already sees for built-in tools. */
function describe(error: ErrorObject, input: unknown): string {
  const path = pathOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const at = (key: unknown) => [...path, String(key)].join('.');
  switch (error.keyword) {
    case 'required':
      return `The required parameter \`${at(params.missingProperty)}\` is missing`;
    case 'additionalProperties':
      return `An unexpected parameter \`${at(params.additionalProperty)}\` was provided`;
    case 'type': {
      const expected = Array.isArray(params.type) ? params.type.join(' or ') : String(params.type);
      if (path.length === 0) return `The input is expected as \`${expected}\``;
      return `The parameter \`${path.join('.')}\` type is expected as \`${expected}\` but provided as \`${typeName(valueAt(input, path))}\``;
    }
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues)
        ? `: ${params.allowedValues.map((value) => JSON.stringify(value)).join(', ')}`
        : '';
      return `The parameter \`${path.join('.')}\` must be one of the allowed values${allowed}`;
    }
    default:
      return path.length === 0
        ? `The input ${error.message ?? 'is invalid'}`
        : `The parameter \`${path.join('.')}\` ${error.message ?? 'is invalid'}`;
  }
}

/** `/a/0/b~1c` → ['a', '0', 'b/c']. */
function pathOf(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function valueAt(input: unknown, path: readonly string[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
