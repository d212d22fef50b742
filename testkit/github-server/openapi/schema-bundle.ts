/**
 * Turns schemas from GitHub's OpenAPI description into self-contained JSON Schemas Ajv compiles
 * quickly. We read the description with its `$ref`s in place (13 MB, parsed in a few hundred ms)
 * rather than the dereferenced copy (73 MB, over 2 s), and copy only what one operation reaches:
 *
 * 1. `$ref: '#/components/…'` becomes `$ref: '#/definitions/…'`, and the referenced schema is
 *    copied (once) into `definitions`, so cycles stay references.
 * 2. OpenAPI 3.0's `nullable: true` becomes standard JSON Schema (`type: [t, 'null']`, or an
 *    `anyOf` with `null` where there is no `type`), which Ajv otherwise rejects without a `type`.
 * 3. Annotations (descriptions, examples, `x-*`) are dropped; format names are collected so the
 *    caller can register the ones Ajv does not know.
 */

export type SchemaObject = Record<string, unknown>;

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_VALUES = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
]);
const ANNOTATIONS = new Set([
  'description',
  'title',
  'example',
  'examples',
  'externalDocs',
  'xml',
  'deprecated',
  'discriminator',
  'readOnly',
  'writeOnly',
]);

export class SchemaBundler {
  readonly formats = new Set<string>();
  private readonly definitions: SchemaObject = {};

  constructor(private readonly document: unknown) {}

  /** A copy of `schema` whose references point into this bundle's definitions. */
  rewrite(schema: unknown): unknown {
    if (!isRecord(schema)) return schema;
    // OpenAPI 3.0 ignores the siblings of a $ref.
    if (typeof schema['$ref'] === 'string') return { $ref: this.reference(schema['$ref']) };
    const copy: SchemaObject = {};
    for (const [key, value] of Object.entries(schema)) {
      if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
      if (SCHEMA_MAPS.has(key) && isRecord(value)) {
        copy[key] = Object.fromEntries(
          Object.entries(value).map(([name, child]) => [name, this.rewrite(child)]),
        );
      } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
        copy[key] = value.map((child) => this.rewrite(child));
      } else if (SCHEMA_VALUES.has(key)) {
        copy[key] = Array.isArray(value)
          ? value.map((child) => this.rewrite(child))
          : this.rewrite(value);
      } else {
        if (key === 'format' && typeof value === 'string') this.formats.add(value);
        copy[key] = value;
      }
    }
    return normaliseNullable(copy);
  }

  /** `schema` rewritten, with every definition it reaches attached. */
  bundle(schema: unknown): SchemaObject {
    const root = this.rewrite(schema);
    return { ...(isRecord(root) ? root : {}), definitions: this.definitions };
  }

  /** The definitions collected so far, for a schema assembled by the caller. */
  collected(): SchemaObject {
    return this.definitions;
  }

  private reference(pointer: string): string {
    if (!pointer.startsWith('#/')) {
      throw new Error(`Only local references are supported in the description, got ${pointer}`);
    }
    const key = pointer.slice(2).replaceAll('/', '.');
    if (!(key in this.definitions)) {
      // Reserve the slot first: a schema that reaches itself must find it taken.
      this.definitions[key] = {};
      this.definitions[key] = this.rewrite(resolvePointer(this.document, pointer));
    }
    return `#/definitions/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
  }
}

/** The value at a local JSON pointer (`#/components/schemas/issue`); throws when it is missing. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.replace(/^#\/?/, '').split('/')) {
    if (raw === '') continue;
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = Array.isArray(node) ? node[Number(token)] : isRecord(node) ? node[token] : undefined;
    if (node === undefined) throw new Error(`The description has nothing at ${pointer}`);
  }
  return node;
}

function normaliseNullable(schema: SchemaObject): SchemaObject {
  const nullable = schema['nullable'];
  if (nullable === undefined) return schema;
  const { nullable: _dropped, ...rest } = schema;
  if (nullable !== true) return rest;
  const allowed: unknown = rest['enum'];
  if (isList(allowed) && !allowed.includes(null)) rest['enum'] = [...allowed, null];
  const type = rest['type'];
  if (typeof type === 'string') return { ...rest, type: [type, 'null'] };
  if (isList(type)) return type.includes('null') ? rest : { ...rest, type: [...type, 'null'] };
  return { anyOf: [{ type: 'null' }, rest] };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isList(value: unknown): value is unknown[] {
  return Array.isArray(value);
}
