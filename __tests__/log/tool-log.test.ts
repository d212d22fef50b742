import { execa } from 'execa';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretMasker } from '../../src/log/secret-masker.js';
import type { StreamJsonLine } from '../../src/log/stream-json.js';
import { LogFileError, openToolLog, openTranscript } from '../../src/log/tool-log.js';
import { verifyLogText } from '../../src/audit/verify.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { SPAWN_LIKE } from '../helpers/spawn-like.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

const REPO = resolve(import.meta.dirname, '../..');
const workspaces: Workspace[] = [];
afterEach(() => {
  for (const workspace of workspaces.splice(0)) workspace.cleanup();
});

function workspace(): Workspace {
  const created = makeWorkspace('ci-agent-log-');
  workspaces.push(created);
  return created;
}

function readRaw(path: string): StreamJsonLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as StreamJsonLine);
}

/** The lines as written to the log, without their chain field and the closing line. */
function readLines(path: string): StreamJsonLine[] {
  return readRaw(path)
    .filter((line) => line.subtype !== 'log_end')
    .map(({ ci_agent_chain: _chain, ...line }) => line);
}

const line = (index: number): StreamJsonLine => ({ type: 'system', subtype: 'test', index });

describe('openToolLog', () => {
  it('has each line in the file as soon as it is written, before close', () => {
    const path = workspace().path('log.ndjson');
    const log = openToolLog(path, 'session-1');
    log.write(line(1));
    expect(readLines(path)).toEqual([line(1)]);
    log.write(line(2));
    expect(readLines(path)).toEqual([line(1), line(2)]);
    log.close();
  });

  it('appends to an existing file and creates missing directories', () => {
    const dir = workspace();
    const existing = dir.path('a/b/existing.ndjson');
    mkdirSync(dir.path('a/b'), { recursive: true });
    writeFileSync(existing, `${JSON.stringify(line(0))}\n`);
    const log = openToolLog(existing, 'session-1');
    log.write(line(1));
    log.close();
    expect(readLines(existing)).toEqual([line(0), line(1)]);

    const fresh = dir.path('new/dir/log.ndjson');
    const other = openToolLog(fresh, 'session-1');
    other.write(line(7));
    other.close();
    expect(readLines(fresh)).toEqual([line(7)]);
  });

  it('drops lines written after close, and closes once', () => {
    const path = workspace().path('log.ndjson');
    const log = openToolLog(path, 'session-1');
    log.write(line(1));
    log.close();
    log.write(line(2));
    log.close();
    expect(readLines(path)).toEqual([line(1)]);
    expect(log.error).toBeUndefined();
  });

  it('names the file when it cannot be opened', () => {
    const dir = workspace();
    writeFileSync(dir.path('file'), '');
    const path = dir.path('file/log.ndjson');
    expect(() => openToolLog(path, 'session-1')).toThrow(LogFileError);
    expect(() => openToolLog(path, 'session-1')).toThrow(`cannot open the tool log file "${path}"`);
  });

  it.runIf(existsSync('/dev/full'))(
    'keeps the run going when a write fails, and reports the first failure',
    () => {
      const log = openToolLog('/dev/full', 'session-1');
      expect(() => log.write(line(1))).not.toThrow();
      expect(log.error).toBeInstanceOf(LogFileError);
      expect(log.error?.message).toMatch(
        /^writing the tool log file "\/dev\/full" failed: .*ENOSPC/,
      );
      const first = log.error;
      log.write(line(2));
      expect(log.error).toBe(first);
      log.close();
    },
  );

  it('leaves every line written so far, whole, when its process is killed with SIGKILL', async () => {
    const dir = workspace();
    const path = dir.path('killed.ndjson');
    const script = dir.path('writer.ts');
    writeFileSync(
      script,
      [
        `import { openToolLog } from ${JSON.stringify(join(REPO, 'src/log/tool-log.ts'))};`,
        'const log = openToolLog(process.argv[2], "session-1");',
        "for (let i = 0; i < 50; i++) log.write({ type: 'system', i, pad: 'x'.repeat(i * 4096) });",
        "process.stdout.write('ready\\n');",
        'setInterval(() => undefined, 1000);',
      ].join('\n'),
    );
    const child = execa(process.execPath, ['--import', 'tsx', script, path], {
      cwd: REPO,
      ...SPAWN_LIKE,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((ready) =>
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) ready();
      }),
    );
    const exited = new Promise<NodeJS.Signals | null>((done) =>
      child.on('exit', (_code, signal) => done(signal)),
    );
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const lines = readLines(path);
    expect(lines.map((entry) => entry.i)).toEqual([...Array(50).keys()]);
    expect((lines[49]?.pad as string).length).toBe(49 * 4096);
    // No closing line: the chain verifies to its last whole line, and says it is incomplete.
    const verdict = verifyLogText(readFileSync(path, 'utf8'));
    expect(verdict.status).toBe('incomplete');
    expect(verdict.failure).toBeUndefined();
    expect(verdict.records).toHaveLength(50);
  });
});

describe('the tool log chain', () => {
  it('chains every line and ends with log_end, whose hash is the final one', () => {
    const path = workspace().path('log.ndjson');
    const log = openToolLog(path, 'session-1');
    log.write(line(1));
    log.write(line(2));
    expect(log.finalHash).toBeUndefined();
    log.close();
    const raw = readRaw(path);
    expect(raw.map((entry) => (entry.ci_agent_chain as { seq: number }).seq)).toEqual([1, 2, 3]);
    expect(raw[2]).toMatchObject({
      type: 'system',
      subtype: 'log_end',
      session_id: 'session-1',
      lines: 2,
    });
    const verdict = verifyLogText(readFileSync(path, 'utf8'));
    expect(verdict.status).toBe('verified');
    expect(verdict.finalHash).toBe(`sha256:${log.finalHash}`);
    // The field is the line's last: the rest is the line exactly as stdout would print it.
    const first = readFileSync(path, 'utf8').split('\n')[0]!;
    expect(first.startsWith(JSON.stringify(line(1)).slice(0, -1) + ',"ci_agent_chain":')).toBe(
      true,
    );
  });

  it("starts a second chain when a run appends to an earlier run's log", () => {
    const path = workspace().path('log.ndjson');
    for (const session of ['a', 'b']) {
      const log = openToolLog(path, session);
      log.write(line(1));
      log.close();
    }
    const verdict = verifyLogText(readFileSync(path, 'utf8'));
    expect(verdict).toMatchObject({ status: 'verified', chains: 2, sessionId: 'b' });
  });

  it('rechains the lines it masks again, so that the redacted log still verifies', () => {
    const path = workspace().path('log.ndjson');
    const log = openToolLog(path, 'session-1');
    log.write({ type: 'assistant', text: 'the key is hunter2-secret-value' });
    log.write(line(2));
    log.redact(createSecretMasker(['hunter2-secret-value']));
    log.write(line(3));
    log.close();
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('hunter2-secret-value');
    expect(readLines(path)).toEqual([
      { type: 'assistant', text: 'the key is ***' },
      line(2),
      line(3),
    ]);
    expect(verifyLogText(text).status).toBe('verified');
    expect(verifyLogText(text).finalHash).toBe(`sha256:${log.finalHash}`);
  });

  it.runIf(existsSync('/dev/full'))('has no final hash when a write failed', () => {
    const log = openToolLog('/dev/full', 'session-1');
    log.write(line(1));
    log.close();
    expect(log.finalHash).toBeUndefined();
  });
});

describe('openTranscript', () => {
  // Entry shapes as Claude Code 2.1.197 writes its session JSONL (observed with claude -p).
  it('starts with the prompt and keeps only the conversation, in Claude Code field names', () => {
    const path = workspace().path('transcript.jsonl');
    const transcript = openTranscript(path, {
      sessionId: 's-1',
      promptId: 'p-1',
      cwd: '/repo',
      version: '0.1.0',
      prompt: 'Fix the test',
    });
    const uuid = expect.stringMatching(/^[0-9a-f-]{36}$/) as string;
    const timestamp = expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string;
    const common = {
      isSidechain: false,
      uuid,
      timestamp,
      cwd: '/repo',
      sessionId: 's-1',
      version: '0.1.0',
    };
    const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } };
    const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' };
    const output = { stdout: 'a.txt', stderr: '', interrupted: false, isImage: false };
    transcript.write({ type: 'system', subtype: 'init' });
    transcript.write({
      type: 'assistant',
      message: { role: 'assistant', content: [toolUse] },
      parent_tool_use_id: null,
      session_id: 's-1',
    });
    transcript.write({ type: 'system', subtype: 'tool_call_end' });
    transcript.write({
      type: 'assistant',
      message: { role: 'assistant', content: [{ type: 'text', text: 'inside a subagent' }] },
      parent_tool_use_id: 'toolu_agent',
    });
    transcript.write({
      type: 'user',
      message: { role: 'user', content: [result] },
      parent_tool_use_id: null,
      tool_use_result: output,
      session_id: 's-1',
    });
    transcript.write({ type: 'result', subtype: 'success' });
    transcript.close();

    const [prompt, assistant, sidechain, user, ...rest] = readLines(path);
    expect(rest).toEqual([]);
    // A subagent's line: off the main chain, marked as Claude Code marks a subagent's entries.
    expect(sidechain).toMatchObject({ parentUuid: null, isSidechain: true, type: 'assistant' });
    expect(prompt).toEqual({
      parentUuid: null,
      promptId: 'p-1',
      type: 'user',
      message: { role: 'user', content: 'Fix the test' },
      ...common,
    });
    expect(assistant).toEqual({
      parentUuid: prompt?.uuid,
      type: 'assistant',
      message: { role: 'assistant', content: [toolUse] },
      ...common,
    });
    expect(user).toEqual({
      parentUuid: assistant?.uuid,
      promptId: 'p-1',
      type: 'user',
      message: { role: 'user', content: [result] },
      toolUseResult: output,
      sourceToolAssistantUUID: assistant?.uuid,
      ...common,
    });
  });

  it('masks secrets in the prompt', () => {
    const path = workspace().path('transcript.jsonl');
    const masker = createSecretMasker(['ghp_secret_token_value']);
    openTranscript(path, { sessionId: 's', prompt: 'use ghp_secret_token_value', masker }).close();
    expect(readFileSync(path, 'utf8')).toContain('"content":"use ***"');
  });

  it('names the file when it cannot be opened', () => {
    const dir = workspace();
    writeFileSync(dir.path('file'), '');
    expect(() => openTranscript(dir.path('file/t.jsonl'), { sessionId: 's', prompt: 'p' })).toThrow(
      /^cannot open the transcript file/,
    );
  });
});
