/**
 * Where JSON text first goes wrong. `JSON.parse` only sometimes says where (it depends on the
 * error and the Node version), and a maintainer needs the line and column to fix a settings file.
 * Called only after `JSON.parse` has failed.
 *
 * Not `jsonc-parser`: it reports an error code, not what was expected, and the code does not say
 * enough to keep these messages (`[` and `[1` both give CloseBracketExpected, where one needs "a
 * value" and the other `"," or "]"`); and it recurses without a bound, so `[[[[…` ten thousand
 * deep ends in a stack overflow instead of the nesting message.
 */
import { MAX_NESTING_DEPTH, nestingMessage } from './nesting.js';

export interface JsonSyntaxError {
  offset: number;
  message: string;
}

const WHITESPACE = /[ \t\n\r]*/y;
// JSON strings may not hold raw control characters, so the pattern must name them.
// eslint-disable-next-line no-control-regex
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

class Stop extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

class Scanner {
  offset = 0;
  constructor(private readonly text: string) {}

  skipWhitespace(): void {
    this.match(WHITESPACE);
  }

  match(pattern: RegExp): boolean {
    pattern.lastIndex = this.offset;
    const found = pattern.exec(this.text);
    if (found) this.offset += found[0].length;
    return found !== null;
  }

  peek(): string | undefined {
    return this.text[this.offset];
  }

  fail(expected: string): never {
    const char = this.peek();
    const found = char === undefined ? 'the end of the file' : JSON.stringify(char);
    throw new Stop(this.offset, `expected ${expected}, found ${found}`);
  }

  expect(char: string, expected: string): void {
    if (this.peek() !== char) this.fail(expected);
    this.offset++;
  }
}

function value(scanner: Scanner, depth: number): void {
  scanner.skipWhitespace();
  const char = scanner.peek();
  // The scanner recurses once per level: stop before the call stack does.
  if ((char === '{' || char === '[') && depth >= MAX_NESTING_DEPTH) {
    throw new Stop(scanner.offset, nestingMessage());
  }
  if (char === '{') return container(scanner, '}', () => member(scanner, depth + 1));
  if (char === '[') return container(scanner, ']', () => value(scanner, depth + 1));
  if (!scanner.match(STRING) && !scanner.match(NUMBER) && !scanner.match(LITERAL)) {
    scanner.fail('a value');
  }
}

function member(scanner: Scanner, depth: number): void {
  scanner.skipWhitespace();
  if (!scanner.match(STRING)) scanner.fail('a property name in double quotes');
  scanner.skipWhitespace();
  scanner.expect(':', '":"');
  value(scanner, depth);
}

function container(scanner: Scanner, close: string, item: () => void): void {
  scanner.offset++;
  scanner.skipWhitespace();
  if (scanner.peek() === close) {
    scanner.offset++;
    return;
  }
  for (;;) {
    item();
    scanner.skipWhitespace();
    if (scanner.peek() === close) {
      scanner.offset++;
      return;
    }
    scanner.expect(',', `"," or "${close}"`);
  }
}

export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const scanner = new Scanner(text);
  try {
    value(scanner, 0);
    scanner.skipWhitespace();
    if (scanner.peek() !== undefined) scanner.fail('the end of the file');
    return undefined;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    return { offset: error.offset, message: error.message };
  }
}
