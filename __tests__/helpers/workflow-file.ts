/**
 * A GitHub Actions workflow file as the runner reads it, for the tests that run the examples as
 * written: parsed with `yaml`, and its `${{ … }}` expressions (and a job's bare `if:`) evaluated
 * against a fixture context.
 *
 * The expressions understood are the subset the examples use, with GitHub's semantics: the
 * contexts `github`, `secrets`, `inputs`, `vars`, `env`; property access (`a.b`, `a[0]`,
 * `a['b']`); string, number, `true`, `false` and `null` literals; `!`, `==`, `!=`, `&&`, `||` and
 * parentheses; `startsWith`, `endsWith` and `contains`. `==` compares strings ignoring case; `&&`
 * and `||` give an operand; false, 0, '' and null are falsy; a property the event's payload lacks
 * is null. Anything else throws, naming the expression and the file: a test must never pass on an
 * expression it misread. So does a `secrets`, `inputs`, `vars` or `github` value the fixture does
 * not give, where GitHub would quietly give ''.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export type ExpressionContext = Record<string, unknown>;

export interface WorkflowStep {
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
  if?: string;
  id?: string;
  'continue-on-error'?: boolean;
  'working-directory'?: string;
}

export interface WorkflowJob {
  if?: string;
  'runs-on'?: string;
  permissions?: Record<string, string> | string;
  env?: Record<string, unknown>;
  steps: WorkflowStep[];
}

export interface Workflow {
  /** The file it was read from, for the messages. */
  file: string;
  name: string;
  on: Record<string, Record<string, unknown> | null>;
  permissions?: Record<string, string> | string;
  env?: Record<string, unknown>;
  jobs: Record<string, WorkflowJob>;
}

export function readWorkflow(file: string): Workflow {
  const parsed = parse(readFileSync(file, 'utf8')) as Omit<Workflow, 'file'>;
  if (typeof parsed.name !== 'string' || typeof parsed.jobs !== 'object') {
    throw new Error(`${file}: not a workflow (no name or jobs)`);
  }
  // `on: push` and `on: [push, pull_request]` are the short forms of the mapping.
  const on: unknown = parsed.on;
  const events =
    typeof on === 'string'
      ? { [on]: null }
      : Array.isArray(on)
        ? Object.fromEntries(on.map((name: string) => [name, null]))
        : (on as Workflow['on']);
  return { ...parsed, on: events, file };
}

/** The job's permissions, or the workflow's: the block its GITHUB_TOKEN gets. */
export function permissionsOf(workflow: Workflow, job: WorkflowJob): Record<string, string> {
  const block = job.permissions ?? workflow.permissions;
  if (block === undefined || typeof block === 'string') {
    throw new Error(
      `${workflow.file}: expected a permissions: mapping (each scope its level), got ${JSON.stringify(block)}`,
    );
  }
  return block;
}

/** The one job with a step that uses ci-agent, and that step. */
export function agentStep(workflow: Workflow): {
  name: string;
  job: WorkflowJob;
  step: WorkflowStep;
} {
  const found = Object.entries(workflow.jobs).flatMap(([name, job]) =>
    job.steps
      .filter((step) => step.uses?.startsWith('ci-agent/ci-agent@'))
      .map((step) => ({ name, job, step })),
  );
  if (found.length !== 1) {
    throw new Error(
      `${workflow.file}: expected one step that uses ci-agent/ci-agent@…, found ${found.length}`,
    );
  }
  return found[0]!;
}

/** Every `${{ … }}` of the file (and each job's and step's `if:`), evaluated: none unsupported. */
export function evaluateAll(workflow: Workflow, context: ExpressionContext): void {
  const visit = (value: unknown, key: string | undefined): void => {
    if (typeof value === 'string') {
      if (key === 'if') evaluateCondition(value, context, workflow.file);
      else interpolate(value, context, workflow.file);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, undefined);
    } else if (typeof value === 'object' && value !== null) {
      for (const [name, item] of Object.entries(value)) visit(item, name);
    }
  };
  visit(workflow.jobs, undefined);
  visit(workflow.env, undefined);
}

/** A string with each `${{ … }}` replaced by its value, as the runner puts it into an input. */
export function interpolate(text: string, context: ExpressionContext, file = 'workflow'): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, source: string) =>
    asString(evaluate(source, context, file)),
  );
}

/** A job's or step's `if:`: an expression, with or without `${{ }}` around it. */
export function evaluateCondition(
  condition: string,
  context: ExpressionContext,
  file = 'workflow',
): boolean {
  const bare = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(condition)?.[1] ?? condition;
  return truthy(evaluate(bare, context, file));
}

/** A step's `with:` or `env:` as the runner hands it on: every value a string, interpolated. */
export function interpolateAll(
  values: Record<string, unknown> | undefined,
  context: ExpressionContext,
  file = 'workflow',
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values ?? {}).map(([name, value]) => [
      name,
      interpolate(asString(value), context, file),
    ]),
  );
}

function asString(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function truthy(value: unknown): boolean {
  return !(value === false || value === 0 || value === '' || value === null || value === undefined);
}

function equal(left: unknown, right: unknown): boolean {
  if (typeof left === 'string' && typeof right === 'string') {
    return left.toLowerCase() === right.toLowerCase();
  }
  return (left ?? null) === (right ?? null);
}

type Token = { kind: 'op' | 'string' | 'number' | 'name'; text: string };

const TOKEN =
  /\s*(?:(\|\||&&|==|!=|[!.()[\],])|'((?:[^']|'')*)'|(-?\d+(?:\.\d+)?)|([A-Za-z_][\w-]*))/y;

function tokenize(source: string, fail: (why: string) => never): Token[] {
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (source.slice(at).trim() !== '') {
    TOKEN.lastIndex = at;
    const match = TOKEN.exec(source);
    if (!match) fail(`cannot read "${source.slice(at).trim()}"`);
    at = TOKEN.lastIndex;
    if (match[1] !== undefined) tokens.push({ kind: 'op', text: match[1] });
    else if (match[2] !== undefined)
      tokens.push({ kind: 'string', text: match[2].replaceAll("''", "'") });
    else if (match[3] !== undefined) tokens.push({ kind: 'number', text: match[3] });
    else tokens.push({ kind: 'name', text: match[4]! });
  }
  return tokens;
}

const FUNCTIONS: Record<string, (args: unknown[]) => unknown> = {
  startswith: ([text, prefix]) =>
    asString(text).toLowerCase().startsWith(asString(prefix).toLowerCase()),
  endswith: ([text, suffix]) =>
    asString(text).toLowerCase().endsWith(asString(suffix).toLowerCase()),
  contains: ([haystack, needle]) =>
    Array.isArray(haystack)
      ? haystack.some((item) => equal(item, needle))
      : asString(haystack).toLowerCase().includes(asString(needle).toLowerCase()),
};

/** Contexts whose every value the fixture must give (GitHub would give '' for a missing one). */
const STRICT = new Set(['secrets', 'inputs', 'vars', 'env', 'github']);

export function evaluate(source: string, context: ExpressionContext, file = 'workflow'): unknown {
  const fail = (why: string): never => {
    throw new Error(`${file}: unsupported expression \${{ ${source.trim()} }}: ${why}`);
  };
  const tokens = tokenize(source, fail);
  let index = 0;
  const peek = (): Token | undefined => tokens[index];
  const take = (text?: string): Token => {
    const token = tokens[index];
    if (token === undefined || (text !== undefined && token.text !== text)) {
      fail(`expected ${text ?? 'more'}, got ${token?.text ?? 'the end'}`);
    }
    index += 1;
    return token!;
  };

  const or = (): unknown => {
    let value = and();
    while (peek()?.text === '||') {
      take();
      const right = and();
      value = truthy(value) ? value : right;
    }
    return value;
  };
  const and = (): unknown => {
    let value = comparison();
    while (peek()?.text === '&&') {
      take();
      const right = comparison();
      value = truthy(value) ? right : value;
    }
    return value;
  };
  const comparison = (): unknown => {
    let value = unary();
    while (peek()?.text === '==' || peek()?.text === '!=') {
      const op = take().text;
      const right = unary();
      value = op === '==' ? equal(value, right) : !equal(value, right);
    }
    return value;
  };
  const unary = (): unknown => {
    if (peek()?.text === '!') {
      take();
      return !truthy(unary());
    }
    return primary();
  };
  const primary = (): unknown => {
    const token = take();
    if (token.kind === 'string') return token.text;
    if (token.kind === 'number') return Number(token.text);
    if (token.text === '(') {
      const value = or();
      take(')');
      return value;
    }
    if (token.kind !== 'name') return fail(`unexpected "${token.text}"`);
    if (token.text === 'true') return true;
    if (token.text === 'false') return false;
    if (token.text === 'null') return null;
    if (peek()?.text === '(') return call(token.text);
    return path(token.text);
  };
  const call = (name: string): unknown => {
    const fn = FUNCTIONS[name.toLowerCase()];
    if (fn === undefined) fail(`the function ${name}() is not one this evaluator knows`);
    take('(');
    const args: unknown[] = [];
    while (peek()?.text !== ')') {
      args.push(or());
      if (peek()?.text === ',') take(',');
    }
    take(')');
    return fn!(args);
  };
  const path = (root: string): unknown => {
    if (!Object.hasOwn(context, root)) fail(`the context "${root}" is not in the fixture`);
    let value: unknown = context[root];
    const trail = [root];
    while (peek()?.text === '.' || peek()?.text === '[') {
      let key: string | number;
      if (take().text === '.') key = take().text;
      else {
        const inner = or();
        take(']');
        key = typeof inner === 'number' ? inner : asString(inner);
      }
      const inEvent = trail[0] === 'github' && trail[1] === 'event';
      const object = value as Record<string | number, unknown> | null;
      const has = typeof object === 'object' && object !== null && Object.hasOwn(object, key);
      if (!has && STRICT.has(root) && !inEvent) {
        fail(`the fixture gives no ${[...trail, String(key)].join('.')}`);
      }
      value = has ? object[key] : null;
      trail.push(String(key));
    }
    return value;
  };

  const value = or();
  if (index < tokens.length) fail(`unexpected "${tokens[index]!.text}"`);
  return value;
}
