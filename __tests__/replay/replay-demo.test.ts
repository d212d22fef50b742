/**
 * `ci-agent replay` on the real demo's run (src/demo: the action on a labelled issue, its model
 * replayed on loopback): its artifact folder and a bare copy of its sample repository, replayed
 * through the CLI's main() with real git, tools and sandbox, against temp checkouts.
 */
import { createHash } from 'node:crypto';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { runDemo } from '../../src/demo/main.js';
import { SAMPLE_POLICY } from '../../src/demo/sample.js';
import type { ReplayReport } from '../../src/replay/run-replay.js';

let demo: { artifactsDir: string; repository: string };
const temps: string[] = [];

beforeAll(async () => {
  const result = await runDemo(() => undefined);
  expect(result.conclusion).toBe('success');
  demo = result;
  temps.push(join(result.artifactsDir, '..'));
}, 120_000);
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/**
 * The sandbox gives a command a /tmp of its own, so a program on PATH under the temp folder (a
 * checkout's node_modules/.bin, as in a clone made there) is not the one a sandboxed call ran.
 * An unsandboxed replay gets the PATH the sandbox saw, or it would run another `node`.
 */
function pathSeenInSandbox(): string {
  const temp = realpathSync(tmpdir());
  return (process.env.PATH ?? '')
    .split(':')
    .filter((dir) => dir !== '' && !`${resolve(dir)}/`.startsWith(`${temp}/`))
    .join(':');
}

async function replay(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const unsandboxed = args.includes('--no-sandbox');
  const code = await main({
    argv: ['replay', ...args],
    env: unsandboxed ? { ...process.env, PATH: pathSeenInSandbox() } : process.env,
    cwd: process.cwd(),
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => Promise.resolve(undefined),
  });
  return { code, stdout, stderr };
}

async function replayJson(...args: string[]) {
  const run = await replay(...args, '--format', 'json');
  return { ...run, report: JSON.parse(run.stdout) as ReplayReport };
}

const git = async (cwd: string, ...args: string[]) =>
  (
    await execa('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd })
  ).stdout.trim();

/** A working clone of the demo's repository, for new commits (the bare copy stays as it is). */
async function workingClone(): Promise<string> {
  const dir = join(temp('ci-agent-replay-test-'), 'repo');
  await execa('git', ['clone', '--quiet', demo.repository, dir]);
  return dir;
}

const toolLog = () => join(demo.artifactsDir, 'tool-log.jsonl');

describe('ci-agent replay of the demo run', () => {
  it('records the commit it ran on and its policy file by digest', async () => {
    const [init] = readFileSync(toolLog(), 'utf8').split('\n');
    const line = JSON.parse(init!) as Record<string, unknown>;
    expect(line.ci_agent_commit).toBe(await git(demo.repository, 'rev-parse', 'main'));
    expect(line.ci_agent_policy).toEqual([
      {
        path: '.github/ci-agent.yml',
        kind: 'policy',
        sha256: createHash('sha256').update(SAMPLE_POLICY).digest('hex'),
      },
    ]);
  });

  it('reproduces it with no differences, and exits 0', async () => {
    const { code, stdout } = await replay(demo.artifactsDir, '--repo', demo.repository);
    expect(stdout).toContain('no differences: every tool result and decision is as recorded');
    expect(stdout).toMatch(/ {2}sandbox: bubblewrap .* \(as recorded\)/);
    expect(stdout).toContain('5 of 5 recorded model turns replayed, 5 tool calls recorded');
    expect(stdout).toContain('policy: as recorded');
    // Verified first, against the hash its report.md published.
    expect(stdout).toMatch(/\n {2}tool log: verified \(final hash sha256:[0-9a-f]{64}\)\n/);
    expect(code).toBe(0);
  });

  it('says the same in JSON, from the tool log alone, and leaves no temp folder', async () => {
    const before = readdirSync(tmpdir()).filter((name) => name.startsWith('ci-agent-replay-'));
    const { code, report } = await replayJson(toolLog(), '--repo', demo.repository);
    expect(report).toMatchObject({
      status: 'same',
      commitRecorded: true,
      policy: 'recorded',
      turns: { recorded: 5, replayed: 5 },
      calls: 5,
      differences: [],
    });
    expect(code).toBe(0);
    const after = readdirSync(tmpdir()).filter((name) => name.startsWith('ci-agent-replay-'));
    expect(after.filter((name) => !before.includes(name))).toEqual([]);
  });

  describe('when a file changed in a new commit', () => {
    it('shows the one result that differs, with the changed line, and exits 1', async () => {
      const repo = await workingClone();
      const file = join(repo, 'src/stats.js');
      const original = readFileSync(file, 'utf8');
      writeFileSync(file, original.replace('Arithmetic mean', 'The arithmetic mean'));
      await git(repo, 'commit', '--quiet', '-am', 'Reword the comment');
      const changed = readFileSync(file, 'utf8');

      const { code, report, stdout } = await replayJson(
        demo.artifactsDir,
        '--repo',
        repo,
        '--commit',
        'HEAD',
      );
      expect(report.status).toBe('different');
      expect(report.commitRecorded).toBe(false);
      expect(report.differences).toEqual([
        expect.objectContaining({ kind: 'result', toolUseId: 'toolu_demo_02', toolName: 'Read' }),
      ]);
      const [difference] = report.differences;
      expect(difference?.kind === 'result' && difference.diff).toContain(
        '+1\t/** The arithmetic mean of a non-empty list of numbers. */',
      );
      expect(stdout).toContain('"toolUseId": "toolu_demo_02"');
      expect(code).toBe(1);
      // The replay's Edit went to its own checkout: the repository given is as it was.
      expect(readFileSync(file, 'utf8')).toBe(changed);
      expect(await git(repo, 'status', '--porcelain')).toBe('');
    });

    it('says that the policy differs when the commit changes it', async () => {
      const repo = await workingClone();
      writeFileSync(
        join(repo, '.github/ci-agent.yml'),
        SAMPLE_POLICY.replace('maxTurns: 20', 'maxTurns: 30'),
      );
      await git(repo, 'commit', '--quiet', '-am', 'More turns');
      const { code, stdout } = await replay(demo.artifactsDir, '--repo', repo, '--commit', 'HEAD');
      expect(stdout).toContain("policy: the checkout's, which differs from the recorded one");
      expect(stdout).toMatch(
        /policy file \.github\/ci-agent\.yml: sha256 [0-9a-f]{12} recorded, sha256 [0-9a-f]{12} now/,
      );
      expect(stdout).toContain('1 difference:');
      expect(code).toBe(1);
    });
  });

  describe("when the checkout's hooks changed", () => {
    it('runs them, and shows the calls a new PreToolUse hook blocks', async () => {
      const repo = await workingClone();
      const hooks = {
        hooks: {
          PreToolUse: [
            {
              matcher: 'Read',
              hooks: [{ type: 'command', command: 'echo "no reading today" >&2; exit 2' }],
            },
          ],
        },
      };
      mkdirSync(join(repo, '.claude'));
      writeFileSync(join(repo, '.claude/settings.json'), JSON.stringify(hooks));
      await git(repo, 'add', '.claude');
      await git(repo, 'commit', '--quiet', '-m', 'A hook');
      const { code, report } = await replayJson(
        demo.artifactsDir,
        '--repo',
        repo,
        '--commit',
        'HEAD',
      );
      expect(
        report.differences.map((item) => [item.kind, 'toolUseId' in item && item.toolUseId]),
      ).toEqual([
        ['policy', false],
        ['decision', 'toolu_demo_02'],
        ['result', 'toolu_demo_02'],
        ['decision', 'toolu_demo_03'],
        ['result', 'toolu_demo_03'],
        // What follows from it: the Edit of a file never read is refused before any decision,
        // so the tests still fail.
        ['decision', 'toolu_demo_04'],
        ['result', 'toolu_demo_04'],
        ['result', 'toolu_demo_05'],
      ]);
      expect(report.differences[5]).toMatchObject({ kind: 'decision', replayed: null });
      const [, decision, result] = report.differences;
      expect(decision).toMatchObject({ replayed: { behavior: 'deny', source: 'hook' } });
      expect(result?.kind === 'result' && result.replayed?.text).toContain('no reading today');
      expect(code).toBe(1);
    });
  });

  describe('with --no-sandbox', () => {
    it('runs the calls unsandboxed and says so, their results unchanged', async () => {
      const { code, stdout } = await replay(
        demo.artifactsDir,
        '--repo',
        demo.repository,
        '--no-sandbox',
      );
      expect(stdout).toMatch(/ {2}sandbox: none \(the recorded run's: bubblewrap/);
      expect(stdout).toContain('no differences');
      expect(code).toBe(0);
    });
  });

  describe('when a stricter policy is given with --policy', () => {
    it('shows each decision and result it changes', async () => {
      const policy = join(temp('ci-agent-replay-policy-'), 'strict.yml');
      writeFileSync(policy, 'permissions:\n  onAsk:\n    default: deny\nlimits:\n  maxTurns: 20\n');
      const { code, report, stderr } = await replayJson(
        demo.artifactsDir,
        '--repo',
        demo.repository,
        '--policy',
        policy,
      );
      expect(report.status).toBe('different');
      const decisions = report.differences.filter((item) => item.kind === 'decision');
      expect(decisions.map((item) => [item.toolUseId, item.replayed?.behavior])).toEqual([
        ['toolu_demo_01', 'deny'],
        ['toolu_demo_04', 'deny'],
        ['toolu_demo_05', 'deny'],
      ]);
      const results = report.differences.filter((item) => item.kind === 'result');
      expect(results.map((item) => item.toolUseId)).toEqual([
        'toolu_demo_01',
        'toolu_demo_04',
        'toolu_demo_05',
      ]);
      expect(results[1]).toMatchObject({
        recorded: { isError: false },
        replayed: { isError: true },
      });
      expect(results[1]?.replayed?.text).toContain('Permission to use Edit was denied');
      expect(report.differences.filter((item) => item.kind === 'policy')).toEqual([
        expect.objectContaining({ path: '.github/ci-agent.yml', replayed: null }),
        expect.objectContaining({ path: policy, recorded: null }),
      ]);
      // What the replayed run said on its stderr is in the report, not on replay's own.
      expect(report.stderr.join('\n')).toContain('denied');
      expect(stderr).toBe('');
      expect(code).toBe(1);
    });

    it('ends differently when the policy allows fewer turns, and says how', async () => {
      const policy = join(temp('ci-agent-replay-policy-'), 'short.yml');
      writeFileSync(policy, SAMPLE_POLICY.replace('maxTurns: 20', 'maxTurns: 2'));
      const { code, report } = await replayJson(
        demo.artifactsDir,
        '--repo',
        demo.repository,
        '--policy',
        policy,
      );
      expect(report.differences).toContainEqual({
        kind: 'outcome',
        recorded: 'success after 5 turns',
        replayed: 'error_max_turns after 2 turns',
      });
      expect(report.differences).toContainEqual(
        expect.objectContaining({ kind: 'result', toolUseId: 'toolu_demo_04', replayed: null }),
      );
      expect(code).toBe(1);
    });
  });

  describe('when the tool log fails verification', () => {
    const PLANTED = 'for (let i = 0; i < values.length; i++) /* planted by an edited log */';

    /** The demo's artifact folder, copied, its recorded Edit made to write PLANTED. */
    function editedArtifact(): { dir: string; line: number } {
      const dir = join(temp('ci-agent-replay-edited-'), 'artifact');
      cpSync(demo.artifactsDir, dir, { recursive: true });
      const lines = readFileSync(join(dir, 'tool-log.jsonl'), 'utf8').split('\n');
      const index = lines.findIndex(
        (line) => line.startsWith('{"type":"assistant"') && line.includes('"toolu_demo_04"'),
      );
      const recorded = '"new_string":"for (let i = 0; i < values.length; i++)"';
      expect(lines[index]).toContain(recorded);
      lines[index] = lines[index]!.replace(recorded, `"new_string":${JSON.stringify(PLANTED)}`);
      writeFileSync(join(dir, 'tool-log.jsonl'), lines.join('\n'));
      return { dir, line: index + 1 };
    }

    it('refuses it before anything runs, naming the first bad line, and exits 2', async () => {
      const { dir, line } = editedArtifact();
      const before = readdirSync(tmpdir()).filter((name) => name.startsWith('ci-agent-replay-'));
      const { code, stdout, stderr } = await replay(dir, '--repo', demo.repository, '--keep');
      const log = join(dir, 'tool-log.jsonl');
      expect(stderr).toBe(
        `Error: cannot replay: ${log}:${line}: the tool log fails verification (chain-broken): line ${line} was edited: its hash does not follow from its content and line ${line - 1}; a log that fails \`ci-agent audit\` is not replayed (--no-verify replays it anyway)\n`,
      );
      expect(stdout).toContain(`  tool log: FAILS verification at line ${line} (chain-broken)\n`);
      expect(stdout).toContain('0 of 0 recorded model turns replayed');
      expect(code).toBe(2);
      // Nothing was checked out (even with --keep), so none of the recorded calls ran.
      const after = readdirSync(tmpdir()).filter((name) => name.startsWith('ci-agent-replay-'));
      expect(after.filter((name) => !before.includes(name))).toEqual([]);
    });

    it('replays it with --no-verify, saying it failed: the edited call runs', async () => {
      const { dir, line } = editedArtifact();
      const { code, report, stdout } = await replayJson(
        dir,
        '--repo',
        demo.repository,
        '--keep',
        '--no-verify',
      );
      expect(report.verification).toEqual({
        status: 'failed',
        failure: {
          code: 'chain-broken',
          line,
          message: `line ${line} was edited: its hash does not follow from its content and line ${line - 1}`,
        },
        enforced: false,
      });
      expect(report.status).not.toBe('cannot-replay');
      expect(stdout).not.toContain('cannot replay');
      expect(code).not.toBe(2);
      const kept = report.kept!;
      temps.push(kept);
      const stats = readdirSync(kept, { recursive: true, encoding: 'utf8' }).find((name) =>
        name.endsWith('src/stats.js'),
      );
      expect(readFileSync(join(kept, stats!), 'utf8')).toContain(PLANTED);

      const text = await replay(editedArtifact().dir, '--repo', demo.repository, '--no-verify');
      expect(text.stdout).toContain(
        `  tool log: FAILS verification at line ${line} (chain-broken), replayed anyway (--no-verify)\n`,
      );
    });
  });

  describe('when it cannot replay', () => {
    function cutLog(keep: (lines: string[]) => string[]): string {
      const lines = readFileSync(toolLog(), 'utf8').split('\n').filter(Boolean);
      const path = join(temp('ci-agent-replay-log-'), 'tool-log.jsonl');
      writeFileSync(path, keep(lines).join('\n'));
      return path;
    }

    it('refuses a log cut before its result line, with exit 2', async () => {
      const log = cutLog((lines) =>
        lines.filter((line) => !line.includes('"subtype":"log_end"')).slice(0, -1),
      );
      const { code, stdout, stderr } = await replay(log, '--repo', demo.repository);
      expect(stderr).toContain(
        `cannot replay: ${log}: no result line: the log ends before the run did`,
      );
      expect(stdout).toContain('cannot replay:');
      expect(code).toBe(2);
    });

    it('refuses a log whose last line is cut off midway', async () => {
      const log = cutLog((lines) => [...lines.slice(0, 5), lines[5]!.slice(0, 40)]);
      const { code, stderr } = await replay(log, '--repo', demo.repository);
      expect(stderr).toContain(
        `${log}:6: the last line is cut off (not whole JSON): the log is truncated`,
      );
      expect(code).toBe(2);
    });

    it('stops when the run asks for a turn the log does not have', async () => {
      // The last assistant message gone: the run asks a fifth time, which nothing recorded. The
      // chain no longer holds, so only --no-verify gets this far.
      const log = cutLog((lines) => {
        const last = lines.findLastIndex((line) => line.startsWith('{"type":"assistant"'));
        return lines.filter((_, index) => index !== last);
      });
      const { code, report } = await replayJson(log, '--repo', demo.repository, '--no-verify');
      expect(report.status).toBe('cannot-replay');
      expect(report.error).toBe('the run asked for model turn 5, but the log records 4');
      expect(report.turns).toEqual({ recorded: 4, replayed: 4 });
      expect(code).toBe(2);
    });

    it('names the commit a repository does not hold', async () => {
      const empty = temp('ci-agent-replay-empty-');
      await git(empty, 'init', '--quiet');
      await git(empty, 'commit', '--quiet', '--allow-empty', '-m', 'unrelated');
      const { code, stderr } = await replay(demo.artifactsDir, '--repo', empty);
      expect(stderr).toMatch(/--repo .*: does not hold commit [0-9a-f]{40} \(fetch it first\)/);
      expect(code).toBe(2);
    });

    it('refuses a --commit that git would read as an option', async () => {
      const { code, stderr } = await replay(
        demo.artifactsDir,
        '--repo',
        demo.repository,
        '--commit=--output=/tmp/x',
      );
      expect(stderr).toContain('--commit --output=/tmp/x: not a commit or ref');
      expect(code).toBe(2);
    });

    it("says why the replayed run did not start, in the run's own words", async () => {
      const policy = join(temp('ci-agent-replay-policy-'), 'broken.yml');
      writeFileSync(policy, 'limits:\n  maxTurns: many\n');
      const { code, report } = await replayJson(
        demo.artifactsDir,
        '--repo',
        demo.repository,
        '--policy',
        policy,
      );
      expect(report.status).toBe('cannot-replay');
      expect(report.error).toBe(
        `the replayed run did not start: Error: ${policy}:2:13: limits.maxTurns: expected a positive whole number, got "many"`,
      );
      expect(code).toBe(2);
    });

    it('says a folder is not a git repository', async () => {
      const { code, stderr } = await replay(
        demo.artifactsDir,
        '--repo',
        temp('ci-agent-replay-not-git-'),
      );
      expect(stderr).toContain('is not a git repository');
      expect(code).toBe(2);
    });

    it('reads the artifact as GitHub serves it, a zip, and names a zip that does not unpack', async () => {
      const dir = temp('ci-agent-replay-zip-');
      const entries = Object.fromEntries(
        readdirSync(demo.artifactsDir)
          .filter((name) => statSync(join(demo.artifactsDir, name)).isFile())
          .map((name) => [name, readFileSync(join(demo.artifactsDir, name))]),
      );
      const zip = join(dir, 'ci-agent-4242.zip');
      writeFileSync(zip, zipSync(entries));
      const { code, report } = await replayJson(zip, '--repo', demo.repository);
      expect(report.differences, JSON.stringify(report.differences)).toEqual([]);
      expect(code).toBe(0);
      const fake = join(dir, 'broken.zip');
      writeFileSync(
        fake,
        Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), zipSync(entries).subarray(4, 64)]),
      );
      const refused = await replay(fake, '--repo', demo.repository);
      expect(refused.stderr).toContain(fake);
      expect(refused.code).toBe(2);
    });
  });
});
