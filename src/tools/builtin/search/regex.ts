/**
 * Translates a ripgrep (Rust `regex` crate) pattern into a JavaScript one for the built-in
 * engine. The output is used with the `u` and `s` flags (plus `i`), so that `.` matches any
 * character but the line break a line-by-line search never sees, as in ripgrep.
 *
 * What carries over: Unicode `\w`, `\d` and `\b`; `\A` and `\z`; `\x{…}`; `\pL` and script
 * names in `\p{…}`; POSIX classes `[[:alpha:]]`; `(?P<name>…)`; flags at the very start
 * (`(?i)`, `(?x)`); flag groups `(?i:…)`; escaped punctuation JavaScript would refuse.
 * Known differences (ripgrep refuses or reads them otherwise): flags in the middle of a pattern,
 * nested classes and class set operations (`&&`, `--`, `~~`) are refused; JavaScript extras
 * such as look-around and back-references are accepted.
 */

export class RegexTranslationError extends Error {}

export interface TranslatedRegex {
  source: string;
  ignoreCase: boolean;
  /** Whether some part of the pattern can match a line break (decides multiline counting). */
  mayMatchNewline: boolean;
  /** Whether the pattern names a line break literally (ripgrep refuses it outside multiline). */
  hasLiteralNewline: boolean;
}

export interface TranslateOptions {
  ignoreCase: boolean;
  /** Whole-text matching: `^` and `$` must then stop at `\n` only, not at `\r` too. */
  multiline: boolean;
}

// Unicode's definition of a word character, as the Rust crate uses it.
const WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}';
const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/');

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

export function translateRegex(pattern: string, options: TranslateOptions): TranslatedRegex {
  return new Translator(pattern, options).run();
}

class Translator {
  private index = 0;
  private out = '';
  private ignoreCase: boolean;
  private verbose = false;
  private mayMatchNewline = false;
  private hasLiteralNewline = false;

  constructor(
    private readonly pattern: string,
    private readonly options: TranslateOptions,
  ) {
    this.ignoreCase = options.ignoreCase;
  }

  run(): TranslatedRegex {
    this.leadingFlags();
    while (this.index < this.pattern.length) this.token();
    return {
      source: this.out,
      ignoreCase: this.ignoreCase,
      mayMatchNewline: this.mayMatchNewline,
      hasLiteralNewline: this.hasLiteralNewline,
    };
  }

  private leadingFlags() {
    for (;;) {
      const match = /^\(\?([a-zA-Z-]+)\)/.exec(this.pattern.slice(this.index));
      if (!match) return;
      let enable = true;
      for (const flag of match[1]!) {
        if (flag === '-') enable = false;
        else if (flag === 'i') this.ignoreCase = enable;
        else if (flag === 'x') this.verbose = enable;
        else if (flag === 'U') throw new RegexTranslationError('the (?U) flag is not supported');
        else if (!'msuR'.includes(flag)) {
          throw new RegexTranslationError(`unrecognized flag ${flag}`);
        }
      }
      this.index += match[0].length;
    }
  }

  private token() {
    const char = this.pattern[this.index]!;
    if (this.verbose && this.skipVerbose(char)) return;
    this.index++;
    switch (char) {
      case '\\':
        this.atom(this.escape(false));
        return;
      case '[':
        this.atom(this.characterClass());
        return;
      case '(':
        this.group();
        return;
      case '.':
        this.out += '.';
        if (this.options.multiline) this.mayMatchNewline = true;
        return;
      case '^':
        this.out += this.options.multiline ? '(?<![^\\n])' : '^';
        return;
      case '$':
        this.out += this.options.multiline ? '(?![^\\n])' : '$';
        return;
      case '{': {
        const repetition = /^\d+(?:,\d*)?\}/.exec(this.pattern.slice(this.index));
        this.out += repetition ? `{${repetition[0]}` : '{';
        if (repetition) this.index += repetition[0].length;
        return;
      }
      case '}':
      case ']':
        // Rust reads a stray closing bracket as itself; JavaScript's `u` mode refuses it.
        this.out += `\\${char}`;
        return;
      default:
        this.atom(char);
    }
  }

  private skipVerbose(char: string): boolean {
    if (/\s/u.test(char)) {
      this.index++;
      return true;
    }
    if (char === '#') {
      const end = this.pattern.indexOf('\n', this.index);
      this.index = end === -1 ? this.pattern.length : end + 1;
      return true;
    }
    return false;
  }

  private group() {
    const rest = this.pattern.slice(this.index);
    if (rest.startsWith('?P<')) {
      this.out += '(?<';
      this.index += 3;
      return;
    }
    const flags = /^\?([a-zA-Z-]*)([:)])/.exec(rest);
    if (flags && flags[1] !== '' && flags[2] === ')') {
      throw new RegexTranslationError(
        'inline flags are only supported at the start of the pattern or as a group like (?i:...)',
      );
    }
    this.out += '(';
  }

  /** Appends an atom and notes whether it can match a line break. */
  private atom(source: string) {
    this.out += source;
    if (source === '\n' || source === '\\n') this.hasLiteralNewline = true;
    if (this.mayMatchNewline) return;
    this.mayMatchNewline =
      source.length === 1 ? source === '\n' : matchesNewline(source, this.ignoreCase);
  }

  /** The JavaScript form of the escape after a backslash (already consumed). */
  private escape(inClass: boolean): string {
    const char = this.pattern[this.index];
    if (char === undefined) throw new RegexTranslationError('incomplete escape sequence: \\');
    this.index++;
    switch (char) {
      case 'd':
        return '\\p{Nd}';
      case 'D':
        return '\\P{Nd}';
      case 'w':
        return inClass ? WORD : `[${WORD}]`;
      case 'W':
        // A negated set cannot sit inside a `u` class: the ASCII \W is the nearest there.
        return inClass ? '\\W' : `[^${WORD}]`;
      case 'b':
        if (inClass) return '\\b';
        return `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
      case 'B':
        return `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`;
      case 'A':
        return this.options.multiline ? '(?<![\\s\\S])' : '^';
      case 'z':
        return this.options.multiline ? '(?![\\s\\S])' : '$';
      case 'a':
        return '\\x07';
      case 'x':
        return this.hexEscape();
      case 'p':
      case 'P':
        return this.propertyEscape(char);
      default:
        if (/[A-Za-z0-9]/.test(char)) return `\\${char}`;
        if (JS_SYNTAX.has(char) || (inClass && char === '-')) return `\\${char}`;
        return char;
    }
  }

  private hexEscape(): string {
    const braced = /^\{([0-9a-fA-F]+)\}/.exec(this.pattern.slice(this.index));
    if (braced) {
      this.index += braced[0].length;
      return `\\u{${braced[1]!}}`;
    }
    const short = /^[0-9a-fA-F]{2}/.exec(this.pattern.slice(this.index));
    if (!short) throw new RegexTranslationError('invalid hexadecimal escape');
    this.index += 2;
    return `\\x${short[0]}`;
  }

  private propertyEscape(kind: 'p' | 'P'): string {
    const braced = /^\{([^}]*)\}/.exec(this.pattern.slice(this.index));
    let name: string;
    if (braced) {
      name = braced[1]!.trim();
      this.index += braced[0].length;
    } else {
      name = this.pattern[this.index] ?? '';
      this.index++;
    }
    for (const candidate of [name, `Script=${name}`]) {
      const source = `\\${kind}{${candidate}}`;
      if (isValid(source)) return source;
    }
    throw new RegexTranslationError(`unrecognized Unicode class: ${name}`);
  }

  private characterClass(): string {
    let out = '[';
    if (this.pattern[this.index] === '^') {
      out += '^';
      this.index++;
    }
    // A `]` right after the opening bracket is a literal in Rust; JavaScript would end the class.
    if (this.pattern[this.index] === ']') {
      out += '\\]';
      this.index++;
    }
    for (;;) {
      const char = this.pattern[this.index];
      if (char === undefined) throw new RegexTranslationError('unclosed character class');
      if (char === ']') {
        this.index++;
        return `${out}]`;
      }
      if (char === '[') {
        out += this.posixClass();
        continue;
      }
      const pair = this.pattern.slice(this.index, this.index + 2);
      if (pair === '&&' || pair === '~~' || pair === '--') {
        throw new RegexTranslationError(
          `character class set operations (${pair}) are not supported`,
        );
      }
      this.index++;
      out += char === '\\' ? this.escape(true) : char;
    }
  }

  private posixClass(): string {
    const match = /^\[:(\^?)([a-z]+):\]/.exec(this.pattern.slice(this.index));
    const expansion = match && !match[1] ? POSIX_CLASSES[match[2]!] : undefined;
    if (!match || expansion === undefined) {
      throw new RegexTranslationError('nested character classes are not supported');
    }
    this.index += match[0].length;
    return expansion;
  }
}

function isValid(source: string): boolean {
  try {
    new RegExp(source, 'u');
    return true;
  } catch {
    return false;
  }
}

function matchesNewline(atom: string, ignoreCase: boolean): boolean {
  try {
    return new RegExp(`^(?:${atom})$`, ignoreCase ? 'iu' : 'u').test('\n');
  } catch {
    // An atom that is not valid on its own (a quantifier, a bracket) matches nothing by itself.
    return false;
  }
}
