/**
 * A whole session for the tests that drive one (runSession): the real SDK client against the
 * loopback replay server, the real tools in a temp workspace, with CI's defaults (bypass
 * permissions, no rules, no retries) under the test's own options, every event kept. The test
 * owns the server and the workspace, and closes and removes them.
 */
import type { AgentEvent, RunResult } from '../../src/agent/events.js';
import { runSession } from '../../src/agent/session.js';
import type { SessionOptions } from '../../src/agent/session.js';
import { createAnthropicClient } from '../../src/model/anthropic-client.js';
import type { Usage } from '../../src/model/types.js';
import type { ReplayScriptEntry, ReplayServer } from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import type { Workspace } from './tool-harness.js';

/** $2 in, $10 out, $2.50 cache write, $0.10 cache read per MTok. */
export const SESSION_MODEL = 'claude-sonnet-5-5';
const API_KEY = 'sk-test';

/** A usage block as the API reports it. */
export function usage(input: number, output: number, cacheWrite = 0, cacheRead = 0): Usage {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}

/** The replay server a session talks to, answering with `turns` in order. */
export function startSessionServer(turns: ReplayScriptEntry[]): Promise<ReplayServer> {
  return startReplayServer({ apiKey: API_KEY, turns });
}

export interface SessionRun {
  result: RunResult;
  events: AgentEvent[];
}

/** One session in `workspace` against `server`; `onEvent` sees each event as it comes. */
export async function runTestSession(
  server: ReplayServer,
  workspace: Workspace,
  options: Partial<SessionOptions> = {},
  onEvent?: (event: AgentEvent) => void,
): Promise<SessionRun> {
  const events: AgentEvent[] = [];
  const result = await runSession({
    prompt: 'Do the task.',
    cwd: workspace.root,
    model: SESSION_MODEL,
    modelClient: createAnthropicClient({ apiKey: API_KEY, baseURL: server.url }),
    permissionMode: 'bypassPermissions',
    rules: { allow: [], deny: [] },
    env: process.env,
    events: (event) => {
      events.push(event);
      onEvent?.(event);
    },
    retry: false,
    ...options,
  });
  return { result, events };
}
