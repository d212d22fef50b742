/**
 * The action's inputs, read once into one frozen, typed object.
 *
 * 1. read every input once, with `core.getInput` (see `getInputFrom`)
 * 2. register the secrets with the runner's masker before anything can print them
 * 3. parse all of them with one zod schema; every bad value becomes one line naming the input, the
 *    value and the expected form, and all the lines are thrown together as one InputError
 */
import * as core from '@actions/core';
import { posix } from 'node:path';
import * as z from 'zod';
import { withRunnerEnv } from './runner-env.js';
import { createWorkflowCommands } from './workflow-commands.js';

export interface ActionInputs {
  /** Undefined when not given: a skipped run needs no key; a run that needs one fails later. */
  anthropicApiKey: string | undefined;
  /** A Claude Code OAuth token (`claude setup-token`), instead of the API key. */
  claudeCodeOauthToken: string | undefined;
  /** The model provider, when not Anthropic's API (at most one; model/provider-settings.ts). */
  useBedrock: boolean;
  useVertex: boolean;
  useFoundry: boolean;
  githubToken: string;
  prompt: string | undefined;
  /** Relative to the repository root, normalized (`./a/../b.yml` → `b.yml`). */
  policy: string;
  model: string | undefined;
  maxTurns: number | undefined;
  maxBudgetUsd: number | undefined;
  timeoutMinutes: number | undefined;
  triggerLabel: string;
  testCommand: string | undefined;
  branchPrefix: string;
  /** Bot logins as written (`dependabot[bot]`), or `*` for any bot. */
  allowedBots: readonly string[];
  uploadArtifact: boolean;
  artifactName: string;
  comment: boolean;
  /** Attest the artifact's files with Sigstore (needs id-token: write, attestations: write). */
  attest: boolean;
  /** Audit mode: verify this finished run's artifact instead of running the agent. */
  auditRunId: number | undefined;
}

/** The defaults of action.yml, applied here too so a run outside the runner behaves the same. */
export const INPUT_DEFAULTS = Object.freeze({
  'use-bedrock': false,
  'use-vertex': false,
  'use-foundry': false,
  policy: '.github/ci-agent.yml',
  'trigger-label': 'ci-agent',
  'branch-prefix': 'ci-agent/',
  'upload-artifact': true,
  'artifact-name': 'ci-agent-log',
  comment: true,
  attest: false,
});

/** One line per bad input: `max-turns: expected a positive integer, got "ten"`. */
export class InputError extends Error {
  override readonly name = 'InputError';

  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

export type InputEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * The value of one input as `core.getInput(name)` reads it from `env`: the variable `INPUT_<NAME>`
 * (spaces become underscores, hyphens stay, upper case), `''` when unset, trimmed. Not `required`:
 * the schema below names a missing input with its expected form, which core's message does not.
 */
export function getInputFrom(env: InputEnvironment, name: string): string {
  return withRunnerEnv(env, () => core.getInput(name));
}

const SECRET_INPUTS = ['anthropic-api-key', 'claude-code-oauth-token', 'github-token'] as const;

/** An issue message: what was expected and what was found (secrets are never echoed). */
function expected(form: string, value: string, secret = false): string {
  const found = secret ? `a value of ${value.length} characters` : JSON.stringify(value);
  return `expected ${form}, got ${value === '' ? 'nothing' : found}`;
}

/** `''` (unset) → `fallback`; anything else must pass `parse`, which returns undefined to reject. */
function field<T>(form: string, parse: (value: string) => T | undefined): z.ZodType<T | undefined>;
function field<T>(form: string, parse: (value: string) => T | undefined, fallback: T): z.ZodType<T>;
function field<T>(form: string, parse: (value: string) => T | undefined, fallback?: T) {
  return z.string().transform((value, ctx) => {
    if (value === '') return fallback;
    const parsed = parse(value);
    if (parsed === undefined) {
      ctx.addIssue({ code: 'custom', message: expected(form, value) });
      return z.NEVER;
    }
    return parsed;
  });
}

const anyText = (value: string) => value;

function positiveInteger(value: string): number | undefined {
  const number = Number(value);
  return /^\d+$/.test(value) && Number.isSafeInteger(number) && number > 0 ? number : undefined;
}

function positiveNumber(value: string): number | undefined {
  const number = Number(value);
  return /^(\d+(\.\d*)?|\.\d+)$/.test(value) && Number.isFinite(number) && number > 0
    ? number
    : undefined;
}

/** YAML 1.2 core schema booleans, the words `core.getBooleanInput` accepts. */
function yamlBoolean(value: string): boolean | undefined {
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  return undefined;
}

/** The policy is read from a git ref on pull requests, so it must name a file in the repository. */
function repositoryPath(value: string): string | undefined {
  if (posix.isAbsolute(value) || /^[A-Za-z]:|\\/.test(value)) return undefined;
  const normalized = posix.normalize(value);
  return normalized === '..' || normalized.startsWith('../') || normalized.endsWith('/')
    ? undefined
    : normalized;
}

/** Enough of `git check-ref-format` that `<prefix>issue-12` is a valid branch name. */
function branchPrefix(value: string): string | undefined {
  if (/[\s\p{Cc}~^:?*[\\]|\.\.|@\{|\/\//u.test(value) || /^[-/]/.test(value)) return undefined;
  const components = value.split('/').slice(0, -1);
  const last = value.split('/').at(-1) ?? '';
  const bad = (part: string) => part.startsWith('.') || part.endsWith('.lock');
  return components.some(bad) || last.startsWith('.') ? undefined : value;
}

const BOT_LOGIN = /^(\*|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(\[bot\])?)$/;

function loginList(value: string): readonly string[] | undefined {
  const entries = value
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return entries.every((entry) => BOT_LOGIN.test(entry)) ? Object.freeze(entries) : undefined;
}

/** Characters @actions/artifact refuses in a name. */
function artifactName(value: string): string | undefined {
  return /[":<>|*?\r\n\\/]/.test(value) ? undefined : value;
}

const BOOLEAN_FORM = 'true or false (also True, TRUE, False, FALSE)';

const githubToken = z.string().transform((value, ctx) => {
  if (value !== '') return value;
  ctx.addIssue({
    code: 'custom',
    message: `${expected('a token', value, true)} (the default is the job's GITHUB_TOKEN; a secret that does not exist expands to nothing)`,
  });
  return z.NEVER;
});

const inputsSchema = z
  .object({
    'anthropic-api-key': field('an Anthropic API key', anyText),
    'claude-code-oauth-token': field('a Claude Code OAuth token', anyText),
    'use-bedrock': field(BOOLEAN_FORM, yamlBoolean, INPUT_DEFAULTS['use-bedrock']),
    'use-vertex': field(BOOLEAN_FORM, yamlBoolean, INPUT_DEFAULTS['use-vertex']),
    'use-foundry': field(BOOLEAN_FORM, yamlBoolean, INPUT_DEFAULTS['use-foundry']),
    'github-token': githubToken,
    prompt: field('a prompt', anyText),
    policy: field(
      'a path relative to the repository root, like .github/ci-agent.yml',
      repositoryPath,
      INPUT_DEFAULTS.policy,
    ),
    model: field('a model id or alias without spaces, like sonnet', (value) =>
      /\s/.test(value) ? undefined : value,
    ),
    'max-turns': field('a positive integer', positiveInteger),
    'max-budget-usd': field('a positive number of US dollars, like 2.50', positiveNumber),
    'timeout-minutes': field('a positive number of minutes, like 30', positiveNumber),
    'trigger-label': field('a label name', anyText, INPUT_DEFAULTS['trigger-label']),
    'test-command': field('a command', anyText),
    'branch-prefix': field(
      'a branch name prefix like ci-agent/ (no spaces, ~^:?*[\\, "..", "//", or leading - or /)',
      branchPrefix,
      INPUT_DEFAULTS['branch-prefix'],
    ),
    'allowed-bots': field(
      'bot logins separated by commas or newlines, like dependabot[bot], renovate[bot], or *',
      loginList,
      Object.freeze([]) as readonly string[],
    ),
    'upload-artifact': field(BOOLEAN_FORM, yamlBoolean, INPUT_DEFAULTS['upload-artifact']),
    'artifact-name': field(
      'an artifact name without " : < > | * ? \\ / or line breaks',
      artifactName,
      INPUT_DEFAULTS['artifact-name'],
    ),
    comment: field(BOOLEAN_FORM, yamlBoolean, INPUT_DEFAULTS.comment),
    attest: field(BOOLEAN_FORM, yamlBoolean, INPUT_DEFAULTS.attest),
    'audit-run-id': field('a workflow run id (a positive integer)', positiveInteger),
  })
  .transform((raw): ActionInputs => ({
    anthropicApiKey: raw['anthropic-api-key'],
    claudeCodeOauthToken: raw['claude-code-oauth-token'],
    useBedrock: raw['use-bedrock'],
    useVertex: raw['use-vertex'],
    useFoundry: raw['use-foundry'],
    githubToken: raw['github-token'],
    prompt: raw.prompt,
    policy: raw.policy,
    model: raw.model,
    maxTurns: raw['max-turns'],
    maxBudgetUsd: raw['max-budget-usd'],
    timeoutMinutes: raw['timeout-minutes'],
    triggerLabel: raw['trigger-label'],
    testCommand: raw['test-command'],
    branchPrefix: raw['branch-prefix'],
    allowedBots: raw['allowed-bots'],
    uploadArtifact: raw['upload-artifact'],
    artifactName: raw['artifact-name'],
    comment: raw.comment,
    attest: raw.attest,
    auditRunId: raw['audit-run-id'],
  }));

/** Every input name of action.yml, in its order. */
export const INPUT_NAMES = Object.freeze(Object.keys(inputsSchema.in.shape));

export interface ReadInputsOptions {
  /** Registers a value with the runner's log masker (an `::add-mask::` command by default). */
  setSecret?: (value: string) => void;
}

/** Reads, masks and validates every input once; throws InputError listing every bad value. */
export function readInputs(
  env: InputEnvironment = process.env,
  options: ReadInputsOptions = {},
): Readonly<ActionInputs> {
  const setSecret = options.setSecret ?? createWorkflowCommands({ env }).setSecret;
  const raw: Record<string, string> = {};
  for (const name of INPUT_NAMES) raw[name] = getInputFrom(env, name);
  for (const name of SECRET_INPUTS) {
    const value = raw[name];
    if (value) setSecret(value);
  }
  const result = inputsSchema.safeParse(raw);
  if (!result.success) {
    throw new InputError(
      result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    );
  }
  return Object.freeze(result.data);
}
