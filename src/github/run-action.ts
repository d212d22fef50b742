/**
 * One run of the action, in order:
 *   1. inputs (once) → event → task, or a logged skip
 *   2. the actor may trigger runs (write permission; bots only when listed)
 *   3. the "working" comment; the tool log and transcript opened in the artifacts directory
 *   4. the branch to work on; on pull requests the configuration from the base branch
 *   5. the evidence: the test command's output or the failed jobs' logs (passing tests end here)
 *   6. the agent, under the repository's policy
 *   7. commit, push (never for a fork, nor CI changes the policy does not allow: push-plan.ts),
 *      open the PR for a new branch (a refusal is reported with the pushed branch)
 *   8. the report: the comment, the job summary, the artifact, the outputs, an honest conclusion
 * A failure at any step after 3 still ends in 8, with what there is. The runner's files are copied
 * before 3 and checked after 6 and before 8 (runner-files.ts): a change fails the run, pushes
 * nothing, and is put back before the action writes its own outputs. Git's control files are
 * copied before 5 and put back after 6 and again before 8, however the run ended (git-control.ts).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import {
  findHookScripts,
  outsideClaudeDirWarning,
  scriptsOutsideClaudeDir,
} from '../hooks/hook-scripts.js';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { RunResult } from '../agent/events.js';
import { runSession } from '../agent/session.js';
import { CI_AGENT_VERSION } from '../cli/render.js';
import { createSecretMasker } from '../log/secret-masker.js';
import type { SecretMasker } from '../log/secret-masker.js';
import { StreamJsonMapper, streamJsonSink } from '../log/stream-json.js';
import { openToolLog, openTranscript } from '../log/tool-log.js';
import { publishedHash } from '../log/log-chain.js';
import { redactNdjsonFile } from '../log/redact-ndjson.js';
import { configureModelProvider } from '../model/model-provider.js';
import type { ModelProvider } from '../model/model-provider.js';
import { envLookup, layeredLookup, mapLookup } from '../model/provider-env.js';
import { retryLine } from '../model/retry-policy.js';
import { findCredentialFiles } from '../util/credential-files.js';
import { decisionOptions } from '../policy/ask-resolution.js';
import { secretValues } from '../util/child-env.js';
import { errorMessage } from '../util/errors.js';
import { artifactFiles, uploadArtifact } from './artifact-upload.js';
import { ATTESTATION_FILE } from '../audit/artifact-names.js';
import { attestFiles } from './attest-artifact.js';
import type { AttestOutcome } from './attest-artifact.js';
import { authorizeActor } from './authorization.js';
import {
  credentialsNote,
  restoreCheckoutCredentials,
  stashCheckoutCredentials,
} from './checkout-credentials.js';
import type { CredentialStash } from './checkout-credentials.js';
import {
  loadCheckoutPolicy,
  onBranch,
  readCheckoutState,
  startEarly,
  worksOnHead,
} from './checkout-state.js';
import type { CheckoutState } from './checkout-state.js';
import { upsertReportComment, workingComment } from './comment.js';
import type { CommentTarget } from './comment.js';
import { deriveTask, policyRef, readEventContext } from './context.js';
import type { GitHubEvent } from './context.js';
import { createGitHubClient } from './github-client.js';
import type { GitHubClient } from './github-client.js';
import { failedJobLogs, runTestCommand } from './failure-context.js';
import type { Failure } from './failure-context.js';
import {
  checkoutBranch,
  commitAll,
  createGit,
  diffSince,
  fetchRef,
  push as pushBranch,
} from './git.js';
import type { RemoteAccess } from './git.js';
import { restoreGitControl, snapshotGitControl } from './git-control.js';
import { removeGitlinkTraps, snapshotGitlinks } from './gitlink-traps.js';
import type { GitlinkSnapshot } from './gitlink-traps.js';
import type { GitControlSnapshot } from './git-control.js';
import type { FileChange } from './git.js';
import { readInputs } from './inputs.js';
import { policyAnnotations } from './policy-annotations.js';
import { createWorkflowCommands } from './workflow-commands.js';
import type { WorkflowCommands } from './workflow-commands.js';
import type { ActionInputs } from './inputs.js';
import { ReportCollector } from './report.js';
import {
  restoreRunnerFiles,
  runnerFilesDetails,
  runnerFilesHeadline,
  snapshotRunnerFiles,
} from './runner-files.js';
import type { RunnerFileChange, RunnerFilesSnapshot } from './runner-files.js';
import type { Conclusion, ReportContext } from './report-markdown.js';
import { sandboxBrokeEveryCall, startRunSandbox } from './run-sandbox.js';
import { judgesRemovedNote } from '../sandbox/absent-judges.js';
import type { RunSandbox } from './run-sandbox.js';
import type { LoadedPolicy } from '../policy/types.js';
import { SandboxUnavailable } from '../sandbox/host-setup.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { Task } from './task.js';
import { buildTaskPrompt } from './task-prompt.js';
import {
  fetchPullRequest,
  openPullRequest,
  pullRequestOfTask,
  pullRequestText,
} from './pull-request.js';
import { PolicyError } from '../policy/policy-error.js';
import type { PullRequestBranch } from './pull-request.js';
import { restoreHeadConfig, useTrustedConfig } from './trusted-config.js';
import {
  isWorkflowToken,
  permissionRefusal,
  pushRefusal,
  workflowTokenNote,
} from './token-refusals.js';

export interface ActionOutcome {
  conclusion: Conclusion | 'skipped';
  headline: string;
}

const FAILED: ReadonlySet<string> = new Set([
  'failed',
  'denied',
  'limit',
  'cancelled',
  'no-changes',
]);

export interface RunActionOptions {
  signal?: AbortSignal;
  /**
   * The run's one masker: what the run logs, writes, sends to GitHub and records through git
   * passes it. By default one of the values of env's secret-named variables, which include the
   * token and key inputs (INPUT_GITHUB-TOKEN, INPUT_ANTHROPIC-API-KEY).
   */
  masker?: SecretMasker;
  /** The runner's channel; by default one for env, masked with the masker. */
  commands?: WorkflowCommands;
}

/** What work() runs with besides the task: the same for every step. */
interface RunContext {
  env: NodeJS.ProcessEnv;
  signal: AbortSignal | undefined;
  commands: WorkflowCommands;
  masker: SecretMasker;
}

export async function runAction(
  env: NodeJS.ProcessEnv = process.env,
  options: RunActionOptions = {},
): Promise<ActionOutcome> {
  const masker = options.masker ?? createSecretMasker(secretValues(env));
  const commands = options.commands ?? createWorkflowCommands({ env, masker });
  const context: RunContext = { env, signal: options.signal, commands, masker };
  const inputs = readInputs(env, { setSecret: commands.setSecret });
  const event = await readEventContext(env);
  // Audit mode: a finished run's artifact is verified; no agent runs (audit-run.ts).
  // What only some runs need loads when they need it (docs/ARCHITECTURE.md, "Start-up").
  if (inputs.auditRunId !== undefined) {
    const { auditRun } = await import('./audit-run.js');
    return auditRun(inputs.auditRunId, inputs, event, env, commands);
  }
  const decided = deriveTask(event, inputs);
  if (decided.kind === 'skip') return await skipped(commands, decided.reason);
  const task = decided;
  // The permission check goes out first: the processes started below block the main thread for
  // a few ms each as they fork, and the request would otherwise wait behind them.
  const octokit = createGitHubClient(inputs.githubToken, event.apiUrl, {
    masker,
    warn: commands.warning,
  });
  const authorizing = startEarly(
    authorizeActor(octokit, {
      owner: event.owner,
      repo: event.repo,
      actor: event.actor,
      allowedBots: inputs.allowedBots,
    }),
  );
  const workspace = workspaceOf(env);
  // The policy alone is what the sandbox needs: it starts without waiting for git's state.
  const earlyPolicy = worksOnHead(task)
    ? startEarly(loadCheckoutPolicy(workspace, inputs.policy))
    : undefined;
  const early = earlyPolicy
    ? startEarly(readCheckoutState(workspace, inputs.policy, earlyPolicy()))
    : undefined;
  // With the policy read early, the sandbox starts while the permission check is out: its probe
  // no longer waits in line before the first model request. work() still awaits it before the
  // test command and the first request, so a sandbox that cannot start stops the run before
  // anything is sent; a run that is not allowed, or set up wrong, closes it unused.
  const artifacts = artifactsDirOf(env, event);
  const madeArtifacts = earlyPolicy !== undefined && !existsSync(artifacts);
  const earlySandbox = earlyPolicy
    ? startEarly(
        earlyPolicy().then((policy) => {
          mkdirSync(artifacts, { recursive: true });
          return startRunSandbox(policy, runSandboxOptions(policy, env, artifacts));
        }),
      )
    : undefined;
  // Read while the permission check is out (only files the runner wrote; nothing of the
  // checkout has run): work() awaits it before anything else it does.
  const runnerFiles = startEarly(snapshotRunnerFiles(env));
  let handedOver = false;
  try {
    const authorization = await authorizing();
    if (!authorization.allowed) return await skipped(commands, authorization.reason);
    // A provider set up wrong (no credential, no region, two providers, a malformed URL) fails
    // here, naming the input or variable, before any comment or run.
    const provider = actionModelProvider(inputs, env);
    for (const secret of provider.secrets) commands.setSecret(secret);
    for (const warning of provider.warnings) commands.warning(masker.mask(warning));
    handedOver = true;
    return await work(
      task,
      event,
      inputs,
      provider,
      octokit,
      context,
      early,
      earlySandbox,
      runnerFiles,
    );
  } finally {
    if (!handedOver) {
      await discardSandbox(earlySandbox);
      if (madeArtifacts) rmSync(artifacts, { recursive: true, force: true });
    }
  }
}

/** Where the run's log, transcript, patch and report go (the artifact's files). */
function artifactsDirOf(env: NodeJS.ProcessEnv, event: GitHubEvent): string {
  return join(env.RUNNER_TEMP || tmpdir(), `ci-agent-${event.runId}`);
}

/** The run's sandbox request: the workspace, the transcript's folder, the judges. */
function runSandboxOptions(
  policy: LoadedPolicy,
  env: NodeJS.ProcessEnv,
  artifactsDir: string,
): Parameters<typeof startRunSandbox>[1] {
  const workspace = workspaceOf(env);
  return {
    workspace,
    env,
    readable: [transcriptPath(artifactsDir)],
    judges: [
      ...decisionOptions(policy).judgePaths.map((file) => resolve(workspace, file)),
      // The scripts hooks run judge the calls too: read-only inside, wherever they are.
      ...findHookScripts(policy.hooks, { projectDir: workspace, homeDir: env.HOME ?? homedir() })
        .paths,
    ],
  };
}

function transcriptPath(artifactsDir: string): string {
  return join(artifactsDir, 'transcript.jsonl');
}

/** A sandbox started early and not used: closed, and its failure (if it failed) dropped. */
async function discardSandbox(start: (() => Promise<RunSandbox>) | undefined): Promise<void> {
  const started = await start?.().catch(() => undefined);
  await started?.sandbox?.close();
}

/** The inputs a provider variable may come from, named as inputs in messages. */
const PROVIDER_INPUTS: Readonly<Record<string, string>> = {
  ANTHROPIC_API_KEY: 'anthropic-api-key',
  CLAUDE_CODE_OAUTH_TOKEN: 'claude-code-oauth-token',
  CLAUDE_CODE_USE_BEDROCK: 'use-bedrock',
  CLAUDE_CODE_USE_VERTEX: 'use-vertex',
  CLAUDE_CODE_USE_FOUNDRY: 'use-foundry',
};

/**
 * The model connection: the inputs, then the job's environment (where
 * aws-actions/configure-aws-credentials and google-github-actions/auth leave theirs), by Claude
 * Code's variable names. Not the settings files' `env`: a setting meant for the developers' own
 * Claude Code must not move the action to another provider.
 */
function actionModelProvider(
  inputs: Readonly<ActionInputs>,
  env: NodeJS.ProcessEnv,
): ModelProvider {
  const switched = (on: boolean) => (on ? '1' : undefined);
  const fromInputs = mapLookup(
    {
      ANTHROPIC_API_KEY: inputs.anthropicApiKey,
      CLAUDE_CODE_OAUTH_TOKEN: inputs.claudeCodeOauthToken,
      CLAUDE_CODE_USE_BEDROCK: switched(inputs.useBedrock),
      CLAUDE_CODE_USE_VERTEX: switched(inputs.useVertex),
      CLAUDE_CODE_USE_FOUNDRY: switched(inputs.useFoundry),
    },
    (name) => `the ${PROVIDER_INPUTS[name]} input`,
  );
  return configureModelProvider({
    lookup: layeredLookup(fromInputs, envLookup(env)),
    nameOf: (variable) =>
      Object.hasOwn(PROVIDER_INPUTS, variable)
        ? `the ${PROVIDER_INPUTS[variable]} input`
        : variable,
    requestedModel: inputs.model,
    cwd: workspaceOf(env),
  });
}

async function work(
  task: Task,
  event: GitHubEvent,
  inputs: Readonly<ActionInputs>,
  provider: ModelProvider,
  octokit: GitHubClient,
  context: RunContext,
  early: (() => Promise<CheckoutState>) | undefined,
  /** Started with the policy read early (runAction); work() closes it. */
  earlySandbox: (() => Promise<RunSandbox>) | undefined,
  /** The runner files as they were, read while the permission check was out (runAction). */
  runnerFilesSnapshot: () => Promise<RunnerFilesSnapshot>,
): Promise<ActionOutcome> {
  const { env, signal, commands } = context;
  // Replaced once, when the push scan finds values that are not the run's known secrets.
  let masker = context.masker;
  const workspace = workspaceOf(env);
  // Before any code but the action's runs: the test command, the agent's tools and hooks.
  const runnerFiles = await runnerFilesSnapshot();
  /** The runner files found changed (and put back), by the check after the agent or the last. */
  const runnerFilesChanged: RunnerFileChange[] = [];
  const artifactsDir = artifactsDirOf(env, event);
  mkdirSync(artifactsDir, { recursive: true });
  const paths = {
    log: join(artifactsDir, 'tool-log.jsonl'),
    transcript: transcriptPath(artifactsDir),
    diff: join(artifactsDir, 'changes.patch'),
    report: join(artifactsDir, 'report.md'),
    html: join(artifactsDir, 'audit.html'),
  };
  const target = commentTarget(task, event);
  // The "working" comment goes out while the run gets going: the first model request does not
  // wait for GitHub. The report waits for it, so that it replaces that same comment.
  const working =
    inputs.comment && target
      ? upsertReportComment(octokit, target, workingComment(event.runUrl))
      : undefined;

  const git = createGit(workspace, env, masker);
  /** How the action's own fetches and push reach the repository: with its token. */
  const remote: RemoteAccess = { token: inputs.githubToken, serverUrl: event.serverUrl };
  const collector = new ReportCollector();
  const log = openToolLog(paths.log, `${event.runId}`);
  let transcript: ReturnType<typeof openTranscript> | undefined;
  let result: RunResult | undefined;
  let conclusion: Conclusion = 'failed';
  let headline = '';
  let files: FileChange[] = [];
  let patch = '';
  let shown = '';
  let branch: string | undefined;
  /** The branch once it is on GitHub: only then are it and the commit in the outputs and the report. */
  let pushed: string | undefined;
  const warnings: string[] = [];
  const links: { label: string; url: string }[] = [];
  /** Problems shown as written, in a code block (a bad policy file's). */
  let errorDetails: string | undefined;
  let runStarted = true;
  let prNumber: number | undefined = pullRequestOfTask(task)?.number;
  /** Who opened the run's pull request: the token's login, when it opened one. */
  let openedBy: string | undefined;
  let commitSha: string | undefined;
  let gitControlNote: string | undefined;
  const gitControlRestored: string[] = [];
  let sandbox: Sandbox | undefined;
  let sandboxReport: ReportContext['sandbox'];
  /** The checkout's credentials, out of git's config from before the first code not ours runs. */
  let credentials: Promise<CredentialStash> | undefined;
  /** Git's control files as they were before the first code not ours ran (git-control.ts). */
  let gitControl: Promise<GitControlSnapshot> | undefined;
  let gitlinkState: Promise<GitlinkSnapshot> | undefined;
  /** The branch of a task on HEAD, created as the workspace is prepared (prepareWorkspace). */
  let branchReady: Promise<void> | undefined;
  try {
    const pr =
      task.kind === 'comment-command' && task.isPullRequest
        ? await fetchPullRequest(octokit, {
            owner: event.owner,
            repo: event.repo,
            number: task.issueNumber,
          })
        : pullRequestOfTask(task);
    prNumber = pr?.number;
    // Read before the branch is created: no git command runs beside another on this checkout.
    const readEarly = early ? await early() : undefined;
    // A task on HEAD creates its branch (at the same commit) once the first model request is
    // out (prepareWorkspace below): tools and hooks wait for it (SessionOptions.workspaceReady).
    // Any other task checks out first, since what it reads next depends on the checkout.
    let createBranch: (() => Promise<void>) | undefined;
    if (readEarly && !pr) {
      const name = newBranchName(task, event);
      branch = name;
      createBranch = () => checkoutBranch(git, name, 'HEAD');
    } else {
      branch = await prepareBranch(git, task, event, pr, remote);
    }
    // After the checkout, so that the code under review is what the agent sees, and its
    // configuration is the base branch's.
    const configSource = pr ? { ref: pr.baseRef, from: 'base-branch' as const } : policyRef(task);
    const trusted =
      configSource.from === 'base-branch'
        ? await useTrustedConfig(git, workspace, configSource.ref, {
            access: remote,
            extraPaths: [inputs.policy],
          })
        : undefined;

    // Read before anything of the checkout runs (the test command is the pull request's code).
    const { environment, policy, baseSha } = readEarly
      ? onBranch(readEarly, branch)
      : await readCheckoutState(workspace, inputs.policy);
    for (const { message, properties } of policyAnnotations(policy))
      commands.warning(masker.mask(message), properties);
    const modelEnvNames = Object.keys(policy.modelEnv);
    if (modelEnvNames.length > 0) {
      commands.warning(
        masker.mask(
          `the settings files' env sets ${modelEnvNames.join(', ')}: the action takes its model connection from its inputs and the job's environment, so these are not used (ci-agent -p reads them, as Claude Code does)`,
        ),
      );
    }
    // A judge only as far as its own file: said, since the policy's author may not know.
    const anchors = { projectDir: workspace, homeDir: env.HOME ?? homedir() };
    for (const found of scriptsOutsideClaudeDir(policy.hooks, anchors))
      commands.warning(masker.mask(outsideClaudeDirWarning(found, true)));
    // Before the test command and the first model request: a sandbox that cannot start stops
    // the run here, before anything the agent causes has run.
    const contained = earlySandbox
      ? await earlySandbox()
      : await startRunSandbox(policy, runSandboxOptions(policy, env, artifactsDir));
    sandbox = contained.sandbox;
    sandboxReport =
      contained.report.kind === 'sandboxed' && pr?.isFork
        ? { ...contained.report, fork: true }
        : contained.report;
    for (const note of contained.notes) commands.info(masker.mask(`ci-agent: ${note}`));
    if (!sandbox)
      commands.warning(
        `ci-agent runs unsandboxed: ${contained.report.kind === 'unsandboxed' ? contained.report.why : ''}`,
      );

    // A fork's code gets no secret: what the policy passes to tools is withheld from it.
    const forkSafe = (names: readonly string[]) => (pr?.isFork ? [] : names);
    if (pr?.isFork && policy.passEnv.length > 0) {
      warnings.push(
        `This pull request comes from a fork: env.passEnv (${policy.passEnv.join(', ')}) was not passed to its code`,
      );
    }

    /**
     * The workspace made ready for code not ours (the test command, the agent's tools, hooks and
     * MCP servers, which all wait for it): the branch of a task on HEAD; the checkout's
     * credentials out of git's config (checkout-credentials.ts; after the branch, the action's
     * last git command that uses them); git's control files copied, after the credentials are
     * out, so that what is put back has none; then the index's gitlinks (git runs in the
     * checkout there, so after its configuration is copied, and as it was). Started once, by
     * whichever comes first: the first model request's answer beginning (off the way to that
     * request, whose forks would delay it), anything that needs it, or the end of the session.
     */
    let preparing: Promise<void> | undefined;
    const prepareWorkspace = (): Promise<void> => {
      if (preparing) return preparing;
      branchReady = createBranch?.();
      // Surfaced by the session or below, never as an unhandled rejection.
      branchReady?.catch(() => undefined);
      credentials = (branchReady ?? Promise.resolve()).then(() =>
        stashCheckoutCredentials(git, workspace, env),
      );
      credentials.catch(() => undefined);
      gitControl = credentials.then((stash) => {
        const note = credentialsNote(stash);
        if (note) commands.info(masker.mask(`ci-agent: ${note}`));
        return snapshotGitControl(workspace, env);
      });
      gitControl.catch(() => undefined);
      gitlinkState = gitControl.then(() => snapshotGitlinks(git, workspace));
      gitlinkState.catch(() => undefined);
      preparing = gitlinkState.then(() => undefined);
      preparing.catch(() => undefined);
      return preparing;
    };

    let failure: Failure | undefined;
    if (task.kind === 'pr-tests') {
      await prepareWorkspace();
      const command = task.testCommand;
      const tests = await commands.group(`ci-agent: running ${command}`, () =>
        runTestCommand(command, {
          cwd: workspace,
          env,
          timeoutMs: 30 * 60_000,
          ...(signal && { signal }),
          ...(sandbox && { sandbox }),
          passEnv: forkSafe(policy.passEnv),
        }),
      );
      if (tests.passed) {
        conclusion = 'tests-pass';
        headline = `\`${task.testCommand}\` passes on this pull request: nothing to fix`;
        return await finish();
      }
      failure = tests.failure;
    } else if (task.kind === 'pr-fix-failed-run') {
      failure = await failedJobLogs(octokit, {
        owner: event.owner,
        repo: event.repo,
        runId: task.runId,
      });
    }

    const prompt = buildTaskPrompt(task, { failure });
    const promptId = randomUUID();
    transcript = openTranscript(paths.transcript, {
      sessionId: `${event.runId}`,
      promptId,
      cwd: workspace,
      version: CI_AGENT_VERSION,
      prompt,
      masker,
    });
    const mapper = new StreamJsonMapper({
      version: CI_AGENT_VERSION,
      masker,
      ...(sandbox && { sandbox: sandbox.describe() }),
      provider: provider.description,
      ...(policy.sourceDigests && { policy: policy.sourceDigests }),
    });
    const lines = streamJsonSink(mapper, [log.write, transcript.write]);
    const limits = policy.limits;
    // A cloud provider's SDK is loaded here, only when chosen (model/provider-client.ts).
    const modelClient = await provider.client();
    const session = runSession({
      prompt,
      cwd: workspace,
      environment,
      model: provider.models.model,
      smallFastModel: provider.models.smallFastModel,
      modelClient,
      permissionMode: policy.permissions.defaultMode ?? 'default',
      rules: policy.permissions,
      ...decisionOptions(policy, inputs.policy),
      additionalDirectories: policy.permissions.additionalDirectories,
      hooksConfig: policy.hooks,
      transcriptPath: paths.transcript,
      promptId,
      passEnv: forkSafe(policy.passEnv),
      settingsEnv: policy.env,
      maxTurns: inputs.maxTurns ?? limits.maxTurns,
      maxBudgetUsd: inputs.maxBudgetUsd ?? limits.maxBudgetUsd,
      timeoutMs: minutes(inputs.timeoutMinutes ?? limits.timeoutMinutes),
      env,
      sessionId: `${event.runId}`,
      events: (agentEvent) => {
        lines(agentEvent);
        collector.handle(agentEvent);
        // Each model API retry shows in the step log as it happens, with the cause and the URL.
        const retry = agentEvent.type === 'subagent-event' ? agentEvent.event : agentEvent;
        if (retry.type === 'api-retry') commands.info(masker.mask(`ci-agent: ${retryLine(retry)}`));
      },
      signal,
      workspaceReady: prepareWorkspace,
      ...(sandbox && { sandbox }),
      mcp: {
        policy: policy.mcp,
        onStart: ({ servers, warnings }) => {
          for (const warning of warnings) commands.warning(masker.mask(warning));
          mapper.setMcpServers(servers);
        },
      },
    });
    // The session's output (retries, MCP warnings) folds into one group of the step log.
    result = await commands.group('ci-agent: the agent at work', () => session);
    const broken = sandboxBrokeEveryCall(sandbox);
    // Before git runs: a judge the agent created where there was none (a new .mcp.json,
    // .github/actions/, .git/config.worktree) is removed, never committed, and fails the run.
    const judgesRemoved = judgesRemovedNote(sandbox);
    if (judgesRemoved) {
      warnings.push(judgesRemoved);
      commands.warning(masker.mask(judgesRemoved));
    }
    // A run that ended before any tool ran still needs its branch before it commits.
    await prepareWorkspace().catch(() => undefined);
    await branchReady;
    await putBackGitControl('before ci-agent ran git');
    if (trusted) await restoreHeadConfig(git, workspace, trusted);
    // A changed runner file means the agent was turned against the workflow: its work is kept
    // as a patch, not pushed; finish() fails the run and says which file.
    runnerFilesChanged.push(...(await restoreRunnerFiles(runnerFiles)));

    // Never the provider's credentials file that google-github-actions/auth left in the checkout.
    commitSha = await commitAll(git, commitMessage(task), undefined, {
      exclude: credentialFilesIn(workspace, env),
    });
    ({ patch, shown, files } = await diffSince(git, baseSha, 'HEAD'));
    // What would be pushed, checked for secrets (push-scan.ts): on a hit the artifact's patch is
    // the text one scanned, and every value found is masked from here on, the report's diff too.
    const { refusalReason, scanPush } = await import('./push-scan.js');
    const scan = commitSha
      ? await scanPush(git, {
          base: baseSha,
          head: commitSha,
          branch: branch ?? '',
          secrets: masker.secrets,
        })
      : undefined;
    if (scan && scan.findings.length > 0) {
      masker = createSecretMasker([...masker.secrets, ...scan.values]);
      patch = scan.patch;
      // The tool log is rechained as it is masked (tool-log.ts); the final hash comes after.
      log.redact(masker);
      redactNdjsonFile(paths.transcript, masker);
    }
    writeFileSync(paths.diff, masker.mask(patch));
    // A stopped session still returns a result; it is a cancelled run, not a finished one, and
    // half-done work is not pushed: the runner kills the job soon after SIGTERM anyway.
    ({ conclusion, headline } = signal?.aborted
      ? {
          conclusion: 'cancelled',
          headline: `the run was stopped: ${errorMessage(signal.reason)}${commitSha ? '; nothing was pushed: the patch so far is in the artifact' : ''}`,
        }
      : broken
        ? { conclusion: 'failed' as const, headline: broken }
        : judge(task, result, files.length > 0));
    if (judgesRemoved && conclusion === 'success') {
      conclusion = 'failed';
      headline = `${headline}; but ${judgesRemoved}`;
    }
    const heldBack =
      commitSha && branch && !pr?.isFork && conclusion !== 'cancelled' && !scan?.findings.length
        ? await (
            await import('./push-plan.js')
          ).heldBackCiChanges(
            git,
            { from: baseSha, to: commitSha },
            { policyInput: inputs.policy, push: policy.push },
          )
        : undefined;
    if (runnerFilesChanged.length > 0) {
      headline = runnerFilesHeadline(runnerFilesChanged);
    } else if (
      commitSha &&
      branch &&
      !pr?.isFork &&
      conclusion !== 'cancelled' &&
      scan?.findings.length
    ) {
      conclusion = 'failed';
      headline = refusalReason(scan.findings);
    } else if (heldBack) {
      if (conclusion === 'success') conclusion = 'failed';
      headline += `; ${heldBack.headline}`;
      warnings.push(heldBack.detail);
      commands.warning(masker.mask(heldBack.detail));
    } else if (commitSha && branch && !pr?.isFork && conclusion !== 'cancelled') {
      try {
        const push = { ...remote, branch };
        await commands.group(`ci-agent: pushing ${branch}`, () => pushBranch(git, push));
        pushed = branch;
      } catch (error) {
        conclusion = 'failed';
        const refusal = pushRefusal(errorMessage(error));
        if (refusal) {
          // What to change first; git's own words below it, as they were printed.
          headline = `the work is done but the push was refused: ${refusal}; the patch is in the artifact`;
          errorDetails = errorMessage(error);
        } else {
          headline = `the work is done but the push failed (${errorMessage(error)}); the patch is in the artifact`;
        }
      }
      if (pushed && pr === undefined) {
        const opened = await openPullRequest(octokit, {
          owner: event.owner,
          repo: event.repo,
          serverUrl: event.serverUrl,
          branch: pushed,
          base: task.kind === 'issue' ? task.base : task.defaultBranch,
          ...pullRequestText(task, event, result.result),
        });
        if (opened.ok) {
          prNumber = opened.number;
          openedBy = opened.author;
          headline += `; pull request #${prNumber} is ready for review`;
        } else {
          conclusion = 'failed';
          headline = opened.headline;
          warnings.push(opened.detail);
          links.push(...opened.links);
          commands.warning(masker.mask(opened.detail));
        }
      }
    } else if (commitSha && pr?.isFork) {
      headline +=
        '; this pull request comes from a fork, so nothing was pushed: the patch is below and in the artifact';
    }
    return await finish();
  } catch (error) {
    conclusion = signal?.aborted ? 'cancelled' : 'failed';
    headline = `the run ${signal?.aborted ? 'was stopped' : 'failed'}: ${errorMessage(error)}`;
    // A request the job's permissions: block does not cover (a PR's details, the failed jobs).
    const advice = permissionRefusal(error, []);
    if (advice) headline += `; ${advice}`;
    if (error instanceof PolicyError && result === undefined) {
      // The problems are many lines, each naming file, line and field: a code block, not a headline.
      const files = [...new Set(error.issues.map((issue) => issue.file))].join(', ');
      headline = `the policy is not valid (${files}): the run did not start`;
      errorDetails = error.message;
      runStarted = false;
    }
    if (error instanceof SandboxUnavailable && result === undefined) {
      headline = `the sandbox cannot start, so the agent did not run: ${error.reason}`;
      errorDetails = `Fix: ${error.fix}`;
      runStarted = false;
    }
    return await finish();
  } finally {
    log.close();
    transcript?.close();
    await sandbox?.close();
    // Started early and never reached (a step before it failed): closed all the same.
    if (sandbox === undefined) await discardSandbox(earlySandbox);
    await putCredentialsBack(credentials, commands);
  }

  /** Best effort (attest-artifact.ts): a run that cannot attest says why and goes on. */
  async function attest(): Promise<AttestOutcome> {
    const outcome = await attestFiles(
      [paths.log, paths.transcript, paths.diff],
      artifactsDir,
      inputs.githubToken,
      env,
    );
    if (!outcome.attested) {
      const why = `The artifact is not attested: ${outcome.reason}`;
      warnings.push(why);
      commands.warning(masker.mask(why));
    }
    return outcome;
  }

  /**
   * The last check of the runner files, before the action writes its outputs and summary: for
   * a run that ended before the check after the agent (a failure, passing tests), and for a
   * change made since. Any change fails the run, whatever it was.
   */
  async function checkRunnerFiles(): Promise<void> {
    try {
      for (const change of await restoreRunnerFiles(runnerFiles))
        if (!runnerFilesChanged.some(({ name }) => name === change.name))
          runnerFilesChanged.push(change);
    } catch (error) {
      conclusion = 'failed';
      headline = `the runner's files could not be checked or put back: ${errorMessage(error)}`;
      return;
    }
    if (runnerFilesChanged.length === 0) return;
    conclusion = 'failed';
    headline = `${runnerFilesHeadline(runnerFilesChanged)}${commitSha && !pushed ? '; nothing was pushed: the patch is in the artifact' : ''}`;
    const details = runnerFilesDetails(runnerFilesChanged);
    errorDetails = errorDetails === undefined ? details : `${errorDetails}\n\n${details}`;
    commands.error(masker.mask(`ci-agent: ${headline}`));
  }

  /** What was put back of git's control files, in the report and the step log. */
  function noteGitControl(restored: readonly string[], when: string): void {
    const fresh = restored.filter((path) => !gitControlRestored.includes(path));
    if (fresh.length === 0) return;
    gitControlRestored.push(...fresh);
    const note = `The agent changed git's configuration (${fresh.join(', ')}); it was put back ${when}`;
    gitControlNote = gitControlNote === undefined ? note : `${gitControlNote}. ${note}`;
    commands.warning(masker.mask(note));
  }

  /**
   * Puts back git's control files, then the index's gitlinks: that runs git, so after them;
   * last, every `.git` in the worktree that was not there (nested-repos.ts). Both snapshots are
   * taken before the first code not ours runs.
   */
  async function putBackGitControl(when: string): Promise<void> {
    noteGitControl(await restoreGitControl(await gitControl!), when);
    noteGitControl(await removeGitlinkTraps(git, await gitlinkState!), when);
  }

  /**
   * The last check of git's control files, for the workflow's later steps (and checkout's
   * post-job cleanup, which runs git in every submodule): for a run that ended before the
   * restore after the agent (a failure, passing tests), and for a change made since.
   */
  async function checkGitControl(): Promise<void> {
    const snapshot = await gitControl?.catch(() => undefined);
    if (!snapshot) return;
    try {
      await putBackGitControl("before the workflow's next step");
    } catch (error) {
      // Already the headline when the restore after the agent failed the same way.
      if (conclusion !== 'failed')
        headline = `git's configuration could not be checked or put back: ${errorMessage(error)}`;
      conclusion = 'failed';
    }
  }

  async function finish(): Promise<ActionOutcome> {
    // Closed first: its closing line's hash is the final one, which the report and the outputs
    // publish outside the log (docs/AUDIT.md). A log that failed to write has none.
    log.close();
    const logHash = log.finalHash === undefined ? undefined : publishedHash(log.finalHash);
    if (log.error) warnings.push(`The tool log is incomplete: ${log.error.message}`);
    const uploads: Record<string, string> = { ...paths };
    const attestation = inputs.attest && inputs.uploadArtifact ? await attest() : undefined;
    if (attestation?.attested) uploads.attestation = attestation.path;
    const report = collector.report;
    const stash = await credentials?.catch(() => undefined);
    const credentialsTaken = stash && credentialsNote(stash);
    await checkGitControl();
    await checkRunnerFiles();
    // Long answered by now; its failure (a permission the job lacks) belongs in the report too.
    const started = await working;
    if (started?.ok === false) {
      warnings.push(started.error);
      commands.warning(masker.mask(started.error));
    }
    // Who the token wrote as: GITHUB_TOKEN's pushes start no workflow, which the report says.
    const author = openedBy ?? (started?.ok ? started.author : undefined);
    const notes = [
      ...(credentialsTaken ? [credentialsTaken] : []),
      ...(attestation?.attested
        ? [
            `The artifact's ${attestation.subjects.join(', ')} are attested (Sigstore, with this job's identity): ${ATTESTATION_FILE}`,
          ]
        : []),
      ...(pushed && isWorkflowToken(author)
        ? [workflowTokenNote(pushed, openedBy !== undefined)]
        : []),
    ];
    // The footer names what the artifact holds; an upload that failed leaves none to name.
    const { renderReport } = await import('./report-markdown.js');
    const render = (uploaded: readonly string[]) =>
      renderReport(
        report,
        {
          conclusion,
          workspace,
          headline,
          files,
          diff: shown,
          runUrl: event.runUrl,
          artifactName: inputs.uploadArtifact ? inputs.artifactName : undefined,
          branch: pushed,
          prNumber,
          commitSha: pushed && commitSha,
          partial:
            runStarted &&
            (conclusion === 'cancelled' || (result === undefined && conclusion !== 'tests-pass')),
          warnings: [...(gitControlNote ? [gitControlNote] : []), ...warnings],
          notes,
          links,
          ...(errorDetails !== undefined && { errorDetails }),
          ...(sandboxReport && { sandbox: sandboxReport }),
          ...(provider.description.provider !== 'anthropic' && {
            provider: provider.description.label,
          }),
          artifactFiles: uploaded,
          ...(logHash && { logHash }),
        },
        { mask: (text) => masker.mask(text) },
      );
    // The page of the log and patch as they stand now (masked, redacted after the push scan).
    const { writeAuditPage } = await import('./audit-page.js');
    const pageProblem = writeAuditPage(paths, `ci-agent run ${event.runId}`, {
      ...(logHash && { logHash }),
      sessionId: `${event.runId}`,
    });
    if (pageProblem) commands.warning(masker.mask(pageProblem));
    let markdown = await render(artifactFiles(uploads, [paths.report]));
    writeFileSync(paths.report, markdown);
    if (inputs.uploadArtifact) {
      const uploaded = await uploadArtifact(commands, inputs.artifactName, artifactsDir, uploads);
      if (!uploaded) markdown = await render([]);
    }
    let commentUrl: string | undefined;
    if (inputs.comment && target) {
      const commentId = started?.ok ? started.id : undefined;
      const posted = await upsertReportComment(octokit, target, markdown, commentId);
      if (posted.ok) commentUrl = posted.url;
      else commands.warning(masker.mask(posted.error));
    }
    await appendSummary(commands, markdown);
    commands.setOutput('conclusion', conclusion);
    commands.setOutput('branch', pushed ?? '');
    commands.setOutput('pr-number', prNumber ?? '');
    commands.setOutput('commit-sha', (pushed && commitSha) || '');
    commands.setOutput('comment-url', commentUrl ?? '');
    commands.setOutput('diff-path', paths.diff);
    commands.setOutput('log-path', paths.log);
    commands.setOutput('log-hash', logHash ?? '');
    commands.setOutput('turns', result?.numTurns ?? 0);
    commands.setOutput('cost-usd', (result?.totalCostUsd ?? 0).toFixed(4));
    commands.info(masker.mask(`ci-agent: ${conclusion}: ${headline}`));
    return { conclusion, headline: masker.mask(headline) };
  }
}

/** Result subtypes that mean the run reached one of its limits (turns, budget, time). */
const LIMIT_SUBTYPES: ReadonlySet<string> = new Set([
  'error_max_turns',
  'error_max_budget_usd',
  'error_max_duration',
]);

/** Success only when the agent finished, was not denied what it needed, and changed something. */
function judge(
  task: Task,
  result: RunResult,
  changed: boolean,
): { conclusion: Conclusion; headline: string } {
  if (LIMIT_SUBTYPES.has(result.subtype)) {
    return {
      conclusion: 'limit',
      headline: `the agent stopped at a limit: ${result.errors.join('; ')}`,
    };
  }
  if (result.isError)
    return { conclusion: 'failed', headline: `the agent failed: ${result.errors.join('; ')}` };
  if (!changed && result.permissionDenials.length > 0) {
    return {
      conclusion: 'denied',
      headline: `nothing changed: the policy denied ${result.permissionDenials.length} call(s) the agent needed`,
    };
  }
  if (!changed && task.kind !== 'prompt' && task.kind !== 'comment-command') {
    return { conclusion: 'no-changes', headline: 'the agent finished without changing anything' };
  }
  return {
    conclusion: 'success',
    headline: changed ? 'the agent made changes' : 'the agent finished',
  };
}

/** The branch to work on; a pull request's is fetched with the run's token (fetchRef). */
async function prepareBranch(
  git: ReturnType<typeof createGit>,
  task: Task,
  event: GitHubEvent,
  pr: PullRequestBranch | undefined,
  access: RemoteAccess,
): Promise<string | undefined> {
  if (pr?.isFork) {
    // A pull_request job has the PR's code checked out already; a comment's job has the default
    // branch, and the fork's commits are reachable only as the base repository's pull ref.
    if (task.kind === 'comment-command') {
      await fetchRef(git, { ...access, ref: `refs/pull/${pr.number}/head` });
      await git.run(['checkout', '--detach', 'FETCH_HEAD']);
    }
    return undefined;
  }
  if (pr) {
    await fetchRef(git, { ...access, ref: `refs/heads/${pr.headRef}` });
    await checkoutBranch(git, pr.headRef, 'FETCH_HEAD');
    return pr.headRef;
  }
  const branch = newBranchName(task, event);
  await checkoutBranch(git, branch, 'HEAD');
  return branch;
}

/** The branch a task that is not on a pull request works on, from HEAD. */
function newBranchName(task: Task, event: GitHubEvent): string {
  return task.kind === 'issue' ? task.branch : `ci-agent/run-${event.runId}`;
}

function commentTarget(task: Task, event: GitHubEvent): CommentTarget | undefined {
  const number =
    task.kind === 'issue'
      ? task.issueNumber
      : task.kind === 'comment-command'
        ? task.issueNumber
        : task.kind === 'prompt'
          ? task.subject?.number
          : task.prNumber;
  return number === undefined
    ? undefined
    : { owner: event.owner, repo: event.repo, issueNumber: number };
}

function commitMessage(task: Task): string {
  switch (task.kind) {
    case 'issue':
      return `Fix #${task.issueNumber}: ${task.title}`.slice(0, 200);
    case 'pr-tests':
    case 'pr-fix-failed-run':
      return `Fix failing tests of #${task.prNumber}`;
    case 'prompt':
    case 'comment-command':
      return 'Changes made by ci-agent';
  }
}

function minutes(value: number | undefined): number | undefined {
  return value === undefined ? undefined : value * 60_000;
}

/** The credential files inside the workspace, relative to it (util/credential-files.ts). */
function credentialFilesIn(workspace: string, env: NodeJS.ProcessEnv): string[] {
  return findCredentialFiles(env, workspace, [workspace])
    .map((path) => relative(workspace, path))
    .filter((path) => path !== '' && !path.startsWith('..') && !isAbsolute(path));
}

function workspaceOf(env: NodeJS.ProcessEnv): string {
  return env.GITHUB_WORKSPACE || process.cwd();
}

async function skipped(commands: WorkflowCommands, reason: string): Promise<ActionOutcome> {
  commands.notice(`ci-agent skipped this event: ${reason}`);
  commands.setOutput('conclusion', 'skipped');
  await appendSummary(commands, `### ➖ ci-agent skipped this event\n\n${reason}\n`);
  return { conclusion: 'skipped', headline: reason };
}

/**
 * The workflow's later steps (and checkout's post-job cleanup) expect the credentials where
 * checkout left them; a failure to put them back is said, and the run's outcome stands.
 */
async function putCredentialsBack(
  credentials: Promise<CredentialStash> | undefined,
  commands: WorkflowCommands,
): Promise<void> {
  const stash = await credentials?.catch(() => undefined);
  if (!stash) return;
  try {
    await restoreCheckoutCredentials(stash);
  } catch (error) {
    commands.warning(
      `the checkout's git credentials could not be put back (${errorMessage(error)}): later steps' git commands may fail to authenticate`,
    );
  }
}

/** The job summary is a courtesy copy of the report: failing to write it never fails the run. */
async function appendSummary(commands: WorkflowCommands, markdown: string): Promise<void> {
  try {
    await commands.appendSummary(markdown);
  } catch (error) {
    commands.warning(`the job summary could not be written: ${errorMessage(error)}`);
  }
}

export function isFailure(outcome: ActionOutcome): boolean {
  return FAILED.has(outcome.conclusion);
}
