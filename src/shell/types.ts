/**
 * The shape of a parsed shell command: what `parseCommand` returns and every analysis (the Bash
 * tool's read-only and file-operand checks, the permission policy) reads. Kept apart from the
 * parser so that readers of the model never import the parser and the parser's parts never import
 * each other through it.
 */
/** What can make a word's value differ from its source text. */
export type ExpansionKind =
  'parameter' | 'command' | 'arithmetic' | 'process' | 'glob' | 'brace' | 'tilde';

export interface Word {
  /** The word as written. */
  raw: string;
  /** Quotes and escapes removed; expansions kept as written (`$HOME`, `$(date)`). */
  value: string;
  /** Expansions the shell performs on this word, each kind once. Empty for a literal word. */
  expansions: ExpansionKind[];
  /**
   * True when the first characters of the expanded word are not fixed by the source (`$X`,
   * `"$X"`, `*.ts`, `{a,b}`): such a word may turn into an option like `-o`.
   */
  leadingDynamic: boolean;
}

export type RedirectOperator =
  '<' | '>' | '>>' | '>|' | '<>' | '<<' | '<<-' | '<<<' | '<&' | '>&' | '&>' | '&>>';

export interface Redirection {
  /** The explicit file descriptor (`2>`), or null when the operator's default applies. */
  fd: number | null;
  operator: RedirectOperator;
  /** The file, the descriptor to duplicate, the here-string, or the here-document delimiter. */
  target: Word;
}

export interface Assignment {
  /** The variable name, with an array index if one was written (`a[1]`). */
  name: string;
  value: Word;
}

export type NestedOrigin =
  'command-substitution' | 'backticks' | 'process-substitution' | 'shell-argument' | 'eval';

export interface NestedScript {
  origin: NestedOrigin;
  commands: SimpleCommand[];
}

export interface SimpleCommand {
  /** The command's source text, for matching rules written against command lines. */
  text: string;
  /** The words after quote removal: the command name, then its arguments. */
  argv: string[];
  words: Word[];
  /** `NAME=value` words before the command name. */
  assignments: Assignment[];
  redirections: Redirection[];
  /** Scripts this command causes to run: substitutions in its words, shell and eval arguments. */
  nested: NestedScript[];
  /** Runs inside `( … )`: a `cd` or assignment there does not reach the calling shell. */
  subshell: boolean;
  /** Started with `&`: runs on in the background while the shell goes on. */
  background?: true;
}

export type ParseResult = { ok: true; commands: SimpleCommand[] } | { ok: false; reason: string };
