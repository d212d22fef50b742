/**
 * A 30-turn scripted session through the built CLI: per three turns, 4 Reads (one message), an
 * Edit, and a read-only Bash. Measures wall time and peak RSS (/usr/bin/time -f %M) of the whole
 * process, ours against the reference CLI (`claude -p`, Claude Code 2.1.328) on the same script,
 * the same loopback server and the same repository.
 *
 * The reference is looked for in CLAUDE_BIN, else .bench-tmp/reference (installed there with
 * `npm install --prefix .bench-tmp/reference @anthropic-ai/claude-code@2.1.328`); without it,
 * only our numbers are printed.
 * Targets: our time ≤ 0.6× the reference's, our peak RSS ≤ 0.4× the reference's.
 */
import { execa, execaSync } from 'execa';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ReplayBlock } from '../testkit/replay-server.js';
import { startReplayServer } from '../testkit/replay-server.js';
import { fmt, median, printTable } from './stats.js';

export const CYCLES = 10; // 3 turns each → 30 turns
const LINES = 200;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

export function makeRepo(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ci-agent-cli-bench-')));
  for (const name of ['a', 'b', 'c', 'd']) {
    const text = Array.from({ length: LINES }, (_, index) => `${name} line ${index + 1}`).join(
      '\n',
    );
    writeFileSync(join(root, `${name}.txt`), `${text}\n`);
  }
  const git = (...args: string[]) => execaSync('git', args, { cwd: root, reject: false });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.email=b@b', '-c', 'user.name=b', 'commit', '-qm', 'bench');
  return root;
}

export function script(root: string): ReplayBlock[][] {
  const turns: ReplayBlock[][] = [];
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    turns.push(
      ['a', 'b', 'c', 'd'].map((name, index) => ({
        type: 'tool_use',
        id: `toolu_r${cycle}_${index}`,
        name: 'Read',
        input: { file_path: `${root}/${name}.txt` },
      })),
    );
    turns.push([
      {
        type: 'tool_use',
        id: `toolu_e${cycle}`,
        name: 'Edit',
        input: {
          file_path: `${root}/a.txt`,
          old_string: `a line ${cycle + 1}\n`,
          new_string: `a line ${cycle + 1} (edited)\n`,
        },
      },
    ]);
    const last = cycle === CYCLES - 1;
    turns.push([
      ...(last ? [{ type: 'text' as const, text: 'All edits are done.' }] : []),
      ...(last
        ? []
        : [
            {
              type: 'tool_use' as const,
              id: `toolu_b${cycle}`,
              name: 'Bash',
              input: { command: 'ls' },
            },
          ]),
    ]);
  }
  return turns;
}

interface Measure {
  wallMs: number;
  maxRssKiB: number;
  turns: number;
}

async function measure(command: string[], root: string, turns: ReplayBlock[][]): Promise<Measure> {
  const server = await startReplayServer({ turns });
  const home = mkdtempSync(join(tmpdir(), 'ci-agent-bench-home-'));
  const rssFile = join(home, 'maxrss');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-ant-bench',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
  };
  const args = [
    '-p',
    'Edit the files.',
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-mode',
    'acceptEdits',
  ];
  const started = performance.now();
  // spawn's semantics: the env replaces the parent's, the exit code is read below, output streams.
  const child = execa('/usr/bin/time', ['-f', '%M', '-o', rssFile, ...command, ...args], {
    cwd: root,
    env,
    extendEnv: false,
    reject: false,
    buffer: false,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  const wallMs = performance.now() - started;
  await server.close();
  const maxRssKiB = Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop());
  rmSync(home, { recursive: true, force: true });
  const result = stdout
    .split('\n')
    .filter((line) => line.includes('"type":"result"'))
    .map((line) => JSON.parse(line) as { num_turns: number; subtype: string })[0];
  if (code !== 0 || !result || result.subtype !== 'success') {
    throw new Error(`${command.join(' ')} failed (exit ${code}): ${stderr.slice(-500)}`);
  }
  const edited = readFileSync(join(root, 'a.txt'), 'utf8').split('(edited)').length - 1;
  if (edited !== CYCLES)
    throw new Error(`${command.join(' ')} made ${edited} edits, expected ${CYCLES}`);
  return { wallMs, maxRssKiB, turns: result.num_turns };
}

async function series(
  command: string[],
): Promise<{ wallMs: number; maxRssKiB: number; turns: number }> {
  const results: Measure[] = [];
  for (let run = 0; run < RUNS + 1; run++) {
    const root = makeRepo();
    try {
      const measured = await measure(command, root, script(root));
      if (run > 0) results.push(measured); // the first run warms the disk cache
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  return {
    wallMs: median(results.map((r) => r.wallMs)),
    maxRssKiB: median(results.map((r) => r.maxRssKiB)),
    turns: results[0]?.turns ?? 0,
  };
}

export async function runCliSessionBench(): Promise<void> {
  const cli = resolve('dist/cli/index.js');
  if (!existsSync(cli)) throw new Error('dist/cli/index.js is missing: run "npm run build" first');
  const ours = await series([process.execPath, cli]);
  const referencePath =
    process.env.CLAUDE_BIN ?? resolve('.bench-tmp/reference/node_modules/.bin/claude');
  const reference = existsSync(referencePath) ? await series([referencePath]) : undefined;
  const rows = [
    {
      client: 'ci-agent (dist/cli)',
      turns: ours.turns,
      wallMs: fmt(ours.wallMs, 0),
      peakRssMiB: fmt(ours.maxRssKiB / 1024, 1),
    },
  ];
  if (reference) {
    rows.push({
      client: 'claude -p 2.1.328',
      turns: reference.turns,
      wallMs: fmt(reference.wallMs, 0),
      peakRssMiB: fmt(reference.maxRssKiB / 1024, 1),
    });
  }
  printTable(`30-turn session through the CLI (median of ${RUNS} runs after a warm-up)`, rows);
  if (reference) {
    console.log(
      `time ratio ours/reference: ${fmt(ours.wallMs / reference.wallMs, 2)}× (target ≤ 0.6×); ` +
        `peak RSS ratio: ${fmt(ours.maxRssKiB / reference.maxRssKiB, 2)}× (target ≤ 0.4×)`,
    );
  } else {
    console.log(`reference CLI not found at ${referencePath}: only our numbers are shown`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runCliSessionBench();
