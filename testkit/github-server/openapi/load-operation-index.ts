/**
 * The OperationIndex backed by GitHub's OpenAPI description from @octokit/openapi (a dev
 * dependency: tests use it; the demo bundle runs the fake server without it).
 *
 * Loading: read `api.github.com.json` once per process, index every operation by method and path
 * template. Validating: on the first request to an operation, compile two Ajv validators (its
 * path/query parameters, with string coercion as they arrive in the URL; its JSON body, without
 * coercion, so `labels: "x"` stays wrong) and keep them.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { OperationIndex, OperationMatch, RequestParts } from '../operation-index.js';
import { createRouteTable } from '../path-template.js';
import type { RouteTable } from '../path-template.js';
import { describeErrors } from './describe-errors.js';
import { SchemaBundler, isRecord, resolvePointer } from './schema-bundle.js';
import type { SchemaObject } from './schema-bundle.js';

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];

interface Operation {
  operationId: string;
  parameters: unknown[];
  requestBody: unknown;
}

interface OperationValidator {
  parameters: ValidateFunction;
  queryNames: ReadonlySet<string>;
  body?: { validate: ValidateFunction; required: boolean; properties?: ReadonlySet<string> };
  /** Set when the operation takes no body at all. */
  bodyless: boolean;
}

let defaultIndex: Promise<OperationIndex> | undefined;

/** The index of `api.github.com.json`; read once per process unless a path is given. */
export function loadOperationIndex(descriptionPath?: string): Promise<OperationIndex> {
  if (descriptionPath !== undefined) return readIndex(descriptionPath);
  defaultIndex ??= readIndex(defaultDescriptionPath());
  return defaultIndex;
}

export function defaultDescriptionPath(): string {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve('@octokit/openapi/package.json');
  return join(dirname(packageJson), 'generated', 'api.github.com.json');
}

async function readIndex(path: string): Promise<OperationIndex> {
  const document: unknown = JSON.parse(await readFile(path, 'utf8'));
  return createOperationIndex(document);
}

export function createOperationIndex(document: unknown): OperationIndex {
  const paths = isRecord(document) ? document['paths'] : undefined;
  if (!isRecord(paths)) throw new Error('The OpenAPI description has no "paths" object.');
  const tables = new Map<string, RouteTable<Operation>>();
  const operations = new Map<string, Operation>();
  for (const method of METHODS) {
    const entries: [string, Operation][] = [];
    for (const [template, item] of Object.entries(paths)) {
      const operation = isRecord(item) ? item[method] : undefined;
      if (!isRecord(operation)) continue;
      const entry: Operation = {
        operationId:
          typeof operation['operationId'] === 'string'
            ? operation['operationId']
            : `${method} ${template}`,
        parameters: Array.isArray(operation['parameters']) ? operation['parameters'] : [],
        requestBody: operation['requestBody'],
      };
      entries.push([template, entry]);
      operations.set(`${method.toUpperCase()} ${template}`, entry);
    }
    if (entries.length > 0) tables.set(method.toUpperCase(), createRouteTable(entries));
  }

  const validators = new Map<string, OperationValidator>();
  let compiler: Compiler | undefined;
  const validatorFor = (key: string, operation: Operation): OperationValidator => {
    let validator = validators.get(key);
    if (validator === undefined) {
      compiler ??= new Compiler(document);
      validator = compiler.compile(operation);
      validators.set(key, validator);
    }
    return validator;
  };

  return {
    operationCount: operations.size,
    match(method, pathname) {
      const found = tables.get(method.toUpperCase())?.match(pathname);
      if (found === undefined) return undefined;
      return {
        template: found.template,
        method: method.toUpperCase(),
        operationId: found.value.operationId,
        params: found.params,
      };
    },
    validate(match, request) {
      const key = `${match.method} ${match.template}`;
      const operation = operations.get(key);
      if (operation === undefined) return [`the description has no operation ${key}`];
      return check(validatorFor(key, operation), match, request);
    },
  };
}

function check(
  validator: OperationValidator,
  match: OperationMatch,
  request: RequestParts,
): string[] {
  const violations: string[] = [];
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(request.query.keys())) {
    const values = request.query.getAll(name);
    query[name] = values.length === 1 ? (values[0] ?? '') : values;
    if (!validator.queryNames.has(name)) {
      violations.push(`query parameter '${name}' is not defined for this operation`);
    }
  }
  // Ajv coerces in place; the copies keep the recorded request as it arrived.
  const parameters = { path: { ...match.params }, query };
  if (!validator.parameters(parameters)) {
    violations.push(...describeErrors(validator.parameters.errors, 'parameters'));
  }

  const { body } = request;
  if (validator.body === undefined) {
    const empty = body === undefined || (isRecord(body) && Object.keys(body).length === 0);
    if (validator.bodyless && !empty) violations.push('this operation takes no request body');
  } else if (body === undefined) {
    if (validator.body.required) violations.push('the request body is required');
  } else {
    if (!validator.body.validate(body)) {
      violations.push(...describeErrors(validator.body.validate.errors, 'body'));
    }
    const known = validator.body.properties;
    if (known !== undefined && isRecord(body)) {
      for (const name of Object.keys(body)) {
        if (!known.has(name)) violations.push(`body has property '${name}', which is not defined`);
      }
    }
  }
  return violations;
}

/** Two Ajv instances sharing formats: parameters coerce from URL strings, bodies do not. */
class Compiler {
  private readonly parameterAjv = new Ajv({ strict: false, allErrors: true, coerceTypes: 'array' });
  private readonly bodyAjv = new Ajv({ strict: false, allErrors: true });

  constructor(private readonly document: unknown) {
    for (const ajv of [this.parameterAjv, this.bodyAjv]) {
      for (const [name, format] of Object.entries(fullFormats)) ajv.addFormat(name, format);
    }
  }

  compile(operation: Operation): OperationValidator {
    const bundler = new SchemaBundler(this.document);
    const path: SchemaObject = {};
    const query: SchemaObject = {};
    const requiredPath: string[] = [];
    const requiredQuery: string[] = [];
    for (const entry of operation.parameters) {
      const parameter =
        isRecord(entry) && typeof entry['$ref'] === 'string'
          ? resolvePointer(this.document, entry['$ref'])
          : entry;
      if (!isRecord(parameter) || typeof parameter['name'] !== 'string') continue;
      const name = parameter['name'];
      const schema = bundler.rewrite(parameter['schema'] ?? {});
      if (parameter['in'] === 'path') {
        path[name] = schema;
        requiredPath.push(name);
      } else if (parameter['in'] === 'query') {
        query[name] = schema;
        if (parameter['required'] === true) requiredQuery.push(name);
      }
    }
    const parameters = this.parameterAjv.compile({
      type: 'object',
      properties: {
        path: { type: 'object', properties: path, required: requiredPath },
        query: { type: 'object', properties: query, required: requiredQuery },
      },
      definitions: bundler.collected(),
    });
    this.registerFormats(bundler.formats);

    const requestBody = operation.requestBody;
    const content = isRecord(requestBody) ? requestBody['content'] : undefined;
    const json = isRecord(content) ? content['application/json'] : undefined;
    const validator: OperationValidator = {
      parameters,
      queryNames: new Set(Object.keys(query)),
      bodyless: requestBody === undefined,
    };
    if (isRecord(json) && isRecord(requestBody)) {
      const bodyBundler = new SchemaBundler(this.document);
      const schema = bodyBundler.bundle(json['schema'] ?? {});
      this.registerFormats(bodyBundler.formats);
      validator.body = {
        validate: this.bodyAjv.compile(schema),
        required: requestBody['required'] === true,
        properties: closedProperties(schema),
      };
    }
    return validator;
  }

  private registerFormats(formats: ReadonlySet<string>): void {
    // GitHub uses a few formats of its own (`repo.nwo`, `timestamp`); they are not checked.
    for (const name of formats) {
      for (const ajv of [this.parameterAjv, this.bodyAjv]) {
        if (ajv.formats[name] === undefined) ajv.addFormat(name, true);
      }
    }
  }
}

/**
 * The property names of a plain object schema. GitHub ignores unknown body properties, so a
 * misspelt parameter fails silently there; flagging it here catches the mistake in tests.
 */
function closedProperties(schema: SchemaObject): ReadonlySet<string> | undefined {
  const properties = schema['properties'];
  if (schema['type'] !== 'object' || !isRecord(properties)) return undefined;
  if (schema['additionalProperties'] !== undefined) return undefined;
  if (['allOf', 'anyOf', 'oneOf'].some((key) => key in schema)) return undefined;
  return new Set(Object.keys(properties));
}
