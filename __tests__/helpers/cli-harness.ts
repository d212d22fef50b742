/**
 * Runs the built CLI (dist/cli/index.js) as a user would: a real child process in a real git
 * repository, talking to the replay server on loopback.
 */
import { execa, execaSync } from 'execa';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Message, ToolResultBlock } from '../../src/model/types.js';
import type {
  ReplayScriptEntry,
  ReplayServer,
  ReplayServerOptions,
} from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { Workspace } from './tool-harness.js';
import { SPAWN_LIKE } from './spawn-like.js';
import { makeWorkspace } from './tool-harness.js';

/** CI_AGENT_DIST: a build of the working tree elsewhere (as scripts/build.mjs takes it). */
export const CLI_PATH = resolve(
  process.env.CI_AGENT_DIST ?? resolve(import.meta.dirname, '../../dist'),
  'cli/index.js',
);

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as NDJSON (stream-json). */
  lines: Array<Record<string, unknown>>;
  server: ReplayServer;
  workspace: Workspace;
}

export interface CliRunOptions {
  files?: Record<string, string>;
  /** The scripted model turns; a function receives the workspace root (for absolute paths). */
  turns?: ReplayScriptEntry[] | ((root: string) => ReplayScriptEntry[]);
  server?: Partial<ReplayServerOptions>;
  env?: Record<string, string | undefined>;
  /** More variables that name paths in the workspace, given its root. */
  envOf?: (root: string) => Record<string, string>;
  /** Started once the workspace exists (a provider's server): more variables, given its root. */
  prepare?: (root: string) => Promise<Record<string, string>>;
  /** Called with the child once it runs (e.g. to send a signal). */
  onSpawn?: (child: ChildProcess, server: ReplayServer) => void;
  timeoutMs?: number;
}

export function assertCliBuilt(): void {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run "npm run build" first`);
}

export async function runCli(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  assertCliBuilt();
  const workspace = makeWorkspace('ci-agent-e2e-');
  for (const [path, content] of Object.entries(options.files ?? {}))
    await workspace.write(path, content);
  const git = (...gitArgs: string[]) =>
    execaSync('git', gitArgs, { cwd: workspace.root, reject: false });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'fixture', '--allow-empty');

  const turns =
    typeof options.turns === 'function' ? options.turns(workspace.root) : (options.turns ?? []);
  const server = await startReplayServer({ turns, apiKey: 'sk-ant-test-key', ...options.server });
  const home = join(workspace.root, '.home');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    ANTHROPIC_API_KEY: 'sk-ant-test-key',
    ANTHROPIC_BASE_URL: server.url,
  };
  for (const [name, value] of Object.entries({
    ...options.env,
    ...options.envOf?.(workspace.root),
    ...(await options.prepare?.(workspace.root)),
  })) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const child = execa(process.execPath, [CLI_PATH, ...args], {
    cwd: workspace.root,
    env,
    ...SPAWN_LIKE,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  options.onSpawn?.(child, server);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) =>
    child.on('close', (exitCode, exitSignal) => done([exitCode, exitSignal])),
  );
  clearTimeout(timer);
  await server.close();
  const lines = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, signal, stdout, stderr, lines, server, workspace };
}

/** Every tool_result the model was sent, by tool_use id (the last request's, where sent again). */
export function resultBlocksSent(run: Pick<CliRun, 'server'>): Map<string, ToolResultBlock> {
  const results = new Map<string, ToolResultBlock>();
  for (const request of run.server.requests) {
    const body = request.body as { messages?: Message[] } | undefined;
    for (const message of body?.messages ?? []) {
      if (message.role !== 'user' || typeof message.content === 'string') continue;
      for (const block of message.content)
        if (block.type === 'tool_result') results.set(block.tool_use_id, block);
    }
  }
  return results;
}

/** The same, each as text: a string content as sent, blocks as their JSON. */
export function resultsSent(run: Pick<CliRun, 'server'>): Map<string, string> {
  const texts = new Map<string, string>();
  for (const [id, { content }] of resultBlocksSent(run))
    texts.set(id, typeof content === 'string' ? content : JSON.stringify(content));
  return texts;
}
