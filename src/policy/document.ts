/**
 * Text → value, keeping a way back from a path inside the value to a line and column, so every
 * message can point at the place to fix. YAML 1.2 is a superset of JSON, so the YAML parser also
 * locates nodes in JSON files; `.json` files are first parsed strictly as JSON.
 */
import type { Node } from 'yaml';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { PathSegment, PolicyIssue } from './policy-error.js';
import { PolicyError } from './policy-error.js';
import { findJsonSyntaxError } from './json-syntax.js';
import type { Position } from './nesting.js';
import { assertNesting, positionAt } from './nesting.js';

export type { Position };

export interface ParsedDocument {
  value: unknown;
  /** The position of the deepest node on `path` (its key when `key` is set); missing nodes give their parent's. */
  locate(path: readonly PathSegment[], options?: { key?: boolean }): Position | undefined;
}

type YamlDocument = ReturnType<typeof parseDocument>;

function makeLocator(document: YamlDocument, lines: LineCounter): ParsedDocument['locate'] {
  return (path, options = {}) => {
    let node: unknown = document.contents;
    let found: Node | undefined = isNodeWithRange(node) ? node : undefined;
    for (const [index, segment] of path.entries()) {
      if (isAlias(node)) node = node.resolve(document);
      let next: unknown;
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && item.key.value === segment);
        const last = index === path.length - 1;
        next = pair && (options.key && last ? pair.key : pair.value);
      } else if (isSeq(node) && typeof segment === 'number') {
        next = node.items[segment];
      }
      if (!isNodeWithRange(next)) break;
      node = next;
      found = next;
    }
    const offset = found?.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
}

function isNodeWithRange(value: unknown): value is Node {
  return (isScalar(value) || isMap(value) || isSeq(value) || isAlias(value)) && !!value.range;
}

function readYaml(text: string): { document: YamlDocument; lines: LineCounter } {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  return { document, lines };
}

export function parseYaml(file: string, text: string): ParsedDocument {
  // First: every later step recurses on the nesting.
  assertNesting(file, text);
  const { document, lines } = readYaml(text);
  if (document.errors.length > 0) {
    throw new PolicyError(
      document.errors.map((error): PolicyIssue => {
        const { line, col } = lines.linePos(error.pos[0]);
        return { file, path: [], line, column: col, message: `invalid YAML: ${error.message}` };
      }),
    );
  }
  let value: unknown;
  try {
    value = document.toJS();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new PolicyError([{ file, path: [], message: `invalid YAML: ${message}` }]);
  }
  return { value, locate: makeLocator(document, lines) };
}

export function parseJson(file: string, text: string): ParsedDocument {
  // Editors on Windows may save a byte-order mark, which JSON.parse refuses.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const found = findJsonSyntaxError(body);
    const detail = found?.message ?? (error instanceof Error ? error.message : String(error));
    const position = found && positionAt(body, found.offset);
    throw new PolicyError([{ file, path: [], ...position, message: `invalid JSON: ${detail}` }]);
  }
  // JSON.parse does not recurse, but the locator, the schema and the messages do.
  assertNesting(file, body);
  // Valid JSON is valid YAML 1.2: the YAML parser only serves to find positions.
  const { document, lines } = readYaml(body);
  const locate: ParsedDocument['locate'] =
    document.errors.length === 0 ? makeLocator(document, lines) : () => undefined;
  return { value, locate };
}
