/**
 * Matching request paths against OpenAPI path templates (`/repos/{owner}/{repo}/issues/{issue_number}`).
 *
 * Order of a lookup:
 * 1. Templates are tried most specific first: at the first segment where two templates differ, a
 *    literal beats a parameter, so `/issues/comments` wins over `/issues/{issue_number}`.
 * 2. Each parameter matches one path segment. Octokit percent-encodes `/` inside values
 *    (`heads%2Fmain`), and values are decoded after the match.
 * 3. Only when nothing matches, a trailing ref, branch or file path may span segments, for
 *    clients that send `heads/feature/x` unencoded (GitHub accepts both spellings there).
 */

export interface TemplateMatch<T> {
  template: string;
  value: T;
  params: Record<string, string>;
}

export interface RouteTable<T> {
  match(pathname: string): TemplateMatch<T> | undefined;
  readonly size: number;
}

interface CompiledTemplate<T> {
  template: string;
  value: T;
  names: string[];
  exact: RegExp;
  spanning: RegExp | undefined;
  kinds: string;
}

const PARAMETER = /\{([^{}]+)\}/g;
const SPANNING_NAMES = new Set(['ref', 'branch', 'path', 'basehead']);

export function createRouteTable<T>(entries: Iterable<readonly [string, T]>): RouteTable<T> {
  const compiled = [...entries].map(([template, value]) => compileTemplate(template, value));
  compiled.sort((left, right) => compareSpecificity(left.kinds, right.kinds));
  return {
    size: compiled.length,
    match(pathname) {
      const trimmed = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
      return (
        firstMatch(compiled, trimmed, (entry) => entry.exact) ??
        firstMatch(compiled, trimmed, (entry) => entry.spanning)
      );
    },
  };
}

function firstMatch<T>(
  compiled: CompiledTemplate<T>[],
  pathname: string,
  pattern: (entry: CompiledTemplate<T>) => RegExp | undefined,
): TemplateMatch<T> | undefined {
  for (const entry of compiled) {
    const found = pattern(entry)?.exec(pathname);
    if (found === null || found === undefined) continue;
    const params: Record<string, string> = {};
    let valid = true;
    entry.names.forEach((name, index) => {
      const decoded = safeDecode(found[index + 1] ?? '');
      if (decoded === undefined) valid = false;
      else params[name] = decoded;
    });
    if (valid) return { template: entry.template, value: entry.value, params };
  }
  return undefined;
}

function compileTemplate<T>(template: string, value: T): CompiledTemplate<T> {
  const names = [...template.matchAll(PARAMETER)].map((found) => found[1] ?? '');
  const literals = template.split(PARAMETER).filter((_, index) => index % 2 === 0);
  const build = (spanLast: boolean): RegExp => {
    let source = '^';
    literals.forEach((literal, index) => {
      source += escapeRegExp(literal);
      if (index < names.length)
        source += spanLast && index === names.length - 1 ? '(.+)' : '([^/]+)';
    });
    return new RegExp(`${source}$`);
  };
  // One character per segment: L for a literal segment, P for one holding a parameter.
  const kinds = template
    .split('/')
    .slice(1)
    .map((segment) => (segment.includes('{') ? 'P' : 'L'))
    .join('');
  const last = names.at(-1);
  const spans = last !== undefined && SPANNING_NAMES.has(last) && template.endsWith(`{${last}}`);
  return {
    template,
    value,
    names,
    exact: build(false),
    spanning: spans ? build(true) : undefined,
    kinds,
  };
}

function compareSpecificity(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    if (left[index] === right[index]) continue;
    return left[index] === 'L' ? -1 : 1;
  }
  return right.length - left.length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
