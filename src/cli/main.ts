/**
 * `ci-agent -p PROMPT`: the engine on the command line. The one place the CLI turns failures
 * into an exit code: usage and setup errors print one line on stderr and exit 1; a run that
 * ends in an error result exits 1; SIGINT/SIGTERM stop the run (tools and their process groups
 * are aborted) and exit 130/143 after the result is written.
 */
import { realpathSync } from 'node:fs';
import { runSession } from '../agent/session.js';
import { anthropicOptionsFromEnv, createAnthropicClient } from '../model/anthropic-client.js';
import type { ModelClient } from '../model/model-client.js';
import { DEFAULT_MODEL, resolveModelAlias } from '../model/pricing.js';
import { parseRule } from '../permissions/rules.js';
import { loadPolicy } from '../policy/load-policy.js';
import { errorMessage } from '../util/errors.js';
import { parseCli, UsageError } from './args.js';
import { CI_AGENT_VERSION, OutputRenderer } from './render.js';

export interface CliIo {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Standard input, when it is not a terminal. */
  readStdin: () => Promise<string | undefined>;
  /** For tests: a model client instead of the Anthropic one. */
  modelClient?: ModelClient;
  signal?: AbortSignal;
}

export async function main(io: CliIo): Promise<number> {
  let settings;
  try {
    settings = parseCli(io.argv, CI_AGENT_VERSION);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`Error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  if (settings === 'exit') return 0;

  const prompt = settings.prompt ?? (await io.readStdin())?.trim();
  if (!prompt) {
    io.stderr('Error: no prompt: pass it with -p "…", as an argument, or on standard input\n');
    return 1;
  }

  let modelClient = io.modelClient;
  if (!modelClient) {
    const options = anthropicOptionsFromEnv(io.env);
    if (!options.apiKey) {
      io.stderr(
        'Error: ANTHROPIC_API_KEY is not set: export your Anthropic API key (and ANTHROPIC_BASE_URL for another endpoint)\n',
      );
      return 1;
    }
    modelClient = createAnthropicClient(options);
  }

  const renderer = new OutputRenderer(settings.outputFormat, settings.verbose, io.stdout);
  try {
    const projectDir = realpathSync(io.cwd);
    const policy = await loadPolicy({
      projectDir,
      cwd: projectDir,
      policyPath: settings.policy,
      settingsArgs: settings.settings,
      home: io.env.HOME,
    });
    for (const warning of policy.warnings) io.stderr(`Warning: ${warning}\n`);
    const flagRules = (texts: readonly string[], source: string) =>
      texts.map((text) => ({ ...parseRule(text, source), anchorDir: projectDir }));
    const limits = policy.limits;
    const result = await runSession({
      prompt,
      cwd: projectDir,
      model: resolveModelAlias(settings.model ?? io.env.ANTHROPIC_MODEL ?? DEFAULT_MODEL),
      modelClient,
      permissionMode: settings.permissionMode ?? policy.permissions.defaultMode ?? 'default',
      rules: {
        allow: [...policy.permissions.allow, ...flagRules(settings.allowedTools, '--allowedTools')],
        deny: [
          ...policy.permissions.deny,
          ...flagRules(settings.disallowedTools, '--disallowedTools'),
        ],
        ask: policy.permissions.ask,
      },
      askDefault: policy.askResolution.default,
      askDefaultByTool: policy.askResolution.byTool,
      additionalDirectories: [...policy.permissions.additionalDirectories, ...settings.addDir],
      hooksConfig: policy.hooks,
      passEnv: policy.passEnv,
      maxTurns: settings.maxTurns ?? limits.maxTurns,
      maxBudgetUsd: settings.maxBudgetUsd ?? limits.maxBudgetUsd,
      timeoutMs: limits.timeoutMinutes === undefined ? undefined : limits.timeoutMinutes * 60_000,
      appendSystemPrompt: settings.appendSystemPrompt,
      env: io.env,
      events: (event) => renderer.handle(event),
      signal: io.signal,
    });
    return result.isError ? 1 : 0;
  } catch (error) {
    // Setup failures (a bad rule, a missing --add-dir) and anything unexpected: one line.
    io.stderr(`Error: ${errorMessage(error)}\n`);
    return 1;
  }
}
