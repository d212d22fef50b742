/**
 * Ajv errors as sentences a test failure can be read from: where (`path parameter 'issue_number'`,
 * `query parameter 'state'`, `body/labels`), what was expected, and the allowed values for enums.
 */
import type { ErrorObject } from 'ajv';

export function describeErrors(
  errors: ErrorObject[] | null | undefined,
  scope: 'parameters' | 'body',
): string[] {
  const messages = (errors ?? []).map((error) => {
    const where = scope === 'body' ? bodyLocation(error) : parameterLocation(error);
    return `${where} ${describe(error)}`;
  });
  return [...new Set(messages)];
}

function describe(error: ErrorObject): string {
  const params: Record<string, unknown> = error.params;
  const message = error.message ?? error.keyword;
  if (error.keyword === 'required') return `is required`;
  if (error.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
    return `${message}: ${params['allowedValues'].map((value) => JSON.stringify(value)).join(', ')}`;
  }
  if (error.keyword === 'additionalProperties') {
    return `must not have property '${String(params['additionalProperty'])}'`;
  }
  return message;
}

function bodyLocation(error: ErrorObject): string {
  const missing = error.keyword === 'required' ? missingProperty(error) : undefined;
  const path = missing === undefined ? error.instancePath : `${error.instancePath}/${missing}`;
  return `body${path}`;
}

function parameterLocation(error: ErrorObject): string {
  const [, kind, name] = error.instancePath.split('/');
  const parameter = name ?? (error.keyword === 'required' ? missingProperty(error) : undefined);
  const label = kind === 'path' ? 'path parameter' : 'query parameter';
  return parameter === undefined ? label : `${label} '${decodePointer(parameter)}'`;
}

function missingProperty(error: ErrorObject): string | undefined {
  const params: Record<string, unknown> = error.params;
  const missing = params['missingProperty'];
  return typeof missing === 'string' ? missing : undefined;
}

function decodePointer(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}
