/**
 * `npm run demo`: the engine end to end on its embedded default, offline. A sample repository with
 * a failing test is checked out into a temp directory, a recorded model session is replayed by a
 * loopback Messages API, and the real loop, tools and policy run against it. Prints what happened:
 * each call with its decision, the final diff and the result.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AgentEvent } from '../agent/events.js';
import { runSession } from '../agent/session.js';
import { runSystemCommand } from '../agent/system-command.js';
import { createAnthropicClient } from '../model/anthropic-client.js';
import { startReplayServer } from '../model/replay-server.js';
import { parseRule } from '../permissions/rules.js';
import type { ToolResultBlock } from '../model/types.js';
import { recordedSession, SAMPLE_ALLOW, SAMPLE_FILES, SAMPLE_PROMPT } from './sample.js';

function checkout(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-demo-')));
  for (const [path, content] of Object.entries(SAMPLE_FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=demo', '-c', 'user.email=demo@example.invalid', 'commit', '-qm', 'sample');
  return root;
}

function firstLine(result: ToolResultBlock): string {
  const text = typeof result.content === 'string' ? result.content : '[rich content]';
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return `${lines[0] ?? ''}${lines.length > 1 ? ` … (${lines.length} lines)` : ''}`;
}

export async function runDemo(
  write: (text: string) => void = (text) => process.stdout.write(text),
) {
  const root = checkout();
  const server = await startReplayServer({ turns: recordedSession(root) });
  write(
    `ci-agent demo — sample repository at ${root}\nprompt: ${SAMPLE_PROMPT}\npolicy: edits inside the workspace, allow ${SAMPLE_ALLOW.join(', ')}\n\n`,
  );
  const onEvent = (event: AgentEvent) => {
    if (event.type === 'assistant-message') {
      for (const block of event.message.content)
        if (block.type === 'text') write(`model: ${block.text}\n`);
    }
    if (event.type === 'permission-decision') {
      write(
        `  ${event.toolName} ${JSON.stringify(event.input)}\n    → ${event.decision.behavior} (${event.decision.reason})\n`,
      );
    }
    if (event.type === 'tool-result')
      write(`    ${event.result.is_error ? '✗' : '✓'} ${firstLine(event.result)}\n`);
  };
  try {
    const result = await runSession({
      prompt: SAMPLE_PROMPT,
      cwd: root,
      model: 'claude-sonnet-5-5',
      modelClient: createAnthropicClient({ apiKey: 'demo-key', baseURL: server.url }),
      permissionMode: 'acceptEdits',
      rules: { allow: SAMPLE_ALLOW.map((rule) => parseRule(rule, 'demo policy')), deny: [] },
      env: process.env,
      events: onEvent,
    });
    const diff = execFileSync('git', ['diff'], { cwd: root, encoding: 'utf8' });
    write(`\nfinal diff:\n${diff}\n`);
    // Never a green check for nothing: the system runs the tests itself after the agent is done.
    const verification = await runSystemCommand('npm test', {
      cwd: root,
      env: process.env,
      timeoutMs: 15 * 60_000,
    });
    write(`verification: npm test exited ${verification.exitCode ?? 'without a status'}\n`);
    write(
      `result: ${result.subtype} after ${result.numTurns} turns, ${result.usage.input_tokens + result.usage.output_tokens} tokens, $${result.totalCostUsd.toFixed(4)} (recorded usage), ${result.permissionDenials.length} denials\n${result.result}\n`,
    );
    return { result, root, verified: verification.exitCode === 0 };
  } finally {
    await server.close();
  }
}
