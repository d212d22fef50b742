/**
 * The CLI's sandbox (issue 14), through the built CLI with real bubblewrap: a settings file's
 * `"sandbox": {"enabled": true}`, as Claude Code users write it, runs every Bash call in it. A
 * scripted session in bypassPermissions (so that no permission rule stands in the way and only
 * the sandbox holds) tries to read the CLI's own environment through /proc, to write outside
 * the project, and to leave a process behind; the same session without the setting shows what
 * the sandbox took away. A sandbox that cannot start stops the run before any model request.
 */
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplayBlock } from '../../testkit/replay-server.js';
import type { CliRun, CliRunOptions } from '../helpers/cli-harness.js';
import { resultsSent, runCli } from '../helpers/cli-harness.js';

const STREAM = ['--output-format', 'stream-json', '--verbose'];
const BYPASS = ['--permission-mode', 'bypassPermissions'];
const SANDBOX_ON = JSON.stringify({ sandbox: { enabled: true } });
const API_KEY = 'sk-ant-test-key';

const runs: CliRun[] = [];
const scratch: string[] = [];
const markers: string[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.workspace.cleanup();
  for (const path of scratch.splice(0)) rmSync(path, { recursive: true, force: true });
  for (const marker of markers.splice(0)) for (const pid of pidsOf(marker)) kill(pid);
});

async function cli(args: string[], options: CliRunOptions): Promise<CliRun> {
  const run = await runCli(args, options);
  runs.push(run);
  return run;
}

function tempDir(prefix: string, parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, prefix));
  scratch.push(dir);
  return dir;
}

/** Processes whose command line carries the marker (what a call left behind). */
function pidsOf(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // it ended
    }
  }
  return pids;
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

const bash = (id: string, command: string): ReplayBlock[] => [
  { type: 'tool_use', id, name: 'Bash', input: { command } },
];
const done: ReplayBlock[] = [{ type: 'text', text: 'Done.' }];

interface Attack {
  home: string;
  /** Outside the project, the home and /tmp: writable for ci-agent, read-only in the sandbox. */
  outsideFile: string;
  marker: string;
  turns: ReplayBlock[][];
}

function attack(): Attack {
  // Not under /tmp, which the sandbox replaces whole: the home itself is what it must hide.
  const home = tempDir('ci-agent-sandbox-home-', '/var/tmp');
  writeFileSync(
    join(home, '.git-credentials'),
    'https://x:ghp_homeCredential0123456789@github.com\n',
  );
  const outsideFile = join('/var/tmp', `ci-agent-attack-${randomUUID()}`);
  scratch.push(outsideFile);
  const marker = `ci-agent-leftover-${randomUUID()}`;
  markers.push(marker);
  return {
    home,
    outsideFile,
    marker,
    turns: [
      bash(
        'toolu_environ',
        "cat /proc/$PPID/environ | tr '\\0' '\\n'; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done 2>/dev/null | grep ANTHROPIC_API_KEY; cat ~/.git-credentials; true",
      ),
      bash(
        'toolu_write',
        `echo pwned > ${outsideFile} && echo WROTE-OUTSIDE; echo pwned > ~/planted && echo WROTE-HOME; true`,
      ),
      // Out of the process group, the session and the tree, without the sweep's marker (the
      // sleep: the escape is complete before the call ends and the sweep looks).
      bash(
        'toolu_leave',
        `env -i /usr/bin/setsid /bin/bash -c 'exec -a ${marker} sleep 120' </dev/null >/dev/null 2>&1 & sleep 0.5; echo started`,
      ),
      done,
    ],
  };
}

describe('ci-agent -p with "sandbox": {"enabled": true} in a settings file', () => {
  it('runs Bash in bubblewrap: no environment through /proc, no write outside, nothing left behind', async () => {
    const { home, outsideFile, marker, turns } = attack();
    const run = await cli(['-p', 'Look around.', ...BYPASS, ...STREAM], {
      files: { '.claude/settings.json': SANDBOX_ON },
      env: { HOME: home },
      turns,
    });

    expect(run.code, run.stderr).toBe(0);
    const init = run.lines[0];
    expect(init).toMatchObject({ type: 'system', subtype: 'init' });
    expect(String(init?.ci_agent_sandbox)).toMatch(/^bubblewrap \d+\.\d+/);
    const results = resultsSent(run);
    const sent = JSON.stringify(run.server.requests.map((request) => request.body));
    expect(results.get('toolu_environ')).toBeDefined();
    expect(sent).not.toContain(API_KEY);
    expect(sent).not.toContain('ghp_homeCredential');
    expect(results.get('toolu_write')).not.toContain('WROTE-OUTSIDE');
    expect(existsSync(outsideFile)).toBe(false);
    expect(existsSync(join(home, 'planted'))).toBe(false);
    expect(results.get('toolu_leave')).toContain('started');
    expect(pidsOf(marker)).toEqual([]);
  });

  it('without the setting, the same session reads the key, writes outside and leaves its process (process-sweep)', async () => {
    const { home, outsideFile, marker, turns } = attack();
    const run = await cli(['-p', 'Look around.', ...BYPASS, ...STREAM], {
      // What an ordinary user's run uses; as root, a PID namespace per call hides /proc too.
      env: { HOME: home, CI_AGENT_PROCESS_SCOPE_MECHANISM: 'process-sweep' },
      turns,
    });

    expect(run.code, run.stderr).toBe(0);
    expect(run.lines[0]).toMatchObject({ subtype: 'init', ci_agent_sandbox: 'none' });
    const results = resultsSent(run);
    expect(results.get('toolu_environ')).toContain(`ANTHROPIC_API_KEY=${API_KEY}`);
    expect(results.get('toolu_environ')).toContain('ghp_homeCredential');
    expect(results.get('toolu_write')).toContain('WROTE-OUTSIDE');
    expect(readFileSync(outsideFile, 'utf8')).toBe('pwned\n');
    expect(readFileSync(join(home, 'planted'), 'utf8')).toBe('pwned\n');
    expect(pidsOf(marker)).not.toEqual([]);
  });

  it('on SIGTERM during a sandboxed call, ends it and removes what the sandbox made', async () => {
    const marker = `ci-agent-sandboxed-${randomUUID()}`;
    markers.push(marker);
    // The CLI's own temp folder: where the sandbox keeps its private /tmp while it runs.
    const cliTmp = tempDir('ci-agent-cli-tmp-');
    let seen = false;
    const run = await cli(['-p', 'Wait.', ...BYPASS, ...STREAM], {
      files: { '.claude/settings.json': SANDBOX_ON },
      env: { HOME: tempDir('ci-agent-sandbox-home-', '/var/tmp'), TMPDIR: cliTmp },
      turns: [bash('toolu_wait', `exec -a ${marker} sleep 60`), done],
      onSpawn: (child) => {
        const poll = setInterval(() => {
          if (pidsOf(marker).length === 0) return;
          clearInterval(poll);
          seen = readdirSync(cliTmp).some((name) => name.startsWith('ci-agent-sandbox-'));
          child.kill('SIGTERM');
        }, 20);
      },
    });

    expect(seen).toBe(true);
    expect(run.code, run.stderr).toBe(143);
    expect(pidsOf(marker)).toEqual([]);
    expect(readdirSync(cliTmp)).toEqual([]);
  });

  it('shows a hook the transcript, and nothing else of the folder it is in', async () => {
    const home = tempDir('ci-agent-sandbox-home-', '/var/tmp');
    writeFileSync(
      join(home, '.git-credentials'),
      'https://x:ghp_homeCredential0123456789@github.com\n',
    );
    const transcript = join(home, 'run.jsonl');
    const look = `grep -c '"type"' ${transcript}; cat ~/.git-credentials; true`;
    const named = await cli(
      ['-p', 'Look.', '--transcript-file', transcript, ...BYPASS, ...STREAM],
      {
        files: { '.claude/settings.json': SANDBOX_ON },
        env: { HOME: home },
        turns: [bash('toolu_look', look), done],
      },
    );
    expect(named.code, named.stderr).toBe(0);
    expect(resultsSent(named).get('toolu_look')).toMatch(/^\d+\n/);
    expect(resultsSent(named).get('toolu_look')).not.toContain('ghp_homeCredential');

    // A hook makes the CLI keep a temporary transcript in the system temp folder.
    const hostTmp = tempDir('ci-agent-host-tmp-');
    writeFileSync(join(hostTmp, 'other-run.txt'), 'not yours\n');
    const settings = JSON.stringify({
      sandbox: { enabled: true },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true' }] }] },
    });
    const temporary = await cli(['-p', 'Look.', ...BYPASS, ...STREAM], {
      files: { '.claude/settings.json': settings },
      env: { HOME: home, TMPDIR: hostTmp },
      turns: [
        bash('toolu_tmp', `ls ${hostTmp}; echo x > /tmp/scratch && echo TMP-WRITABLE; true`),
        done,
      ],
    });
    expect(temporary.code, temporary.stderr).toBe(0);
    expect(resultsSent(temporary).get('toolu_tmp')).toContain('TMP-WRITABLE');
    expect(resultsSent(temporary).get('toolu_tmp')).not.toContain('other-run.txt');
  });

  it('says so with --verbose, also when the policy file has a sandbox section', async () => {
    const run = await cli(['-p', 'Hi.', '--verbose'], {
      files: { '.github/ci-agent.yml': 'sandbox:\n  filesystem:\n    denyRead: [./secrets]\n' },
      env: { HOME: tempDir('ci-agent-sandbox-home-') },
      turns: [done],
    });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n')[0]).toMatch(/^ci-agent: sandboxed: bubblewrap \d+\.\d+\S*: /);
  });

  it('runs unsandboxed when a higher settings source says "enabled": false, as Claude Code', async () => {
    const run = await cli(
      ['-p', 'Hi.', '--settings', '{"sandbox": {"enabled": false}}', ...STREAM],
      {
        files: { '.claude/settings.json': SANDBOX_ON },
        env: { HOME: tempDir('ci-agent-sandbox-home-') },
        turns: [done],
      },
    );

    expect(run.code, run.stderr).toBe(0);
    expect(run.lines[0]).toMatchObject({ subtype: 'init', ci_agent_sandbox: 'none' });
  });

  it('stops before the first model request, with the reason and the fix, when bubblewrap is missing', async () => {
    // A PATH with git and a shell, and no bwrap.
    const bin = tempDir('ci-agent-no-bwrap-');
    for (const program of ['git', 'sh', 'bash']) {
      const found = execaSync('sh', ['-c', `command -v ${program}`]).stdout.trim();
      symlinkSync(found, join(bin, program));
    }
    const run = await cli(['-p', 'Look around.'], {
      files: { '.claude/settings.json': SANDBOX_ON },
      env: { HOME: tempDir('ci-agent-sandbox-home-'), PATH: bin },
      turns: [bash('toolu_any', 'true'), done],
    });

    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'Error: the sandbox cannot start, so the agent did not run: bubblewrap (bwrap) is not installed, and ci-agent runs every command the agent causes in its sandbox\n' +
        'Fix: install it before this step: `sudo apt-get install -y bubblewrap` (Debian, Ubuntu), or set `sandbox: off` in the policy to run unsandboxed\n',
    );
    expect(run.server.requests).toHaveLength(0);
  });
});
