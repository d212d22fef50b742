/**
 * Reads shell words: quoting, escapes and every expansion that can hide a command. A word ends at
 * an unquoted blank or operator character. Each `$( … )`, backtick body and process substitution
 * met on the way is parsed and added to the caller's `nested` list.
 */
import type { ExpansionKind, NestedScript, SimpleCommand, Word } from './types.js';
import { ShellSyntaxError } from './shell-syntax-error.js';

const WORD_END = /[ \t\n;&|()<>]/;
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
const SPECIAL_PARAMETER = /[0-9@*#?$!-]/;
/** Subshells, substitutions and expansions inside each other, this deep. */
const MAX_NESTING = 64;
const ANSI_C_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Collects what one word is made of while it is read. */
class WordBuilder {
  value = '';
  readonly expansions = new Set<ExpansionKind>();
  private started = false;
  leadingDynamic = false;

  literal(text: string) {
    if (text !== '') this.started = true;
    this.value += text;
  }

  dynamic(kind: ExpansionKind, text: string) {
    if (!this.started && kind !== 'tilde') this.leadingDynamic = true;
    this.started = true;
    this.expansions.add(kind);
    this.value += text;
  }
}

export abstract class WordReader {
  protected pos = 0;
  /** Open lists and expansions around the current position. */
  protected nesting = 0;

  constructor(
    protected readonly source: string,
    protected readonly parseNested: (source: string) => SimpleCommand[],
  ) {}

  /** Reads a `( … )` command list after its `(`; the parser implements it. */
  protected abstract readParenthesized(): SimpleCommand[];

  /** A quoted newline before pending here-document bodies would need bash's exact line rules. */
  protected hasPendingHeredoc(): boolean {
    return false;
  }

  protected peek(): string {
    return this.source[this.pos] ?? '';
  }

  protected atEnd(): boolean {
    return this.pos >= this.source.length;
  }

  protected fail(message: string): never {
    throw new ShellSyntaxError(message);
  }

  /** Skips blanks, line continuations and a comment, stopping before a newline. */
  protected skipBlanks() {
    for (;;) {
      const next = this.peek();
      if (next === ' ' || next === '\t') this.pos++;
      else if (next === '\\' && this.source[this.pos + 1] === '\n') this.pos += 2;
      else if (next === '#') {
        const end = this.source.indexOf('\n', this.pos);
        this.pos = end === -1 ? this.source.length : end;
      } else return;
    }
  }

  protected readWord(nested: NestedScript[]): Word {
    const start = this.pos;
    const word = new WordBuilder();
    while (!this.atEnd()) {
      const char = this.peek();
      const next = this.source[this.pos + 1];
      if ((char === '<' || char === '>') && next === '(') {
        const substitutionStart = this.pos;
        this.pos += 2;
        nested.push({ origin: 'process-substitution', commands: this.readParenthesized() });
        word.dynamic('process', this.source.slice(substitutionStart, this.pos));
        continue;
      }
      if (WORD_END.test(char)) break;
      if (char === '\\') {
        if (next === '\n') this.pos += 2;
        else {
          word.literal(next ?? '\\');
          this.pos += next === undefined ? 1 : 2;
        }
      } else if (char === "'") {
        word.literal(this.readSingleQuoted());
      } else if (char === '"') {
        this.pos++;
        this.readDoubleQuoted(word, nested, '"');
      } else if (char === '$') {
        this.readDollar(word, nested, false);
      } else if (char === '`') {
        this.readBackticks(word, nested, false);
      } else {
        this.pos++;
        if (char === '*' || char === '?') word.dynamic('glob', char);
        // A lone `[` or `{` stays literal in bash; only a closed one can expand.
        else if (char === '[' && this.restOfWordHas(']')) word.dynamic('glob', char);
        else if (char === '{' && this.restOfWordHas('}')) word.dynamic('brace', char);
        else if (char === '~' && this.pos - 1 === start) word.dynamic('tilde', char);
        else word.literal(char);
      }
    }
    if (this.pos === start) this.fail(`unexpected "${this.peek()}"`);
    return {
      raw: this.source.slice(start, this.pos),
      value: word.value,
      expansions: [...word.expansions],
      leadingDynamic: word.leadingDynamic,
    };
  }

  /** The last lookahead per character: `[[[[…` must not be rescanned from every bracket. */
  private readonly lookahead = new Map<string, { from: number; to: number; found: boolean }>();

  /** Whether `char` comes before the end of the current word (quotes not considered). */
  private restOfWordHas(char: string): boolean {
    const cached = this.lookahead.get(char);
    if (cached && cached.from <= this.pos && this.pos <= cached.to) return cached.found;
    let index = this.pos;
    let found = false;
    for (; index < this.source.length; index++) {
      const current = this.source[index] ?? '';
      if (current === char) found = true;
      if (found || WORD_END.test(current)) break;
    }
    this.lookahead.set(char, { from: this.pos, to: index, found });
    return found;
  }

  /** Expansions in an unquoted here-document body: like a double-quoted string without quotes. */
  readHeredocBody(): NestedScript[] {
    const nested: NestedScript[] = [];
    this.readDoubleQuoted(new WordBuilder(), nested, null);
    return nested;
  }

  private readSingleQuoted(): string {
    const end = this.source.indexOf("'", this.pos + 1);
    if (end === -1) this.fail('unterminated single quote');
    const text = this.source.slice(this.pos + 1, end);
    if (text.includes('\n') && this.hasPendingHeredoc())
      this.fail('quoted newline before a here-document body');
    this.pos = end + 1;
    return text;
  }

  /** Reads after the opening quote up to the closing one (or to the end for a heredoc body). */
  private readDoubleQuoted(word: WordBuilder, nested: NestedScript[], quote: '"' | null) {
    for (;;) {
      if (this.atEnd()) {
        if (quote === null) return;
        this.fail('unterminated double quote');
      }
      const char = this.peek();
      if (char === quote) {
        this.pos++;
        return;
      }
      if (char === '\n' && quote !== null && this.hasPendingHeredoc()) {
        this.fail('quoted newline before a here-document body');
      }
      const next = this.source[this.pos + 1];
      if (char === '\\' && next !== undefined && /[$`"\\\n]/.test(next)) {
        if (next !== '\n') word.literal(next);
        this.pos += 2;
      } else if (char === '$') {
        this.readDollar(word, nested, true);
      } else if (char === '`') {
        this.readBackticks(word, nested, true);
      } else {
        word.literal(char);
        this.pos++;
      }
    }
  }

  private readDollar(word: WordBuilder, nested: NestedScript[], quoted: boolean) {
    this.enter();
    this.readDollarExpansion(word, nested, quoted);
    this.nesting--;
  }

  /** Counts one level of nesting; refuses input nested deeper than the parser will follow. */
  protected enter() {
    if (++this.nesting > MAX_NESTING) this.fail('commands are nested too deeply');
  }

  private readDollarExpansion(word: WordBuilder, nested: NestedScript[], quoted: boolean) {
    const start = this.pos;
    const next = this.source[this.pos + 1] ?? '';
    if (next === '(' && this.source[this.pos + 2] === '(') {
      this.pos += 3;
      this.skipArithmetic(nested);
      word.dynamic('arithmetic', this.source.slice(start, this.pos));
    } else if (next === '[') {
      // `$[ … ]`: bash's older spelling of `$(( … ))`.
      this.pos += 2;
      this.skipToCloser('[', ']', nested);
      word.dynamic('arithmetic', this.source.slice(start, this.pos));
    } else if (next === '(') {
      this.pos += 2;
      nested.push({ origin: 'command-substitution', commands: this.readParenthesized() });
      word.dynamic('command', this.source.slice(start, this.pos));
    } else if (next === '{') {
      this.pos += 2;
      this.skipBraced(nested);
      const text = this.source.slice(start, this.pos);
      // `${x@P}` expands the value as a prompt string, which runs command substitutions in it.
      if (/@P\}$/.test(text)) this.fail('prompt expansion ${…@P} is not supported');
      word.dynamic('parameter', text);
    } else if (!quoted && next === "'") {
      this.pos += 1;
      word.literal(this.readAnsiC());
    } else if (!quoted && next === '"') {
      this.pos += 2;
      this.readDoubleQuoted(word, nested, '"');
    } else if (NAME_START.test(next)) {
      this.pos += 2;
      while (NAME_CHAR.test(this.peek())) this.pos++;
      word.dynamic('parameter', this.source.slice(start, this.pos));
    } else if (SPECIAL_PARAMETER.test(next) && next !== '') {
      this.pos += 2;
      word.dynamic('parameter', this.source.slice(start, this.pos));
    } else {
      this.pos++;
      word.literal('$');
    }
  }

  /** Skips to the `))` closing `$((`; substitutions inside still count. */
  private skipArithmetic(nested: NestedScript[]) {
    let depth = 0;
    const scratch = new WordBuilder();
    for (;;) {
      if (this.atEnd()) this.fail('unterminated $((');
      const char = this.peek();
      if (char === ')' && depth === 0) {
        if (this.source[this.pos + 1] !== ')') this.fail('unterminated $((');
        this.pos += 2;
        return;
      }
      if (char === '(') depth++;
      if (char === ')') depth--;
      this.skipInsideExpansion(scratch, nested);
    }
  }

  /** Skips to the `}` closing `${`, across nested braces, quotes and substitutions. */
  private skipBraced(nested: NestedScript[]) {
    this.skipToCloser('{', '}', nested);
  }

  private skipToCloser(opener: string, closer: string, nested: NestedScript[]) {
    let depth = 0;
    const scratch = new WordBuilder();
    for (;;) {
      if (this.atEnd()) this.fail(`unterminated $${opener}`);
      const char = this.peek();
      if (char === closer && depth === 0) {
        this.pos++;
        return;
      }
      if (char === opener) depth++;
      if (char === closer) depth--;
      this.skipInsideExpansion(scratch, nested);
    }
  }

  private skipInsideExpansion(scratch: WordBuilder, nested: NestedScript[]) {
    const char = this.peek();
    if (char === "'") this.readSingleQuoted();
    else if (char === '"') {
      this.pos++;
      this.readDoubleQuoted(scratch, nested, '"');
    } else if (char === '$') this.readDollar(scratch, nested, true);
    else if (char === '`') this.readBackticks(scratch, nested, true);
    else if (char === '\\') this.pos += 2;
    else this.pos++;
  }

  private readBackticks(word: WordBuilder, nested: NestedScript[], quoted: boolean) {
    const start = this.pos;
    this.pos++;
    let body = '';
    for (;;) {
      if (this.atEnd()) this.fail('unterminated backtick');
      const char = this.peek();
      if (char === '`') break;
      const next = this.source[this.pos + 1];
      const escapable = quoted ? /[$`\\"]/ : /[$`\\]/;
      if (char === '\\' && next !== undefined && escapable.test(next)) {
        body += next;
        this.pos += 2;
      } else {
        body += char;
        this.pos++;
      }
    }
    this.pos++;
    nested.push({ origin: 'backticks', commands: this.parseNested(body) });
    word.dynamic('command', this.source.slice(start, this.pos));
  }

  /** `$'…'` after the `$`: a literal with C-style escapes. */
  private readAnsiC(): string {
    this.pos++;
    let text = '';
    for (;;) {
      if (this.atEnd()) this.fail("unterminated $'");
      const char = this.peek();
      if (char === "'") {
        this.pos++;
        return text;
      }
      if (char !== '\\') {
        text += char;
        this.pos++;
        continue;
      }
      const escape = this.source[this.pos + 1] ?? '';
      const simple = ANSI_C_ESCAPES[escape];
      const numeric = /^(x[0-9A-Fa-f]{1,2}|[0-7]{1,3}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8})/.exec(
        this.source.slice(this.pos + 1),
      );
      if (simple !== undefined && Object.hasOwn(ANSI_C_ESCAPES, escape)) {
        text += simple;
        this.pos += 2;
      } else if (numeric) {
        const digits = numeric[0];
        const code = /^[0-7]/.test(digits) ? parseInt(digits, 8) : parseInt(digits.slice(1), 16);
        text += String.fromCodePoint(Math.min(code, 0x10ffff));
        this.pos += 1 + digits.length;
      } else {
        text += `\\${escape}`;
        this.pos += 2;
      }
    }
  }
}
