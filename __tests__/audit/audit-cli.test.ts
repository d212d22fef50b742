/**
 * `ci-agent audit` on real tool logs: two runs of the CLI (src/cli/index.ts through tsx, real
 * processes) against the replay server write them; each test then tampers with a copy the way
 * an attacker would and expects exit 2 naming the first bad line, or exit 0/1 for a log that is
 * whole. Most audits run main() in-process; one goes through the binary for its exit code.
 */
import { execa } from 'execa';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { verifyLogText } from '../../src/audit/verify.js';
import type { ReplayServer } from '../../testkit/replay-server.js';
import { startReplayServer } from '../../testkit/replay-server.js';
import { SPAWN_LIKE } from '../helpers/spawn-like.js';
import type { Workspace } from '../helpers/tool-harness.js';
import { makeWorkspace } from '../helpers/tool-harness.js';

const REPO = resolve(import.meta.dirname, '../..');
const CLI = join(REPO, 'src/cli/index.ts');
const TSX = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
const KEY = 'sk-ant-test-key';

let workspace: Workspace;
let server: ReplayServer;
/** The two runs' logs, as lines (without the final newline), and their final hashes. */
const runs: Array<{ lines: string[]; hash: string }> = [];

function runCli(args: string[]) {
  return execa(process.execPath, ['--import', TSX, CLI, ...args], {
    cwd: workspace.root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: workspace.path('.home'),
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: server.url,
    },
    ...SPAWN_LIKE,
    reject: false,
  });
}

beforeAll(async () => {
  workspace = makeWorkspace('ci-agent-audit-');
  writeFileSync(workspace.path('notes.txt'), 'hello\n');
  const turn = (id: string) => [
    [
      {
        type: 'tool_use' as const,
        id,
        name: 'Read',
        input: { file_path: workspace.path('notes.txt') },
      },
    ],
    [{ type: 'text' as const, text: 'It says hello.' }],
  ];
  server = await startReplayServer({
    turns: [...turn('toolu_a'), ...turn('toolu_b')],
    apiKey: KEY,
  });
  for (const name of ['run-1.jsonl', 'run-2.jsonl']) {
    const run = await runCli(['-p', 'read notes.txt', '--log-file', name]);
    expect(run.exitCode, run.stderr).toBe(0);
    const text = readFileSync(workspace.path(name), 'utf8');
    const verdict = verifyLogText(text);
    expect(verdict.status).toBe('verified');
    runs.push({ lines: text.split('\n').slice(0, -1), hash: verdict.finalHash! });
  }
}, 60_000);

afterAll(async () => {
  await server?.close();
  workspace?.cleanup();
});

let copies = 0;
/** Writes `lines` (or text) as a new file; its path. */
function logFile(content: string[] | string): string {
  const path = workspace.path(`copy-${++copies}.jsonl`);
  writeFileSync(
    path,
    typeof content === 'string' ? content : content.map((l) => `${l}\n`).join(''),
  );
  return path;
}

async function audit(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv: ['audit', ...args],
    env: {},
    cwd: workspace.root,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => Promise.resolve(undefined),
  });
  return { code, stdout, stderr };
}

describe('ci-agent audit', () => {
  it('verifies a real log: exit 0 against its hash, through the binary too', async () => {
    const [run] = runs;
    expect(run!.lines.length).toBeGreaterThan(5);
    const result = await audit(logFile(run!.lines), '--expect-hash', run!.hash);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain('Result: verified, nothing to report (exit 0)');
    const binary = await runCli([
      'audit',
      workspace.path('run-1.jsonl'),
      '--expect-hash',
      run!.hash,
    ]);
    expect(binary.exitCode, String(binary.stdout) + String(binary.stderr)).toBe(0);
  });

  it('prints JSON with the verdict and the findings', async () => {
    const result = await audit(workspace.path('run-1.jsonl'), '--format', 'json');
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      exitCode: 0,
      verdict: { status: 'verified', closed: true, finalHash: runs[0]!.hash },
      attestation: { status: 'not-attested' },
    });
  });

  describe('exits 2 naming the first bad line', () => {
    it('when a field was edited', async () => {
      const lines = [...runs[0]!.lines];
      const index = lines.findIndex((line) => line.includes('"subtype":"permission_decision"'));
      lines[index] = lines[index]!.replace('"behavior":"allow"', '"behavior":"deny"');
      expect(lines[index]).toContain('"behavior":"deny"');
      const result = await audit(logFile(lines));
      expect(result.code, result.stdout).toBe(2);
      expect(result.stdout).toContain(`failure chain-broken line ${index + 1}:`);
      expect(result.stdout).toContain('was edited');
    });

    it('when a line was deleted', async () => {
      const lines = [...runs[0]!.lines];
      lines.splice(2, 1);
      const result = await audit(logFile(lines));
      expect(result.code).toBe(2);
      expect(result.stdout).toContain('failure chain-broken line 3:');
      expect(result.stdout).toContain('removed');
    });

    it('when two lines were swapped', async () => {
      const lines = [...runs[0]!.lines];
      [lines[1], lines[2]] = [lines[2]!, lines[1]!];
      const result = await audit(logFile(lines));
      expect(result.code).toBe(2);
      expect(result.stdout).toContain('failure chain-broken line 2:');
      expect(result.stdout).toContain('reordered');
    });

    it('when the tail was cut, against the published hash', async () => {
      const { lines, hash } = runs[0]!;
      const cut = lines.slice(0, -2);
      const result = await audit(logFile(cut), '--expect-hash', hash);
      expect(result.code).toBe(2);
      expect(result.stdout).toContain(`failure truncated line ${cut.length + 1}:`);
      // Without a published hash, a cut tail looks like a killed run: a finding, not a failure.
      const alone = await audit(logFile(cut));
      expect(alone.code).toBe(1);
      expect(alone.stdout).toContain('finding incomplete');
    });

    it("when the log is another run's", async () => {
      const result = await audit(workspace.path('run-2.jsonl'), '--expect-hash', runs[0]!.hash);
      expect(result.code).toBe(2);
      expect(result.stdout).toContain('failure replaced line 1:');
    });
  });

  it('says a killed run is incomplete, and verifies its whole lines', async () => {
    const { lines } = runs[0]!;
    const killed = `${lines
      .slice(0, 4)
      .map((line) => `${line}\n`)
      .join('')}${lines[4]!.slice(0, 30)}`;
    const result = await audit(logFile(killed));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('finding incomplete line 5:');
    expect(result.stdout).toContain('the 4 whole lines before it verify');
  });

  describe('reads an artifact', () => {
    const artifact = (files: Record<string, string>) => {
      const entries = Object.fromEntries(
        Object.entries(files).map(([name, text]) => [name, new TextEncoder().encode(text)]),
      );
      return entries;
    };
    const log = () => readFileSync(workspace.path('run-1.jsonl'), 'utf8');

    it('as a zip and as a folder, checking the hash its report published', async () => {
      const report = `## ci-agent\n\nTool log hash: \`${runs[0]!.hash}\`\n`;
      const zip = workspace.path('artifact.zip');
      writeFileSync(zip, zipSync(artifact({ 'tool-log.jsonl': log(), 'report.md': report })));
      const fromZip = await audit(zip);
      expect(fromZip.code, fromZip.stdout).toBe(0);
      expect(fromZip.stdout).toContain(`checked with: ${runs[0]!.hash} (report.md's)`);

      const folder = workspace.path('unpacked');
      mkdirSync(folder);
      writeFileSync(join(folder, 'tool-log.jsonl'), log());
      writeFileSync(join(folder, 'report.md'), report);
      expect((await audit(folder)).code).toBe(0);
      // The report names another log: the one beside it was swapped.
      writeFileSync(join(folder, 'tool-log.jsonl'), readFileSync(workspace.path('run-2.jsonl')));
      const swapped = await audit(folder);
      expect(swapped.code).toBe(2);
      expect(swapped.stdout).toContain('failure replaced');
    });

    it('names the file and what is wrong when it cannot read it', async () => {
      const notZip = workspace.path('broken.zip');
      writeFileSync(notZip, Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(20)]));
      const broken = await audit(notZip);
      expect(broken.code).toBe(2);
      expect(broken.stderr).toMatch(/^Error: ".*broken\.zip" is not a readable zip archive: /);

      const empty = workspace.path('no-log.zip');
      writeFileSync(empty, zipSync(artifact({ 'report.md': 'x' })));
      const noLog = await audit(empty);
      expect(noLog.code).toBe(2);
      expect(noLog.stderr).toContain('has no tool-log.jsonl: it holds "report.md"');

      const missing = await audit(workspace.path('nowhere.zip'));
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/^Error: cannot read ".*nowhere\.zip": ENOENT/);

      const badHash = await audit(workspace.path('run-1.jsonl'), '--expect-hash', 'abc');
      expect(badHash.code).toBe(2);
      expect(badHash.stderr).toContain('--expect-hash must be sha256:<64 hex digits>');

      const badFormat = await audit(workspace.path('run-1.jsonl'), '--format', 'pdf');
      expect(badFormat.code).toBe(2);
      expect(badFormat.stderr).toContain("'pdf' is invalid");
    });
  });
});
