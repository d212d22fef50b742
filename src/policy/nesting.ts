/**
 * How deep lists and mappings nest in a YAML or JSON text, measured before anything walks the
 * value recursively. The YAML composer, `JSON.stringify` (in messages), zod and the locator all
 * recurse, and a file nested ten thousand levels deep (`[[[[…]]]]`) would otherwise end the run
 * with "Maximum call stack size exceeded" and no file name.
 *
 * The measure walks the YAML parser's concrete syntax tree (which the parser builds with its own
 * stack, not the call stack) with an explicit stack. JSON is YAML, so one measure serves both;
 * aliases are not followed (YAML's alias limit bounds what they add).
 */
import type { CST } from 'yaml';
import { LineCounter, Parser } from 'yaml';
import type { PolicyIssue } from './policy-error.js';
import { PolicyError } from './policy-error.js';

/** Far beyond any real policy, settings or MCP file (they nest five or six levels). */
export const MAX_NESTING_DEPTH = 64;

export interface ExcessNesting {
  /** Where the first collection beyond the limit starts. */
  line: number;
  column: number;
}

/** The first place `text` nests deeper than `limit`, or undefined when it never does. */
export function findExcessNesting(
  text: string,
  limit: number = MAX_NESTING_DEPTH,
): ExcessNesting | undefined {
  const lines = new LineCounter();
  for (const token of new Parser(lines.addNewLine).parse(text)) {
    const offset = excessOffset(token, limit);
    if (offset !== undefined) {
      const { line, col } = lines.linePos(offset);
      return { line, column: col };
    }
  }
  return undefined;
}

/** The message every loader uses, so a deep file reads the same wherever it is found. */
export function nestingMessage(limit: number = MAX_NESTING_DEPTH): string {
  return `nested more than ${limit} levels deep (lists and mappings inside one another); expected a flatter file`;
}

/** Throws a PolicyError naming the file and the position when `text` nests too deep. */
export function assertNesting(file: string, text: string): void {
  const excess = findExcessNesting(text);
  if (excess === undefined) return;
  const issue: PolicyIssue = { file, path: [], ...excess, message: nestingMessage() };
  throw new PolicyError([issue]);
}

function excessOffset(root: CST.Token, limit: number): number | undefined {
  const stack: { token: CST.Token; depth: number }[] = [{ token: root, depth: 0 }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { token } = entry;
    let depth = entry.depth;
    if (
      token.type === 'block-map' ||
      token.type === 'block-seq' ||
      token.type === 'flow-collection'
    ) {
      depth += 1;
      if (depth > limit) return token.offset;
    }
    for (const child of children(token)) stack.push({ token: child, depth });
  }
  return undefined;
}

function children(token: CST.Token): CST.Token[] {
  switch (token.type) {
    case 'document':
      return token.value ? [token.value] : [];
    case 'block-map':
    case 'block-seq':
    case 'flow-collection':
      return token.items.flatMap((item: CST.CollectionItem) =>
        [item.key, item.value].filter((child): child is CST.Token => !!child),
      );
    case 'block-scalar':
      return token.props;
    default:
      return [];
  }
}
