/**
 * gitignore-syntax rules, as ripgrep reads them both in ignore files and in `--glob`: a rule
 * without a slash matches a name at any depth, one with a slash is anchored to its directory,
 * a trailing slash limits it to directories, `!` negates it, and the last matching rule wins.
 * Only the path itself is tested, never its parents: a walk does not enter an ignored directory,
 * and an explicitly searched path inside one is searched (as ripgrep does).
 */
import picomatch from 'picomatch';

export type RuleMatch = 'ignore' | 'whitelist' | 'none';

interface CompiledRule {
  negated: boolean;
  directoryOnly: boolean;
  /** Tested against the last path segment only (the rule had no slash). */
  basenameOnly: boolean;
  test: (path: string) => boolean;
}

export interface GitignoreRules {
  readonly size: number;
  readonly negatedCount: number;
  /** `relativePath` uses `/` and is relative to the rules' directory. */
  match(relativePath: string, isDirectory: boolean): RuleMatch;
}

/** The rules of an ignore file: blank lines and comments dropped, trailing spaces trimmed. */
export function parseIgnoreFile(text: string): string[] {
  const rules: string[] = [];
  for (const rawLine of text.split('\n')) {
    const line = trimTrailingSpaces(rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine);
    if (line === '' || line.startsWith('#')) continue;
    rules.push(line.startsWith('\\#') ? line.slice(1) : line);
  }
  return rules;
}

export function compileRules(sources: readonly string[]): GitignoreRules {
  const rules = sources.map(compileRule);
  return {
    size: rules.length,
    negatedCount: rules.filter((rule) => rule.negated).length,
    match(relativePath, isDirectory) {
      let basename: string | undefined;
      for (let index = rules.length - 1; index >= 0; index--) {
        const rule = rules[index]!;
        if (rule.directoryOnly && !isDirectory) continue;
        const subject = rule.basenameOnly
          ? (basename ??= relativePath.slice(relativePath.lastIndexOf('/') + 1))
          : relativePath;
        if (rule.test(subject)) return rule.negated ? 'whitelist' : 'ignore';
      }
      return 'none';
    },
  };
}

function compileRule(source: string): CompiledRule {
  let glob = source;
  let negated = false;
  if (glob.startsWith('!')) {
    negated = true;
    glob = glob.slice(1);
  } else if (glob.startsWith('\\!')) {
    glob = glob.slice(1);
  }
  const anchored = glob.startsWith('/');
  if (anchored) glob = glob.slice(1);
  const directoryOnly = glob.endsWith('/') && glob.length > 1;
  if (directoryOnly) glob = glob.slice(0, -1);
  // `dir/**` names what is inside dir, not dir itself.
  if (glob.endsWith('/**')) glob = `${glob}/*`;
  let basenameOnly = !anchored && !glob.includes('/');
  if (!anchored && glob.startsWith('**/') && !glob.slice(3).includes('/')) {
    glob = glob.slice(3);
    basenameOnly = true;
  }
  const test = picomatch(glob, { dot: true, nonegate: true, noextglob: true });
  return { negated, directoryOnly, basenameOnly, test };
}

function trimTrailingSpaces(line: string): string {
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ' && line[end - 2] !== '\\') end--;
  return line.slice(0, end);
}
