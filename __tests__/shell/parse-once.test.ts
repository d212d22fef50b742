/**
 * One Bash call, through the real executor, pipeline, policy, hooks and Bash tool, parses its
 * command once: the concurrency check, read-only classification, file operands, read scope, deny
 * rules, the hooks' `if` rules, the decision, the git pins and the output's exit-code meaning all
 * read the same parse.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConcurrencyGate } from '../../src/execution/concurrency-gate.js';
import { concurrencySafetyOf, runToolUses } from '../../src/execution/dispatcher.js';
import { executeSingleToolUse } from '../../src/execution/pipeline.js';
import type { PipelineDeps } from '../../src/execution/pipeline.js';
import { createHookRunner } from '../../src/hooks/runner.js';
import type { ToolUseBlock } from '../../src/model/types.js';
import { parseRule } from '../../src/permissions/rules.js';
import { parseCommand } from '../../src/shell/parse-command.js';
import { ShellParser } from '../../src/shell/shell-parser.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { buildChildEnv } from '../../src/util/child-env.js';
import { makePipeline } from '../helpers/pipeline-harness.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'parse-once-'));
});

afterEach(() => {
  vi.restoreAllMocks();
  rmSync(root, { recursive: true, force: true });
});

/** How many times the parser read `command` as a whole script while `body` ran. */
async function parsesOf(command: string, body: () => Promise<void>): Promise<number> {
  const spy = vi.spyOn(ShellParser.prototype, 'parseScript');
  await body();
  const sources = spy.mock.contexts.map((parser) => (parser as { source: string }).source);
  spy.mockRestore();
  return sources.filter((source) => source === command).length;
}

const rule = (text: string) => parseRule(text, 'parse-once.test');

/** PreToolUse and PostToolUse hooks whose `if` rules read the command as deny rules do. */
function guardedHooks(env: Readonly<Record<string, string>>) {
  const handler = (event: string) => ({
    type: 'command' as const,
    command: `cat > ${join(root, `${event}.json`)}`,
    if: 'Bash(echo:*)',
    source: '.claude/settings.json',
  });
  return createHookRunner({
    config: {
      PreToolUse: [{ matcher: 'Bash', hooks: [handler('pre')] }],
      PostToolUse: [{ matcher: 'Bash', hooks: [handler('post')] }],
    },
    projectDir: root,
    sessionId: 'parse-once',
    transcriptPath: '',
    permissionMode: 'default',
    cwd: () => root,
    env,
  });
}

async function runBash(command: string) {
  const env = { ...buildChildEnv(process.env), HOME: root };
  const { deps } = makePipeline([bashTool], {
    root,
    hooks: guardedHooks(env),
    policy: {
      mode: 'default',
      allow: ['Bash(echo:*)', 'Bash(ls:*)', 'Bash(git status:*)'].map(rule),
      deny: ['Bash(rm:*)', 'Read(./.env)'].map(rule),
      ask: ['Bash(curl:*)'].map(rule),
    },
  });
  const pipeline: PipelineDeps = {
    ...deps,
    makeContext: (toolUseId, signal) => ({
      ...deps.makeContext(toolUseId, signal),
      env,
    }),
  };
  const block: ToolUseBlock = {
    type: 'tool_use',
    id: 'toolu_parse_once',
    name: 'Bash',
    input: { command },
  };
  const [outcome] = await runToolUses([block], {
    gate: new ConcurrencyGate(4),
    isConcurrencySafe: concurrencySafetyOf(pipeline.registry),
    run: (each, signal) => executeSingleToolUse(each, pipeline, signal),
    signal: new AbortController().signal,
  });
  return outcome;
}

describe('one Bash call', () => {
  it('parses its command once, from the concurrency check to the rendered result', async () => {
    // A command no earlier test parsed, so nothing parsed before this call can answer for it.
    const command = `echo parse-once-${Date.now()} && ls ${root}`;
    let outcome: Awaited<ReturnType<typeof runBash>>;
    const parses = await parsesOf(command, async () => {
      outcome = await runBash(command);
    });
    expect(outcome!.stage).toBe('completed');
    expect(outcome!.result.is_error).toBeUndefined();
    // Both guarded hooks ran: their `if` rules matched the command's parse.
    expect(existsSync(join(root, 'pre.json')) && existsSync(join(root, 'post.json'))).toBe(true);
    expect(parses).toBe(1);
  });

  it('still refuses by the deny rule it parsed for', async () => {
    const command = `rm -rf ${root}/gone-${Date.now()}`;
    const outcome = await runBash(command);
    expect(outcome?.stage).toBe('permission');
    expect(outcome?.decision?.behavior).toBe('deny');
  });
});

describe('parseCommand', () => {
  it('answers a repeated command from its last parse, which no caller can change', () => {
    const command = `printf '%s' parse-cached-${Date.now()} | wc -c`;
    const first = parseCommand(command);
    const second = parseCommand(command);
    expect(second).toBe(first);
    if (!first.ok) throw new Error(first.reason);
    expect(Object.isFrozen(first.commands)).toBe(true);
    expect(Object.isFrozen(first.commands[0]?.words[0])).toBe(true);
    expect(() => (first.commands[0]?.argv as string[]).push('-x')).toThrow(TypeError);
  });

  it('parses a command again once enough other commands came after it', () => {
    const command = `echo evicted-${Date.now()}`;
    const first = parseCommand(command);
    for (let index = 0; index < 200; index++) parseCommand(`echo filler-${index}`);
    expect(parseCommand(command)).not.toBe(first);
    expect(parseCommand(command)).toEqual(first);
  });
});
