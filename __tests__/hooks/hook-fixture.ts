/**
 * Test support for hooks: a temp project with real hook scripts, and a runner over it.
 */
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HookEventName, HookHandlerConfig, HooksConfig } from '../../src/hooks/config.js';
import type { HookRunnerOptions } from '../../src/hooks/runner.js';
import { createHookRunner } from '../../src/hooks/runner.js';
import type { HookRunRecord, SessionHookRunner } from '../../src/hooks/types.js';
import { buildChildEnv } from '../../src/util/child-env.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

export interface HookProject extends Workspace {
  /** Writes an executable script under hooks/ and returns its absolute path. */
  script(name: string, body: string): Promise<string>;
  read(relative: string): string;
  /** A runner over this project; `records` collects what its sink received. */
  runner(
    config: HooksConfig,
    overrides?: Partial<HookRunnerOptions>,
  ): { hooks: SessionHookRunner; records: HookRunRecord[] };
}

export function makeHookProject(): HookProject {
  const workspace = makeWorkspace('ci-agent-hooks-');
  return {
    ...workspace,
    async script(name, body) {
      const path = await workspace.write(join('hooks', name), body);
      chmodSync(path, 0o755);
      return path;
    },
    read: (relative) => readFileSync(workspace.path(relative), 'utf8'),
    runner(config, overrides = {}) {
      const records: HookRunRecord[] = [];
      const hooks = createHookRunner({
        config,
        projectDir: workspace.root,
        sessionId: 'session-1',
        transcriptPath: join(workspace.root, 'transcript.jsonl'),
        permissionMode: 'default',
        cwd: () => workspace.root,
        env: buildChildEnv(process.env),
        onRun: (record) => records.push(record),
        ...overrides,
      });
      return { hooks, records };
    },
  };
}

export interface HandlerOptions {
  matcher?: string;
  timeout?: number;
  required?: boolean;
  if?: string;
}

/** One group with one command handler. */
export function group(command: string, options: HandlerOptions = {}) {
  const handler: HookHandlerConfig = { type: 'command', command, source: 'test-settings.json' };
  if (options.timeout !== undefined) handler.timeout = options.timeout;
  if (options.required !== undefined) handler.required = options.required;
  if (options.if !== undefined) handler.if = options.if;
  return {
    ...(options.matcher === undefined ? {} : { matcher: options.matcher }),
    hooks: [handler],
  };
}

/** A config with one group per command on one event. */
export function on(
  event: HookEventName,
  commands: string[],
  options: HandlerOptions = {},
): HooksConfig {
  return { [event]: commands.map((command) => group(command, options)) };
}

export const live = () => new AbortController().signal;

export const preRequest = (toolName = 'Bash', toolInput: unknown = { command: 'ls' }) => ({
  toolName,
  toolInput,
  toolUseId: 'toolu_1',
  signal: live(),
});
