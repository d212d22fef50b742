/**
 * Hook matchers, current Claude Code semantics (docs/CC-COMPAT.md §1.3):
 *   1. missing, empty or `*` → every value;
 *   2. only letters, digits, `_`, `-`, space, `,` and `|` → a list of exact names split on `|`
 *      and `,` (so `mcp__brave-search` is one exact name, not a substring pattern);
 *   3. anything else → an unanchored JavaScript regex (`Edit.*` also matches `NotebookEdit`);
 *      an invalid regex matches nothing.
 * `Task` was renamed `Agent`; a matcher written for `Task` still fires for `Agent` (docs/DECISIONS.md #1).
 */
import { errorMessage } from '../util/errors.js';

export type CompiledMatcher =
  | { kind: 'all' }
  | { kind: 'exact'; names: ReadonlySet<string> }
  | { kind: 'regex'; regex: RegExp }
  | { kind: 'invalid'; error: string };

const EXACT_LIST = /^[A-Za-z0-9_\- ,|]+$/;

/** Names a tool used to have, so matchers written for the old name keep firing. */
const FORMER_NAMES: Readonly<Record<string, string>> = { Agent: 'Task' };

export function compileMatcher(matcher: string | undefined): CompiledMatcher {
  const text = matcher?.trim() ?? '';
  if (text === '' || text === '*') return { kind: 'all' };
  if (EXACT_LIST.test(text)) {
    const names = text
      .split(/[|,]/)
      .map((part) => part.trim())
      .filter((part) => part !== '');
    return { kind: 'exact', names: new Set(names) };
  }
  try {
    return { kind: 'regex', regex: new RegExp(text) };
  } catch (error) {
    return { kind: 'invalid', error: errorMessage(error) };
  }
}

export function matcherAccepts(matcher: CompiledMatcher, value: string): boolean {
  const test = (candidate: string): boolean => {
    switch (matcher.kind) {
      case 'all':
        return true;
      case 'exact':
        return matcher.names.has(candidate);
      case 'regex':
        return matcher.regex.test(candidate);
      case 'invalid':
        return false;
    }
  };
  if (test(value)) return true;
  const former = Object.hasOwn(FORMER_NAMES, value) ? FORMER_NAMES[value] : undefined;
  return former !== undefined && test(former);
}
