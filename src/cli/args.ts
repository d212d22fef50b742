/**
 * The command line, parsed once into a frozen, validated settings object. Flags shared with
 * `claude -p` keep their names and meaning.
 */
import { Command, CommanderError, Option } from 'commander';
import { PERMISSION_MODES } from '../permissions/types.js';
import type { PermissionMode } from '../permissions/types.js';
import { splitRuleList } from '../permissions/rules.js';
import { flagRuleProblem } from '../policy/rule-text.js';

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface CliSettings {
  prompt: string | undefined;
  outputFormat: OutputFormat;
  verbose: boolean;
  /** Undefined when not given: the policy's defaultMode, else `default`, applies. */
  permissionMode: PermissionMode | undefined;
  allowedTools: string[];
  disallowedTools: string[];
  maxTurns: number | undefined;
  model: string | undefined;
  appendSystemPrompt: string | undefined;
  addDir: string[];
  /** `--settings FILE|JSON`, in order. */
  settings: string[];
  /** `--policy FILE`: the ci-agent policy file instead of .github/ci-agent.yml. */
  policy: string | undefined;
  maxBudgetUsd: number | undefined;
  /** `--log-file PATH`: the tool log (stream-json lines, appended as they happen). */
  logFile: string | undefined;
  /** `--transcript-file PATH`: where the transcript hooks read goes, instead of a temp file. */
  transcriptFile: string | undefined;
  /** `--mcp-config FILE|JSON`, in order. */
  mcpConfig: string[];
  /** `--strict-mcp-config`: only the `--mcp-config` servers, not .mcp.json or the policy's. */
  strictMcpConfig: boolean;
}

/** Every exit code the CLI ends with (cli/main.ts, cli/index.ts), as --help lists them. */
export const EXIT_CODES: readonly (readonly [number, string])[] = [
  [0, 'the run finished (also --help, --version)'],
  [
    1,
    "a usage or setup error (flags, policy or settings file, the model provider's variables, a sandbox that cannot start), or a run that ended in an error (model API, max turns, budget, time limit, a hook)",
  ],
  [130, 'stopped by SIGINT'],
  [143, 'stopped by SIGTERM'],
];

/** The environment variables the CLI reads itself (not those it passes to tools). */
export const ENVIRONMENT: readonly (readonly [string, string])[] = [
  ['ANTHROPIC_API_KEY', "an Anthropic API key (Anthropic's API needs one of these three)"],
  ['CLAUDE_CODE_OAUTH_TOKEN', 'a Claude Code OAuth token (`claude setup-token`), sent as a bearer'],
  ['ANTHROPIC_AUTH_TOKEN', "a gateway's bearer token (first of the three, as in Claude Code)"],
  ['ANTHROPIC_BASE_URL', 'another Messages API endpoint, e.g. a gateway (http(s) URL)'],
  ['ANTHROPIC_CUSTOM_HEADERS', 'headers for every model request, one "Name: Value" per line'],
  ['CLAUDE_CODE_USE_BEDROCK', '1: Amazon Bedrock (AWS_REGION; AWS credentials or AWS_PROFILE)'],
  ['AWS_REGION', "Bedrock's region, e.g. us-east-1 (else AWS_DEFAULT_REGION)"],
  ['AWS_BEARER_TOKEN_BEDROCK', 'a Bedrock API key instead of AWS credentials'],
  [
    'ANTHROPIC_BEDROCK_BASE_URL',
    'another Bedrock endpoint (CLAUDE_CODE_SKIP_BEDROCK_AUTH=1: it signs)',
  ],
  ['CLAUDE_CODE_USE_VERTEX', '1: Google Vertex AI (CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID)'],
  ['CLOUD_ML_REGION', "Vertex AI's region, e.g. us-east5, or global"],
  ['ANTHROPIC_VERTEX_PROJECT_ID', 'the Google Cloud project (else GOOGLE_CLOUD_PROJECT)'],
  [
    'GOOGLE_APPLICATION_CREDENTIALS',
    "Google's credentials file (else Application Default Credentials)",
  ],
  [
    'ANTHROPIC_VERTEX_BASE_URL',
    'another Vertex AI endpoint (CLAUDE_CODE_SKIP_VERTEX_AUTH=1: it signs)',
  ],
  ['CLAUDE_CODE_USE_FOUNDRY', '1: Microsoft Foundry (ANTHROPIC_FOUNDRY_RESOURCE, _API_KEY)'],
  ['ANTHROPIC_FOUNDRY_RESOURCE', 'the Foundry resource name (or ANTHROPIC_FOUNDRY_BASE_URL)'],
  ['ANTHROPIC_FOUNDRY_API_KEY', "the Foundry resource's API key"],
  ['ANTHROPIC_MODEL', 'the model when --model is not given'],
  ['ANTHROPIC_SMALL_FAST_MODEL', 'the model for side queries such as WebFetch (default: haiku)'],
  ['ANTHROPIC_DEFAULT_SONNET_MODEL', 'what sonnet means (also _OPUS_, _HAIKU_): a full model id'],
  ['DISABLE_PROMPT_CACHING', '1: no cache_control breakpoints (a provider without caching)'],
  ['HOME', 'where ~/.claude/settings.json is read from'],
  ['RUNNER_TEMP', 'where the temporary transcript goes (default: the system temp directory)'],
  [
    'CI_AGENT_PROCESS_SCOPE_MECHANISM',
    '"process-sweep": end what each Bash call starts by sweeping the process table (docs/POLICY.md)',
  ],
];

function helpEpilogue(): string {
  const width = Math.max(...ENVIRONMENT.map(([name]) => name.length));
  return [
    '',
    'Output:',
    '  stdout carries only the output of --output-format (text: the final result; nothing when',
    '  the run fails). Denials, model API retries and errors go to stderr as they happen; with',
    '  --verbose in text mode, each turn too (the text, each tool call, its decision and result).',
    '',
    'Model providers:',
    "  Anthropic's API by default; Amazon Bedrock, Google Vertex AI or Microsoft Foundry with one",
    '  CLAUDE_CODE_USE_* switch, as in Claude Code. These variables are also read from the',
    "  settings files' `env` (which wins), but a repository's .claude/settings*.json may not set",
    "  credentials or endpoints. Aliases (sonnet, opus, haiku) become the provider's model ids.",
    '',
    'Sandbox:',
    '  Off by default, as in Claude Code. `"sandbox": {"enabled": true}` in a settings file (or a',
    '  `sandbox:` section in the policy file) runs Bash, hooks and MCP servers in bubblewrap: no',
    '  credentials, no network, writes only to the project; if it cannot start, the run does not.',
    '',
    'Audit:',
    '  ci-agent audit [explain | judge --policy FILE] <artifact.zip | folder | log.jsonl> verifies a',
    "  run's tool log (its hash chain, the final hash the run published, its attestation), explains",
    '  its calls or judges them under another policy: ci-agent audit --help.',
    '',
    'Environment variables:',
    ...ENVIRONMENT.map(([name, what]) => `  ${name.padEnd(width)}  ${what}`),
    '',
    'Exit codes:',
    ...EXIT_CODES.map(([code, what]) => `  ${String(code).padEnd(3)}  ${what}`),
    '',
    'Replay:',
    "  ci-agent replay <artifact> --repo DIR re-runs a recorded run's model turns offline at its",
    '  commit and reports the tool results and decisions that differ (ci-agent replay --help).',
    '',
    'Examples:',
    '  ci-agent -p "fix the failing test in tests/test_api.py" --allowedTools "Bash(npm test:*)" Edit',
    '  echo "why does CI fail?" | ci-agent --output-format stream-json --verbose --max-turns 5 > run.jsonl',
    '',
  ].join('\n');
}

/** A usage mistake: printed as one line with a non-zero exit. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function buildProgram(
  version: string,
  writeOut: (text: string) => void = (text) => process.stdout.write(text),
): Command {
  return new Command('ci-agent')
    .description('Run a coding agent non-interactively under a policy the repository owns.')
    .version(version, '-v, --version')
    .argument('[prompt]', 'the prompt (or pass it with -p, or on standard input)')
    .option('-p, --print [prompt]', 'print the response and exit (non-interactive; always on)')
    .addOption(
      new Option('--output-format <format>', 'output format')
        .choices(OUTPUT_FORMATS)
        .default('text'),
    )
    .option(
      '--verbose',
      'turn-by-turn output: on stderr in text mode, every message in json (required for stream-json)',
      false,
    )
    .addOption(
      new Option(
        '--permission-mode <mode>',
        "permission mode (default: the policy's defaultMode, else default)",
      ).choices(PERMISSION_MODES),
    )
    .option('--dangerously-skip-permissions', 'same as --permission-mode bypassPermissions', false)
    .option(
      '--allowedTools, --allowed-tools <rules...>',
      'rules to allow, comma- or space-separated',
    )
    .option(
      '--disallowedTools, --disallowed-tools <rules...>',
      'rules to deny, comma- or space-separated',
    )
    .option('--max-turns <n>', 'stop after this many model turns')
    .option('--model <model>', 'model id or alias (sonnet, opus, haiku)')
    .option('--append-system-prompt <text>', 'text appended to the system prompt')
    .option('--add-dir <dirs...>', 'additional directories the tools may change')
    .option('--settings <fileOrJson...>', 'more Claude Code settings: a file, or JSON text')
    .option(
      '--policy <file>',
      'the ci-agent policy file (default: .github/ci-agent.yml if present)',
    )
    .option(
      '--max-budget-usd <usd>',
      'the most the run may cost: no request is sent that could pass it',
    )
    .option('--log-file <path>', 'append the tool log (stream-json lines) to this file')
    .option(
      '--transcript-file <path>',
      'write the transcript hooks get as transcript_path here (default: a temp file)',
    )
    .option('--mcp-config <fileOrJson...>', 'MCP servers: a file, or JSON text ({"mcpServers": …})')
    .option(
      '--strict-mcp-config',
      'only the --mcp-config servers (not .mcp.json or the policy file)',
      false,
    )
    .addHelpText('after', helpEpilogue())
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut })
    .allowExcessArguments(false);
}

interface RawOptions {
  print?: string | boolean;
  outputFormat: OutputFormat;
  verbose: boolean;
  permissionMode?: PermissionMode;
  dangerouslySkipPermissions: boolean;
  allowedTools?: string[];
  disallowedTools?: string[];
  maxTurns?: string;
  model?: string;
  appendSystemPrompt?: string;
  addDir?: string[];
  settings?: string[];
  policy?: string;
  maxBudgetUsd?: string;
  logFile?: string;
  transcriptFile?: string;
  mcpConfig?: string[];
  strictMcpConfig: boolean;
}

/** Parses argv (without node and the script); throws UsageError with one clear line. */
export function parseCli(
  argv: readonly string[],
  version: string,
  writeOut?: (text: string) => void,
): CliSettings | 'exit' {
  const program = buildProgram(version, writeOut);
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.version' || error.code === 'commander.helpDisplayed')
        return 'exit';
      throw new UsageError(error.message.replace(/^error: /, ''));
    }
    throw error;
  }
  const raw = program.opts<RawOptions>();
  const positional = program.args[0];
  const printPrompt = typeof raw.print === 'string' ? raw.print : undefined;
  if (printPrompt !== undefined && positional !== undefined) {
    throw new UsageError('give the prompt once: either after -p or as an argument, not both');
  }
  if (raw.outputFormat === 'stream-json' && !raw.verbose) {
    throw new UsageError('--output-format=stream-json requires --verbose (as with claude -p)');
  }
  let maxTurns: number | undefined;
  if (raw.maxTurns !== undefined) {
    maxTurns = Number(raw.maxTurns);
    if (!Number.isInteger(maxTurns) || maxTurns < 1) {
      throw new UsageError(
        `--max-turns must be a positive integer, got ${JSON.stringify(raw.maxTurns)}`,
      );
    }
  }
  let maxBudgetUsd: number | undefined;
  if (raw.maxBudgetUsd !== undefined) {
    maxBudgetUsd = Number(raw.maxBudgetUsd);
    if (!Number.isFinite(maxBudgetUsd) || maxBudgetUsd <= 0) {
      throw new UsageError(
        `--max-budget-usd must be a positive number of US dollars, got ${JSON.stringify(raw.maxBudgetUsd)}`,
      );
    }
  }
  return Object.freeze({
    prompt: printPrompt ?? positional,
    outputFormat: raw.outputFormat,
    verbose: raw.verbose,
    permissionMode: raw.dangerouslySkipPermissions ? 'bypassPermissions' : raw.permissionMode,
    allowedTools: flagRules(raw.allowedTools, '--allowedTools', 'allow'),
    disallowedTools: flagRules(raw.disallowedTools, '--disallowedTools', 'deny'),
    maxTurns,
    model: raw.model,
    appendSystemPrompt: raw.appendSystemPrompt,
    addDir: raw.addDir ?? [],
    settings: raw.settings ?? [],
    policy: raw.policy,
    maxBudgetUsd,
    logFile: raw.logFile,
    transcriptFile: raw.transcriptFile,
    mcpConfig: raw.mcpConfig ?? [],
    strictMcpConfig: raw.strictMcpConfig,
  });
}

/** The rules of one flag, each of which must name a tool and work as written. */
function flagRules(
  values: readonly string[] | undefined,
  flag: string,
  kind: 'allow' | 'deny',
): string[] {
  const rules = splitRuleList(values ?? []);
  for (const rule of rules) {
    const problem = flagRuleProblem(rule, flag, kind);
    if (problem !== undefined) throw new UsageError(problem);
  }
  return rules;
}
