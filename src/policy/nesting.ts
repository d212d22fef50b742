/**
 * How deep lists and mappings nest in a YAML or JSON text, measured before anything walks the
 * value recursively. The YAML composer, `JSON.stringify` (in messages), zod and the locator all
 * recurse, and a file nested ten thousand levels deep (`[[[[…]]]]`) would otherwise end the run
 * with "Maximum call stack size exceeded" and no file name.
 *
 * 1. a linear scan of the text: brackets outside quotes and comments, and runs of `- ` that open
 *    block sequences on one line; the parser below slows down steeply with depth (seconds at
 *    100 000 levels), so the common attack is refused before it runs;
 * 2. the exact measure: the YAML parser's concrete syntax tree (which the parser builds with its
 *    own stack, not the call stack), walked with an explicit stack.
 * JSON is YAML, so one measure serves both; aliases are not followed (YAML's alias limit bounds
 * what they add).
 */
import type { CST } from 'yaml';
import { LineCounter, Parser } from 'yaml';
import type { PolicyIssue } from './policy-error.js';
import { PolicyError } from './policy-error.js';

/** Far beyond any real policy or settings file (they nest five or six levels). */
export const MAX_NESTING_DEPTH = 64;

/** A place in a text, both counted from 1. */
export interface Position {
  line: number;
  column: number;
}

/**
 * Where the first collection nested deeper than `limit` starts in `text`, or undefined when none
 * does.
 */
export function findExcessNesting(
  text: string,
  limit: number = MAX_NESTING_DEPTH,
): Position | undefined {
  const scanned = scanOffset(text, limit);
  if (scanned !== undefined) return positionAt(text, scanned);
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

/** The line and column of `offset` (lines end at "\n"). */
export function positionAt(text: string, offset: number): Position {
  const lineStart = offset === 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
  let line = 1;
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < offset;
    index = text.indexOf('\n', index + 1)
  ) {
    line++;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Where the text visibly opens more than `limit` collections: brackets (outside quoted scalars
 * and comments) or `- - - …` at the start of a line. It never counts more levels than the parser
 * finds, give or take brackets inside unquoted text, which real files keep balanced.
 */
function scanOffset(text: string, limit: number): number | undefined {
  let depth = 0;
  let lineStart = true;
  let dashes = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    const previous = index === 0 ? '\n' : text[index - 1];
    if (char === '\n') {
      lineStart = true;
      dashes = 0;
      continue;
    }
    if (lineStart && (char === ' ' || char === '\t')) continue;
    if (lineStart && char === '-' && (text[index + 1] === ' ' || text[index + 1] === '\t')) {
      if (++dashes > limit) return index;
      index++;
      continue;
    }
    lineStart = false;
    if ((char === '"' || char === "'") && (previous === undefined || /[\s[{,:]/.test(previous))) {
      index = closingQuote(text, index);
    } else if (char === '#' && (previous === undefined || /\s/.test(previous))) {
      const end = text.indexOf('\n', index);
      index = (end === -1 ? text.length : end) - 1;
    } else if (char === '[' || char === '{') {
      if (++depth > limit) return index;
    } else if ((char === ']' || char === '}') && depth > 0) {
      depth--;
    }
  }
  return undefined;
}

/** The index of the quote that closes the scalar opened at `start` (or the end of the text). */
function closingQuote(text: string, start: number): number {
  const quote = text[start];
  for (let index = start + 1; index < text.length; index++) {
    if (quote === '"' && text[index] === '\\') index++;
    else if (text[index] === quote) return index;
  }
  return text.length;
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
    // Reversed, so the walk meets collections in the order of the text.
    for (const child of children(token).reverse()) stack.push({ token: child, depth });
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
