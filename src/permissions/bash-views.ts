/**
 * What Bash rules are compared with (docs/DECISIONS.md #11). A command line is parsed once by the shell
 * parser (shell/parse-command.ts) into every simple command it runs — list and pipeline
 * members, `$( … )`, backticks, process substitutions, `bash -c` / `eval` scripts — and each
 * becomes a CommandPart:
 *
 *   1. allow forms: renderings that name exactly what runs — the words (quotes removed, and as
 *      written), then the same with each understood wrapper stripped. Leading `VAR=x` assignments
 *      stay in front, so an allow rule only matches them when it spells them out
 *      (`PATH=. git status` is not `git status`);
 *   2. deny forms: the allow forms plus everything a deny or ask rule must see through —
 *      assignments dropped, wrappers and launchers (`env`, `sudo`, …) stripped, `/bin/rm` as `rm`,
 *      git's global options skipped, `find -exec` commands, and the source text itself;
 *   3. opaque: the program is decided at run time (`$CMD`, `/bin/r?`, `{rm,x}`), or a shell reads
 *      its script from stdin (`… | sh`, `bash <<EOF`): no allow rule matches, every deny rule does;
 *   4. file writes: output redirections to anything but /dev/null, which an allow rule permits
 *      only when it spells the same redirections out.
 */
import type { Redirection, SimpleCommand, Word } from '../shell/types.js';
import { allCommands, parseCommand } from '../shell/parse-command.js';
import { normalizeSpaces } from './bash-pattern.js';
import {
  basename,
  findExecCommands,
  findRunsOrWrites,
  isStatic,
  launchedCommandWord,
  launchedTails,
  readsScriptFromStdin,
  unwrap,
  withoutGitGlobalOptions,
} from './bash-wrappers.js';

export interface CommandPart {
  /** The simple command's source text, spaces normalised: what a refusal names. */
  text: string;
  allowForms: readonly string[];
  denyForms: readonly string[];
  opaque: boolean;
  /** Redirections that write a file other than /dev/null, rendered `<fd><operator><target>`. */
  fileWrites: readonly string[];
  /** A write or device whose target is only known at run time (`> $F`, `< /dev/tcp/…`). */
  unknownRedirection: boolean;
  /** find with -exec, -delete, … (never covered by a wildcard allow rule). */
  findRunsOrWrites: boolean;
  /**
   * What a suggested allow rule names (denial-advice.ts): the command with every understood
   * wrapper stripped, its leading assignments kept. `words` only when each word's value is one
   * plain token (the text is then those values joined); otherwise the text is as written.
   */
  ruleForm: { text: string; assignments?: readonly string[]; words?: readonly string[] };
}

export type BashAnalysis =
  { ok: true; parts: readonly CommandPart[] } | { ok: false; command: string; reason: string };

/** Launcher options are not modelled; a command this far from its launcher counts as unknown. */
const MAX_LAUNCHER_WORDS = 16;
/** Deny forms considered per simple command; more (nested launchers) makes the part opaque. */
const MAX_DENY_FORMS = 64;

export function analyzeBashCommand(command: string): BashAnalysis {
  const parsed = parseCommand(command);
  if (!parsed.ok) return { ok: false, command, reason: parsed.reason };
  return { ok: true, parts: allCommands(parsed.commands).map(toPart) };
}

function toPart(command: SimpleCommand): CommandPart {
  const chain: Word[][] = [command.words];
  for (let inner = unwrap(command.words, false); inner; inner = unwrap(inner, false)) {
    chain.push(inner);
  }
  const valuePrefix = command.assignments.map((item) => `${item.name}=${item.value.value}`);
  const rawPrefix = command.assignments.map((item) => `${item.name}=${item.value.raw}`);
  const allowForms = unique(
    chain.flatMap((words) => [
      ...(hasPlainValues(words) && valuePrefix.every((item) => !/\s/.test(item))
        ? [render(valuePrefix, words, 'value')]
        : []),
      render(rawPrefix, words, 'raw'),
    ]),
  );

  const denied = denyWordForms(chain);
  const denyForms = unique([
    ...allowForms,
    ...denied.forms.flatMap((words) => [render([], words, 'value'), render([], words, 'raw')]),
    normalizeSpaces(command.text),
    ...(command.redirections.length > 0 ? [withRedirections(command)] : []),
  ]);
  const writes = command.redirections.map(classifyRedirection);
  // A suggested rule names what runs, but not past xargs: `Bash(rm)` for `xargs rm` would hide
  // that the removed files come from standard input.
  const stop = chain.findIndex((words) => words[0]?.value === 'xargs');
  const innermost = chain[stop === -1 ? chain.length - 1 : stop] as Word[];
  const plain = hasPlainValues(innermost) && valuePrefix.every((item) => !/\s/.test(item));
  return {
    text: normalizeSpaces(command.text),
    allowForms,
    denyForms,
    opaque: denied.opaque,
    fileWrites: writes.flatMap((write) => (typeof write === 'string' ? [write] : [])).sort(),
    unknownRedirection: writes.includes(UNKNOWN),
    findRunsOrWrites: chain.some(findRunsOrWrites),
    ruleForm: plain
      ? {
          text: render(valuePrefix, innermost, 'value'),
          assignments: valuePrefix,
          words: innermost.map((word) => word.value),
        }
      : { text: render(rawPrefix, innermost, 'raw') },
  };
}

/**
 * Every word sequence a deny rule is tried on, and whether the program run is unknown. A "head"
 * form is a best guess of the command that runs; the other tails of a launcher are tried for
 * matching only.
 */
function denyWordForms(chain: readonly Word[][]): { forms: Word[][]; opaque: boolean } {
  const forms: Word[][] = [];
  const seen = new Set<string>();
  let opaque = false;
  const queue = chain.map((words) => ({ words, head: true }));
  for (let item = queue.shift(); item; item = queue.shift()) {
    const { words, head } = item;
    const key = `${head ? 'h' : 't'}${words.map((word) => word.raw).join('\0')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (forms.length >= MAX_DENY_FORMS) return { forms, opaque: true };
    forms.push(words);
    const first = words[0];
    if (!first) continue;
    if (head && (isComputed(first) || readsScriptFromStdin(words))) opaque = true;
    const derived = (next: Word[]) => queue.push({ words: next, head });
    if (first.value.includes('/'))
      derived([renamed(first, basename(first.value)), ...words.slice(1)]);
    const unwrapped = unwrap(words, true);
    if (unwrapped) derived(unwrapped);
    const git = withoutGitGlobalOptions(words);
    if (git) derived(git);
    for (const executed of findExecCommands(words)) derived(executed);
    const launched = launchedCommandWord(words);
    const launchedAt = launched ? words.indexOf(launched) : -1;
    if (launchedAt > MAX_LAUNCHER_WORDS) opaque = true;
    launchedTails(words)
      .slice(0, MAX_LAUNCHER_WORDS)
      .forEach((tail, index) =>
        queue.push({ words: tail, head: head && index + 1 === launchedAt }),
      );
  }
  return { forms, opaque };
}

/** A command name whose value is only known at run time (`~` alone is the home directory). */
function isComputed(word: Word): boolean {
  return word.expansions.some((kind) => kind !== 'tilde');
}

/** Values with blanks or empty words would blur word boundaries once joined with spaces. */
function hasPlainValues(words: readonly Word[]): boolean {
  return words.every((word) => word.value !== '' && !/\s/.test(word.value));
}

function render(prefix: readonly string[], words: readonly Word[], key: 'value' | 'raw'): string {
  return normalizeSpaces([...prefix, ...words.map((word) => word[key])].join(' '));
}

/** `echo x > f` however it was spaced, for deny rules that name a redirection. */
function withRedirections(command: SimpleCommand): string {
  const redirections = command.redirections.map(
    (item) => `${item.fd ?? ''}${item.operator} ${item.target.value}`,
  );
  return normalizeSpaces(`${render([], command.words, 'value')} ${redirections.join(' ')}`);
}

function renamed(word: Word, name: string): Word {
  return { ...word, raw: name, value: name };
}

function unique(forms: readonly string[]): string[] {
  return [...new Set(forms)].filter((form) => form !== '');
}

export const UNKNOWN = Symbol('unknown redirection');
const DEV_NULL = '/dev/null';

/** A file write rendered `<fd><operator><target>`, UNKNOWN, or null when nothing is written. */
export function classifyRedirection(redirection: Redirection): string | typeof UNKNOWN | null {
  const { fd, operator, target } = redirection;
  const known = isStatic(target);
  switch (operator) {
    case '<':
      // Bash opens network connections for these paths itself.
      if (!known) return UNKNOWN;
      return /^\/dev\/(tcp|udp)\//.test(target.value) ? UNKNOWN : null;
    case '<<':
    case '<<-':
    case '<<<':
    case '<&':
      return null;
    case '>&':
      if (known && /^(\d+|-)$/.test(target.value)) return null;
      break;
    default:
      break;
  }
  if (!known) return UNKNOWN;
  if (target.value === DEV_NULL) return null;
  return `${fd ?? defaultDescriptor(operator)}${operator}${target.value}`;
}

function defaultDescriptor(operator: Redirection['operator']): string {
  if (operator === '<>') return '0';
  if (operator === '&>' || operator === '&>>' || operator === '>&') return '';
  return '1';
}
