/**
 * The built action (dist/index.js) run as the runner runs it: INPUT_* variables, the event payload
 * at GITHUB_EVENT_PATH, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, GITHUB_API_URL pointing at the
 * loopback GitHub API (every request checked against GitHub's OpenAPI description), a bare git
 * repository as origin, and the replay server as the model. Everything is removed when the test ends.
 *
 * With `gitOverHttp`, the checkout's origin is the loopback GitHub's git over HTTP, which checks
 * the token and its `contents` permission as GitHub does, and the run's GITHUB_SERVER_URL is that
 * server: `http://github.localhost:<port>`, which libcurl (git's HTTP) resolves to the loopback
 * by itself and @actions/artifact counts as github.com rather than a GHES host.
 */
import { execa } from 'execa';
import { SPAWN_LIKE } from './spawn-like.js';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { onTestFinished } from 'vitest';
import { createOriginRepo, startGitHubServer } from '../../testkit/github-server/index.js';
import type {
  FileTree,
  GitHubFault,
  GitHubSeed,
  GitHubServer,
  OriginRepo,
  TokenPermissions,
} from '../../testkit/github-server/index.js';
import type { ReplayServerOptions, ReplayServer } from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import { runnerEnvironment } from '../github/webhook-examples.js';

/** CI_AGENT_DIST: a build of the working tree elsewhere (as scripts/build.mjs takes it). */
export const ACTION = resolve(
  process.env.CI_AGENT_DIST ?? resolve(import.meta.dirname, '../../dist'),
  'index.js',
);
export const OWNER = 'Codertocat';
export const REPO = 'Hello-World';
export const FULL_NAME = `${OWNER}/${REPO}`;
export const TOKEN = 'ghs_e2e_token_0123456789';
export const API_KEY = 'sk-ant-e2e-key-0123456789';
/** The GITHUB_RUN_ID runnerEnvironment sets; the artifacts directory is named after it. */
export const RUN_ID = '1658821493';
export const REPORT_MARKER = '<!-- ci-agent:report -->';

export interface ActionSetup {
  files: FileTree;
  branches?: Record<string, FileTree>;
  /** Added to the seeded repository (write permission for `actor`). */
  seed?: Omit<GitHubSeed, 'repos'>;
  faults?: GitHubFault[];
  permission?: 'write' | 'read';
  actor?: string;
  /** The repository setting "Allow GitHub Actions to create and approve pull requests". */
  actionsCanCreatePullRequests?: boolean;
  /** The workflow's `permissions:` block, as the token carries it; unset, everything. */
  tokenPermissions?: TokenPermissions;
  /** Who the token is: `github-actions[bot]` (GITHUB_TOKEN) unless a test says another app's. */
  tokenActor?: string;
  /** Fetch and push over the loopback GitHub's git HTTP, with the token (see the header). */
  gitOverHttp?: boolean;
  /** The branch the checkout is on (actions/checkout's `ref`); the default branch when unset. */
  checkoutBranch?: string;
}

export interface ActionHarness {
  origin: OriginRepo;
  github: GitHubServer;
  /** GITHUB_SERVER_URL of the run: the loopback's with gitOverHttp, else github.com. */
  serverUrl: string;
}

export async function startActionHarness(setup: ActionSetup): Promise<ActionHarness> {
  const origin = await createOriginRepo({
    files: setup.files,
    ...(setup.branches ? { branches: setup.branches } : {}),
    ...(setup.checkoutBranch ? { checkoutBranch: setup.checkoutBranch } : {}),
  });
  onTestFinished(() => origin.cleanup());
  const actor = setup.actor ?? OWNER;
  const github = await startGitHubServer({
    openapi: 'load',
    token: TOKEN,
    actor: setup.tokenActor ?? 'github-actions[bot]',
    ...(setup.tokenPermissions ? { tokenPermissions: setup.tokenPermissions } : {}),
    seed: {
      repos: [
        {
          owner: OWNER,
          name: REPO,
          origin: origin.bare,
          permissions: { [actor]: setup.permission ?? 'write' },
          ...(setup.actionsCanCreatePullRequests === undefined
            ? {}
            : { actionsCanCreatePullRequests: setup.actionsCanCreatePullRequests }),
        },
      ],
      ...setup.seed,
    },
    ...(setup.faults ? { faults: setup.faults } : {}),
  });
  onTestFinished(() => github.close());
  let serverUrl = 'https://github.com';
  if (setup.gitOverHttp) {
    serverUrl = github.url.replace('//127.0.0.1:', '//github.localhost:');
    await origin.git(['remote', 'set-url', 'origin', `${serverUrl}/${FULL_NAME}.git`]);
  }
  return { origin, github, serverUrl };
}

export async function startModel(options: ReplayServerOptions): Promise<ReplayServer> {
  const model = await startReplayServer({ apiKey: API_KEY, ...options });
  onTestFinished(() => model.close());
  return model;
}

export interface ActionRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
  runnerTemp: string;
  /** RUNNER_TEMP/ci-agent-<runId>: the tool log, transcript, patch and report. */
  artifactsDir: string;
}

export interface RunOptions {
  payload: unknown;
  eventName: string;
  /** More INPUT_* variables, e.g. `{ 'TEST-COMMAND': 'node check.mjs' }`. */
  inputs?: Record<string, string>;
  /**
   * `inputs` are all the inputs there are: none of the harness's own (the key, the token,
   * upload-artifact false), as for a step whose `with:` the test evaluated itself.
   */
  onlyTheseInputs?: boolean;
  /** More of the runner's variables, e.g. the artifact service's ACTIONS_RUNTIME_TOKEN. */
  env?: Record<string, string>;
  /** Called once the process runs, e.g. to stop it mid-way. */
  started?: (child: ChildProcess, artifactsDir: string) => void;
}

export async function runBuiltAction(
  harness: ActionHarness,
  model: ReplayServer,
  options: RunOptions,
): Promise<ActionRun> {
  const runnerTemp = mkdtempSync(join(tmpdir(), 'ci-agent-runner-'));
  onTestFinished(() => rmSync(runnerTemp, { recursive: true, force: true }));
  const inputs = Object.fromEntries(
    Object.entries(options.inputs ?? {}).map(([name, value]) => [`INPUT_${name}`, value]),
  );
  const env = await runnerEnvironment({
    eventName: options.eventName,
    payload: options.payload,
    env: {
      GITHUB_API_URL: harness.github.url,
      GITHUB_SERVER_URL: harness.serverUrl,
      GITHUB_WORKSPACE: harness.origin.checkout,
      RUNNER_TEMP: runnerTemp,
      GITHUB_OUTPUT: join(runnerTemp, 'output'),
      GITHUB_STEP_SUMMARY: join(runnerTemp, 'summary.md'),
      ...(options.onlyTheseInputs
        ? {}
        : {
            'INPUT_ANTHROPIC-API-KEY': API_KEY,
            'INPUT_GITHUB-TOKEN': TOKEN,
            'INPUT_UPLOAD-ARTIFACT': 'false',
          }),
      ...inputs,
      ...options.env,
      ANTHROPIC_BASE_URL: model.url,
      PATH: process.env.PATH ?? '',
      HOME: runnerTemp,
    },
  });
  // The runner creates these files before the step starts.
  writeFileSync(env.GITHUB_OUTPUT!, '');
  writeFileSync(env.GITHUB_STEP_SUMMARY!, '');
  const artifactsDir = join(runnerTemp, `ci-agent-${RUN_ID}`);
  const child = execa(process.execPath, [ACTION], {
    cwd: harness.origin.checkout,
    env,
    ...SPAWN_LIKE,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const closed = new Promise<[number | null, NodeJS.Signals | null]>((done) =>
    child.on('close', (code, signal) => done([code, signal])),
  );
  options.started?.(child, artifactsDir);
  const [code, signal] = await closed;
  const outputs: Record<string, string> = {};
  const outputText = existsSync(env.GITHUB_OUTPUT!) ? readFileSync(env.GITHUB_OUTPUT!, 'utf8') : '';
  for (const match of outputText.matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm))
    outputs[match[1]!] = match[3]!;
  const summary = existsSync(env.GITHUB_STEP_SUMMARY!)
    ? readFileSync(env.GITHUB_STEP_SUMMARY!, 'utf8')
    : '';
  return { code, signal, stdout, outputs, summary, runnerTemp, artifactsDir };
}

/** Our report comments on the fake GitHub, oldest first. */
export function reportComments(github: GitHubServer): Array<{ issueNumber: number; body: string }> {
  return github.state.comments.filter((comment) => comment.body.includes(REPORT_MARKER));
}

/** The first request's user message, as the model received it (its text blocks joined). */
export function firstPrompt(model: ReplayServer): string {
  const body = model.requests.find((request) => request.path === '/v1/messages')?.body as
    { messages?: Array<{ content: string | Array<{ type: string; text?: string }> }> } | undefined;
  const content = body?.messages?.[0]?.content ?? '';
  if (typeof content === 'string') return content;
  return content.map((block) => block.text ?? '').join('\n');
}
