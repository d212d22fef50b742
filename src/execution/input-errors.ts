/**
 * Schema failures rendered for the model: which parameter, what was expected, what came.
 */
import type * as z from 'zod';

export function formatInputValidationError(
  toolName: string,
  error: z.ZodError,
  input: unknown,
): string {
  const issues = error.issues.flatMap((issue) => describeIssue(issue, input).split('\n'));
  const heading =
    issues.length === 1
      ? `${toolName} failed due to the following issue:`
      : `${toolName} failed due to the following issues:`;
  return `InputValidationError: ${heading}\n${issues.join('\n')}`;
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const path = issue.path.map(String).join('.');
  switch (issue.code) {
    case 'invalid_type': {
      const provided = valueAt(input, issue.path);
      if (provided === undefined) return `The required parameter \`${path}\` is missing`;
      return `The parameter \`${path}\` type is expected as \`${issue.expected}\` but provided as \`${typeName(provided)}\``;
    }
    case 'unrecognized_keys':
      return issue.keys
        .map((key) => `An unexpected parameter \`${path ? `${path}.` : ''}${key}\` was provided`)
        .join('\n');
    default:
      return path ? `The parameter \`${path}\` is invalid: ${issue.message}` : issue.message;
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
