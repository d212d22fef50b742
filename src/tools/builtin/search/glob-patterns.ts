/**
 * The Grep tool's `glob` argument, matched the way ripgrep matches `--glob`: gitignore syntax
 * relative to the searched directory, the last matching glob deciding, `!` excluding. When any
 * including glob is given, a file no glob matches is left out; a directory no glob matches is
 * still entered, so that including globs can match files deep inside it. An including glob
 * overrides ignore files and the type filter.
 */
import { compileRules } from './gitignore.js';

export type OverrideDecision = 'include' | 'exclude' | 'none';

export type OverrideMatcher = (relativePath: string, isDirectory: boolean) => OverrideDecision;

/**
 * Splits the model's `glob` value into separate globs: on whitespace and commas, except that a
 * value with braces is split on whitespace only (the commas belong to `{a,b}`).
 */
export function splitGlobArgument(value: string | undefined): string[] {
  if (value === undefined) return [];
  const separator = value.includes('{') ? /\s+/ : /[\s,]+/;
  return value.split(separator).filter((part) => part !== '');
}

export function compileOverrides(globs: readonly string[]): OverrideMatcher | undefined {
  if (globs.length === 0) return undefined;
  // A --glob is a gitignore rule read backwards: a plain glob includes, a negated one excludes.
  const rules = compileRules(globs);
  const hasInclude = rules.negatedCount < rules.size;
  return (relativePath, isDirectory) => {
    const match = rules.match(relativePath, isDirectory);
    if (match === 'ignore') return 'include';
    if (match === 'whitelist') return 'exclude';
    return hasInclude && !isDirectory ? 'exclude' : 'none';
  };
}
