/**
 * A recursive-descent reader for the subset of bash that `parse-command.ts` documents. One instance reads
 * one script; `$( … )` and process substitutions are read by the same instance (they share the
 * source and its pending here-documents), backtick bodies and here-document bodies by the
 * `parseNested` callback. Anything outside the subset throws ShellSyntaxError.
 */
import type {
  Assignment,
  NestedScript,
  RedirectOperator,
  Redirection,
  SimpleCommand,
  Word,
} from './types.js';
import { WordReader } from './word-reader.js';

/** Words that open or close bash compound commands, which this parser does not model. */
const UNSUPPORTED_KEYWORDS = new Set([
  'if',
  'then',
  'elif',
  'else',
  'fi',
  'do',
  'done',
  'case',
  'esac',
  'while',
  'until',
  'for',
  'select',
  'function',
  'coproc',
  '[[',
  ']]',
  '}',
]);

const REDIRECT = /(\d*)(<<<|<<-|<<|<>|<&|<|>>|>&|>\||>)|(&>>|&>)/y;
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)\+?=/;

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  expands: boolean;
  sink: NestedScript[];
}

export class ShellParser extends WordReader {
  private readonly heredocs: PendingHeredoc[] = [];

  constructor(source: string, parseNested: (source: string) => SimpleCommand[]) {
    super(source, parseNested);
  }

  parseScript(): SimpleCommand[] {
    const commands = this.parseList(null);
    if (!this.atEnd()) this.fail(`unexpected "${this.peek()}"`);
    return commands;
  }

  protected override hasPendingHeredoc(): boolean {
    return this.heredocs.length > 0;
  }

  /** Reads `$( … )` or `<( … )` after its opening parenthesis, up to and including `)`. */
  protected override readParenthesized(): SimpleCommand[] {
    const commands = this.parseList(')');
    if (this.peek() !== ')') this.fail('missing ")"');
    this.pos++;
    return commands;
  }

  /** A sequence of pipelines, up to `closer` (not consumed) or the end of the source. */
  private parseList(closer: ')' | '}' | null): SimpleCommand[] {
    this.enter();
    const commands: SimpleCommand[] = [];
    let needCommand = false;
    for (;;) {
      this.skipBlanks();
      if (this.peek() === '\n') {
        this.readNewline();
        continue;
      }
      if (this.atEnd() || this.atCloser(closer)) break;
      const pipeline = this.parsePipeline();
      commands.push(...pipeline);
      needCommand = false;
      this.skipBlanks();
      const operator = this.readListOperator();
      if (operator === '&') for (const command of pipeline) command.background = true;
      if (operator === null) break;
      needCommand = operator === '&&' || operator === '||';
    }
    if (needCommand) this.fail('a command must follow && or ||');
    if (closer === null && this.heredocs.length > 0) this.fail('unterminated here-document');
    this.nesting--;
    return commands;
  }

  private atCloser(closer: ')' | '}' | null): boolean {
    if (closer === ')') return this.peek() === ')';
    return closer === '}' && this.atReservedWord('}');
  }

  private readListOperator(): string | null {
    const rest = this.source.slice(this.pos, this.pos + 2);
    for (const operator of ['&&', '||', ';;', ';&']) {
      if (rest === operator) {
        if (operator.startsWith(';')) this.fail(`unexpected "${operator}"`);
        this.pos += 2;
        return operator;
      }
    }
    const next = this.peek();
    if (next === ';' || next === '&') {
      this.pos++;
      return next;
    }
    if (next === '\n') {
      this.readNewline();
      return '\n';
    }
    return null;
  }

  private parsePipeline(): SimpleCommand[] {
    if (this.atReservedWord('!')) this.pos++;
    const commands = this.parseCommandUnit();
    for (;;) {
      this.skipBlanks();
      const rest = this.source.slice(this.pos, this.pos + 2);
      if (rest === '|&') this.pos += 2;
      else if (this.peek() === '|' && rest !== '||') this.pos++;
      else return commands;
      this.skipBlanksAndNewlines();
      commands.push(...this.parseCommandUnit());
    }
  }

  private parseCommandUnit(): SimpleCommand[] {
    this.skipBlanks();
    if (this.peek() === '(') {
      if (this.source[this.pos + 1] === '(')
        this.fail('arithmetic commands (( )) are not supported');
      this.pos++;
      const inner = this.parseList(')');
      if (this.peek() !== ')') this.fail('missing ")"');
      this.pos++;
      return this.withGroupRedirections(inner, true);
    }
    if (this.atReservedWord('{')) {
      this.pos++;
      const inner = this.parseList('}');
      if (!this.atReservedWord('}')) this.fail('missing "}"');
      this.pos++;
      return this.withGroupRedirections(inner, false);
    }
    return [this.parseSimpleCommand()];
  }

  /** Reads the redirections after `)` or `}` and applies them to every command of the group. */
  private withGroupRedirections(inner: SimpleCommand[], subshell: boolean): SimpleCommand[] {
    if (inner.length === 0) this.fail('empty command group');
    const nested: NestedScript[] = [];
    const redirections: Redirection[] = [];
    for (;;) {
      this.skipBlanks();
      const redirection = this.tryRedirection(nested);
      if (!redirection) break;
      redirections.push(redirection);
    }
    if (!this.atEnd() && !this.atCommandEnd()) {
      this.fail(`unexpected "${this.peek()}" after a command group`);
    }
    for (const command of inner) {
      command.redirections.push(...redirections);
      command.nested.push(...nested);
      if (subshell) command.subshell = true;
    }
    return inner;
  }

  private parseSimpleCommand(): SimpleCommand {
    const start = this.pos;
    let end = start;
    const words: Word[] = [];
    const assignments: Assignment[] = [];
    const redirections: Redirection[] = [];
    const nested: NestedScript[] = [];
    for (;;) {
      this.skipBlanks();
      const next = this.peek();
      if (this.atEnd() || this.atCommandEnd()) break;
      if (next === '(')
        this.fail('unexpected "(" (function definitions and arrays are not supported)');
      const redirection = this.tryRedirection(nested);
      if (redirection) {
        redirections.push(redirection);
        end = this.pos;
        continue;
      }
      const word = this.readWord(nested);
      end = this.pos;
      if (words.length === 0) {
        const assignment = ASSIGNMENT.exec(word.raw);
        if (assignment?.[1] !== undefined) {
          assignments.push(toAssignment(assignment[1], word));
          continue;
        }
        if (redirections.length === 0 && assignments.length === 0) {
          if (UNSUPPORTED_KEYWORDS.has(word.raw)) {
            this.fail(`"${word.raw}" compound commands are not supported`);
          }
        }
      }
      words.push(word);
    }
    if (words.length === 0 && assignments.length === 0 && redirections.length === 0) {
      this.fail(this.atEnd() ? 'expected a command' : `unexpected "${this.peek()}"`);
    }
    return {
      text: this.source.slice(start, end).trim(),
      argv: words.map((word) => word.value),
      words,
      assignments,
      redirections,
      nested,
      subshell: false,
    };
  }

  private tryRedirection(nested: NestedScript[]): Redirection | null {
    REDIRECT.lastIndex = this.pos;
    const match = REDIRECT.exec(this.source);
    if (!match) return null;
    const digits = match[1] ?? '';
    const operator = (match[2] ?? match[3]) as RedirectOperator;
    const afterOperator = this.pos + match[0].length;
    // `<(` and `>(` start a process substitution, which is a word, not a redirection.
    if ((operator === '<' || operator === '>') && this.source[afterOperator] === '(') {
      if (digits !== '') this.fail('a descriptor before a process substitution');
      return null;
    }
    this.pos = afterOperator;
    this.skipBlanks();
    const next = this.peek();
    const startsSubstitution = /[<>]/.test(next) && this.source[this.pos + 1] === '(';
    if (this.atEnd() || (/[\n;&|()<>]/.test(next) && !startsSubstitution)) {
      this.fail(`missing target after "${operator}"`);
    }
    const target = this.readWord(nested);
    if (operator === '<<' || operator === '<<-') {
      if (target.expansions.some((kind) => kind !== 'glob' && kind !== 'brace')) {
        this.fail('a here-document delimiter with expansions');
      }
      this.heredocs.push({
        delimiter: target.value,
        stripTabs: operator === '<<-',
        expands: !/['"\\]/.test(target.raw),
        sink: nested,
      });
    }
    return { fd: digits === '' ? null : Number(digits), operator, target };
  }

  /** Consumes a newline and then the bodies of the here-documents opened on its line. */
  private readNewline() {
    this.pos++;
    const pending = this.heredocs.splice(0);
    for (const heredoc of pending) {
      const lines: string[] = [];
      for (;;) {
        if (this.atEnd()) this.fail(`here-document "${heredoc.delimiter}" is not terminated`);
        const lineEnd = this.source.indexOf('\n', this.pos);
        const stop = lineEnd === -1 ? this.source.length : lineEnd;
        const line = this.source.slice(this.pos, stop);
        this.pos = lineEnd === -1 ? stop : stop + 1;
        const compared = heredoc.stripTabs ? line.replace(/^\t+/, '') : line;
        if (compared === heredoc.delimiter) break;
        lines.push(line);
      }
      if (heredoc.expands) {
        const body = new ShellParser(lines.join('\n'), this.parseNested);
        heredoc.sink.push(...body.readHeredocBody());
      }
    }
  }

  /** At an operator that ends a simple command (`&>` is a redirection, not `&`). */
  private atCommandEnd(): boolean {
    const next = this.peek();
    if (next === '&') return this.source[this.pos + 1] !== '>';
    return /[\n;|)]/.test(next);
  }

  private skipBlanksAndNewlines() {
    for (;;) {
      this.skipBlanks();
      if (this.peek() !== '\n') return;
      this.readNewline();
    }
  }

  /** Whether a reserved word such as `{`, `}` or `!` stands here as a word of its own. */
  private atReservedWord(word: string): boolean {
    if (!this.source.startsWith(word, this.pos)) return false;
    const after = this.source[this.pos + word.length];
    return after === undefined || /[\s;&|()<>]/.test(after);
  }
}

function toAssignment(name: string, word: Word): Assignment {
  return {
    name,
    value: {
      raw: word.raw.slice(word.raw.indexOf('=') + 1),
      value: word.value.slice(word.value.indexOf('=') + 1),
      expansions: word.expansions,
      leadingDynamic: word.expansions.length > 0,
    },
  };
}
