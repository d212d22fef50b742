/**
 * `ci-agent -p PROMPT`: the engine on the command line. The one place the CLI turns failures
 * into an exit code (EXIT_CODES in args.ts, listed by --help): usage and setup errors print one
 * line on stderr and exit 1 (a sandbox that cannot start: the reason and the fix, before any
 * model request: cli-sandbox.ts); a run that ends in an error result says so on stderr and exits 1;
 * SIGINT/SIGTERM stop the run (tools and their process groups are aborted) and exit 130/143
 * after the result is written.
 *
 * Every line the run produces goes, masked, to stdout (in the chosen format), to stderr as it
 * happens when it is a denial, a retry or an error (all of it with --verbose in text mode:
 * stderr-reporter.ts), to the tool log (`--log-file`) and, when a hook could read it, to the
 * transcript (`--transcript-file`, else a temp file removed when the run ends).
 */
import { randomUUID } from 'node:crypto';
import { realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runSession } from '../agent/session.js';
import type { HooksConfig } from '../hooks/config.js';
import { outsideClaudeDirWarning, scriptsOutsideClaudeDir } from '../hooks/hook-scripts.js';
import { createSecretMasker } from '../log/secret-masker.js';
import { StreamJsonMapper, streamJsonSink } from '../log/stream-json.js';
import { openToolLog, openTranscript } from '../log/tool-log.js';
import type { NdjsonFile } from '../log/tool-log.js';
import type { ModelClient } from '../model/model-client.js';
import { configureModelProvider } from '../model/model-provider.js';
import type { ModelProvider } from '../model/model-provider.js';
import { DEFAULT_MODEL, resolveModelAlias } from '../model/pricing.js';
import { envLookup, layeredLookup } from '../model/provider-env.js';
import type { SettingLookup } from '../model/provider-env.js';
import type { LoadedPolicy } from '../policy/types.js';
import { parseRule } from '../permissions/rules.js';
import { decisionOptions } from '../policy/ask-resolution.js';
import { isInlineMcpConfig } from '../mcp/load-mcp-config.js';
import { loadPolicy } from '../policy/load-policy.js';
import { SandboxUnavailable } from '../sandbox/host-setup.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { judgesRemovedNote } from '../sandbox/absent-judges.js';
import { secretValues } from '../util/child-env.js';
import { errorMessage } from '../util/errors.js';
import { restoreCheckoutCredentials } from '../github/checkout-credentials.js';
import type { CredentialStash } from '../github/checkout-credentials.js';
import { runsInCi, stashCliCredentials } from './cli-credentials.js';
import { holdGitControl, putBackGitControl, type GitControlHold } from './cli-git-control.js';
import { parseCli, UsageError } from './args.js';
import { runAuditCommand } from './audit-command.js';
import type { CliSettings } from './args.js';
import { sandboxUnavailableText, startCliSandbox } from './cli-sandbox.js';
import { CI_AGENT_VERSION, OutputRenderer } from './render.js';
import { StderrReporter } from './stderr-reporter.js';
import { stderrText } from './stderr-text.js';

export interface CliIo {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Standard input, when it is not a terminal. */
  readStdin: () => Promise<string | undefined>;
  /** A model client instead of the provider's: the tests', and `ci-agent replay`'s recording. */
  modelClient?: ModelClient;
  signal?: AbortSignal;
}

export async function main(io: CliIo): Promise<number> {
  // Subcommands, as `claude mcp …` is one: only as the first word, never a prompt's.
  // `ci-agent replay …` (docs/REPLAY.md): loaded only when asked for, as its own chunk.
  if (io.argv[0] === 'replay') {
    const { replayMain } = await import('./replay-command.js');
    return replayMain(io, io.argv.slice(1), main);
  }
  if (io.argv[0] === 'audit') return runAuditCommand({ ...io, argv: io.argv.slice(1) });
  // Known secrets never reach stdout, stderr or the files (docs/DECISIONS.md #16).
  let masker = createSecretMasker(secretValues(io.env));
  const stderr = (text: string) => io.stderr(stderrText(masker.mask(text)));
  let settings;
  try {
    settings = parseCli(io.argv, CI_AGENT_VERSION, io.stdout);
  } catch (error) {
    if (error instanceof UsageError) {
      stderr(`Error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  if (settings === 'exit') return 0;

  const prompt = settings.prompt ?? (await io.readStdin())?.trim();
  if (!prompt) {
    stderr('Error: no prompt: pass it with -p "…", as an argument, or on standard input\n');
    return 1;
  }

  const renderer = new OutputRenderer(settings.outputFormat, settings.verbose, io.stdout);
  const reporter = new StderrReporter({
    turns: settings.verbose && settings.outputFormat === 'text',
    write: io.stderr,
  });
  const sessionId = randomUUID();
  const files: NdjsonFile[] = [];
  let temporaryTranscript: string | undefined;
  let sandbox: Sandbox | undefined;
  let credentials: CredentialStash | undefined;
  let gitControl: GitControlHold | undefined;
  let code = 1;
  try {
    code = await (async () => {
      try {
        const projectDir = realpathSync(io.cwd);
        if (settings.logFile) files.push(openToolLog(resolve(io.cwd, settings.logFile), sessionId));
        const policy = await loadPolicy({
          projectDir,
          cwd: projectDir,
          policyPath: settings.policy,
          settingsArgs: settings.settings,
          home: io.env.HOME,
          mcpConfigGiven: settings.mcpConfig.length > 0,
        });
        for (const warning of policy.warnings) stderr(`Warning: ${warning}\n`);
        // In CI, as the action does: a hook's script outside .claude/ is held to its file only.
        if (runsInCi(io.env)) {
          const anchors = { projectDir, homeDir: io.env.HOME ?? homedir() };
          for (const found of scriptsOutsideClaudeDir(policy.hooks, anchors))
            stderr(`Warning: ${outsideClaudeDirWarning(found, false)}\n`);
        }
        // Before anything the checkout names runs (a key helper, a hook, an MCP server, a tool):
        // cli-credentials.ts.
        credentials = await stashCliCredentials(projectDir, io.env, (text) =>
          stderr(`ci-agent: ${text}\n`),
        );
        // After the credentials are out, so that what is put back has none (cli-git-control.ts).
        gitControl = await holdGitControl(projectDir, io.env);
        // Before the first request: a provider set up wrong (no region, two providers) stops here.
        const provider = io.modelClient ? undefined : configureProvider(policy, settings, io);
        if (provider) {
          masker = createSecretMasker([...masker.secrets, ...provider.secrets]);
          for (const warning of provider.warnings) stderr(`Warning: ${warning}\n`);
        }
        const modelClient: ModelClient = io.modelClient ?? (await provider!.client());
        const model =
          provider?.models.model ??
          resolveModelAlias(settings.model ?? io.env.ANTHROPIC_MODEL ?? DEFAULT_MODEL);
        const flagRules = (texts: readonly string[], source: string) =>
          texts.map((text) => ({ ...parseRule(text, source), anchorDir: projectDir }));
        const limits = policy.limits;
        const transcriptPath = transcriptPathOf(settings, policy.hooks, sessionId, io);
        if (transcriptPath && !settings.transcriptFile) temporaryTranscript = transcriptPath;
        const promptId = randomUUID();
        if (transcriptPath) {
          const shape = { sessionId, promptId, cwd: projectDir, version: CI_AGENT_VERSION };
          files.push(openTranscript(transcriptPath, { ...shape, prompt, masker }));
        }
        const recordFiles = runRecordFiles(settings, transcriptPath, io.cwd);
        const decisions = decisionOptions(policy);
        // Before the first model request: a sandbox that cannot start stops the run here.
        sandbox = await startCliSandbox(policy, {
          projectDir,
          addDir: settings.addDir,
          env: io.env,
          transcriptPath,
          recordFiles,
          note: (text) => stderr(`ci-agent: ${text}\n`),
        });
        const mapper = new StreamJsonMapper({
          version: CI_AGENT_VERSION,
          masker,
          ...(sandbox && { sandbox: sandbox.describe() }),
          ...(provider && { provider: provider.description }),
          ...(policy.sourceDigests && { policy: policy.sourceDigests }),
        });
        const result = await runSession({
          prompt,
          cwd: projectDir,
          model,
          modelClient,
          ...(provider && { smallFastModel: provider.models.smallFastModel }),
          permissionMode: settings.permissionMode ?? policy.permissions.defaultMode ?? 'default',
          rules: {
            allow: [
              ...policy.permissions.allow,
              ...flagRules(settings.allowedTools, '--allowedTools'),
            ],
            deny: [
              ...policy.permissions.deny,
              ...flagRules(settings.disallowedTools, '--disallowedTools'),
            ],
            ask: policy.permissions.ask,
          },
          ...decisions,
          judgePaths: [...decisions.judgePaths, ...recordFiles],
          additionalDirectories: [...policy.permissions.additionalDirectories, ...settings.addDir],
          hooksConfig: policy.hooks,
          transcriptPath,
          promptId,
          passEnv: policy.passEnv,
          settingsEnv: policy.env,
          maxTurns: settings.maxTurns ?? limits.maxTurns,
          maxBudgetUsd: settings.maxBudgetUsd ?? limits.maxBudgetUsd,
          timeoutMs:
            limits.timeoutMinutes === undefined ? undefined : limits.timeoutMinutes * 60_000,
          appendSystemPrompt: settings.appendSystemPrompt,
          env: io.env,
          events: streamJsonSink(mapper, [
            renderer.accept,
            reporter.accept,
            ...files.map((file) => file.write),
          ]),
          signal: io.signal,
          sessionId,
          ...(sandbox && { sandbox }),
          mcp: {
            policy: policy.mcp,
            configArgs: settings.mcpConfig,
            strict: settings.strictMcpConfig,
            onStart: ({ servers, warnings }) => {
              for (const warning of warnings) stderr(`Warning: ${warning}\n`);
              mapper.setMcpServers(servers);
            },
          },
        });
        const judgesRemoved = judgesRemovedNote(sandbox);
        if (judgesRemoved) {
          stderr(`Error: ${judgesRemoved}\n`);
          return 1;
        }
        return result.isError ? 1 : 0;
      } catch (error) {
        if (error instanceof SandboxUnavailable) {
          stderr(sandboxUnavailableText(error));
          return 1;
        }
        // Setup failures (a bad rule, a missing --add-dir) and anything unexpected: one line.
        stderr(`Error: ${errorMessage(error)}\n`);
        return 1;
      } finally {
        for (const file of files) {
          file.close();
          if (file.error) stderr(`Warning: ${file.error.message}\n`);
        }
        // Only the hooks knew its path, and they have all run.
        if (temporaryTranscript) rmSync(temporaryTranscript, { force: true });
        await sandbox?.close();
      }
    })();
  } finally {
    // The session's hooks and MCP servers have ended: nothing of the agent's runs any more.
    if (gitControl && !(await putBackGitControl(gitControl, stderr))) code = 1;
    // Last: the later steps expect them.
    if (credentials) {
      await restoreCheckoutCredentials(credentials).catch((error: unknown) =>
        stderr(
          `Warning: the checkout's git credentials could not be put back (${errorMessage(error)}): later steps' git commands may fail to authenticate\n`,
        ),
      );
    }
  }
  return code;
}

/**
 * The files of this run's record and set-up that the flags name: the log (`--log-file`), the
 * transcript the hooks read, and the `--mcp-config` files. Judges for the run (floors and the
 * sandbox keep them out of the agent's reach): rewriting the log would hide what was done, the
 * transcript is what hooks judge by, and an MCP config decides what a later run starts.
 */
function runRecordFiles(
  settings: CliSettings,
  transcriptPath: string | undefined,
  cwd: string,
): string[] {
  return [
    ...(settings.logFile ? [resolve(cwd, settings.logFile)] : []),
    ...(transcriptPath ? [transcriptPath] : []),
    ...settings.mcpConfig
      .filter((value) => !isInlineMcpConfig(value))
      .map((file) => resolve(cwd, file)),
  ];
}

/**
 * Where the transcript goes: `--transcript-file`, else — only when a hook could read it — a
 * temp file. Never under the user's home (Claude Code's `~/.claude/projects/`): a CI tool has
 * no business there. `RUNNER_TEMP` first: the runner empties it after each job, so even a killed
 * run leaves nothing behind.
 */
function transcriptPathOf(
  settings: CliSettings,
  hooks: HooksConfig,
  sessionId: string,
  io: CliIo,
): string | undefined {
  if (settings.transcriptFile) return resolve(io.cwd, settings.transcriptFile);
  if (!Object.values(hooks).some((groups) => groups.length > 0)) return undefined;
  return join(io.env.RUNNER_TEMP || tmpdir(), `ci-agent-${sessionId}.jsonl`);
}

/**
 * The model connection from Claude Code's variables: the settings files' `env` over the
 * environment (as Claude Code applies them), each value named by where it came from.
 */
function configureProvider(policy: LoadedPolicy, settings: CliSettings, io: CliIo): ModelProvider {
  const fromSettings: SettingLookup = (name) => {
    const entry = Object.hasOwn(policy.modelEnv, name) ? policy.modelEnv[name] : undefined;
    const value = entry?.value.trim() ?? '';
    return entry && value !== '' ? { value, from: `${name} (env of ${entry.source})` } : undefined;
  };
  return configureModelProvider({
    lookup: layeredLookup(fromSettings, envLookup(io.env)),
    requestedModel: settings.model,
    cwd: io.cwd,
  });
}
