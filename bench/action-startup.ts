/**
 * How fast the action starts: from spawning `node dist/index.js` (as the runner does, on a
 * labelled issue) to its first model request, against the loopback GitHub API and the replay
 * server. Baselines in the same script: spawning `node -e 0`; a Node that makes one `fetch()`;
 * and the library floor (fixtures/library-floor.ts): the libraries the action cannot start
 * without (@actions/core, @actions/github with Octokit's retry and throttling plugins, zod, yaml,
 * the SDK's Messages client), bundled the same way, making the same two requests with none of our
 * code. Also the bundle's size. Target: the first model request within 1.5× the library floor.
 * A second floor (fixtures/process-floor.ts) adds execa and the one process the action starts
 * before its first request (git's status, for the system prompt): what of the gap is that
 * specified library, and what is the action's own code.
 */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { nccBundle } from '../scripts/ncc-bundle.mjs';
import { createOriginRepo, startGitHubServer } from '../testkit/github-server/index.js';
import { startReplayServer } from '../testkit/replay-server.js';
import { fmt, median, printTable } from './stats.js';

// CI_AGENT_BENCH_RUNS=N: more runs, for medians that hold on a busy machine.
const RUNS = Number(process.env.CI_AGENT_BENCH_RUNS ?? 15);
// CI_AGENT_BENCH_ACTION=FILE[,FILE…] measures other builds (an older dist/ checked out elsewhere),
// interleaved run by run: on a noisy machine two builds compare only when measured together.
const ACTIONS = (process.env.CI_AGENT_BENCH_ACTION ?? 'dist/index.js')
  .split(',')
  .filter((file) => file !== '')
  .map((file) => resolve(file));
// CI_AGENT_BENCH_PROFILE=DIR writes a CPU profile of every action and floor run there (in that
// order, run by run), to see where time goes and how it differs from the floors.
const PROFILE_ARGS = process.env.CI_AGENT_BENCH_PROFILE
  ? ['--cpu-prof', `--cpu-prof-dir=${resolve(process.env.CI_AGENT_BENCH_PROFILE)}`]
  : [];

async function once(
  command: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  firstRequest?: () => Promise<number>,
) {
  const started = performance.now();
  const child = execa(command[0]!, command.slice(1), {
    cwd,
    env,
    extendEnv: false,
    reject: false,
    stdio: 'ignore',
  });
  const exited = new Promise<number>((done) => child.on('close', () => done(performance.now())));
  const reached = firstRequest ? await firstRequest() : await exited;
  await exited;
  return reached - started;
}

export async function runActionStartupBench(): Promise<void> {
  // A repository as users have it: with a policy file (its YAML is parsed before the first request).
  const origin = await createOriginRepo({
    files: {
      'a.txt': 'a\n',
      '.github/ci-agent.yml': 'permissions:\n  allow:\n    - Read\n    - Bash(npm test:*)\n',
    },
  });
  const github = await startGitHubServer({
    seed: {
      repos: [{ owner: 'o', name: 'r', origin: origin.bare, permissions: { maintainer: 'write' } }],
      issues: [{ repo: 'o/r', number: 1, title: 't', labels: ['ci-agent'] }],
    },
  });
  let onRequest: ((at: number) => void) | undefined;
  const model = await startReplayServer({
    turns: Array.from({ length: (RUNS + 1) * (ACTIONS.length + 2) }, () => () => {
      onRequest?.(performance.now());
      return [{ type: 'text' as const, text: 'done' }];
    }),
  });
  const temp = mkdtempSync(join(tmpdir(), 'ci-agent-bench-action-'));
  const { libraryFloor, processFloor } = await buildFloors(temp);
  const eventPath = join(temp, 'event.json');
  writeFileSync(
    eventPath,
    JSON.stringify({
      action: 'labeled',
      label: { name: 'ci-agent' },
      issue: { number: 1, title: 't', body: 'b', user: { login: 'u' } },
      repository: { name: 'r', full_name: 'o/r', owner: { login: 'o' }, default_branch: 'main' },
      sender: { login: 'maintainer', type: 'User' },
    }),
  );
  const env = (): NodeJS.ProcessEnv => {
    for (const file of ['output', 'summary']) writeFileSync(join(temp, file), '');
    return {
      PATH: process.env.PATH,
      HOME: temp,
      GITHUB_EVENT_NAME: 'issues',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: 'o/r',
      GITHUB_RUN_ID: '1',
      GITHUB_API_URL: github.url,
      GITHUB_WORKSPACE: origin.checkout,
      RUNNER_TEMP: temp,
      GITHUB_OUTPUT: join(temp, 'output'),
      GITHUB_STEP_SUMMARY: join(temp, 'summary'),
      'INPUT_ANTHROPIC-API-KEY': 'bench',
      'INPUT_GITHUB-TOKEN': 'ghs_bench',
      'INPUT_UPLOAD-ARTIFACT': 'false',
      INPUT_COMMENT: 'false',
      ANTHROPIC_BASE_URL: model.url,
    };
  };
  try {
    const baseline: number[] = [];
    const fetchFloor: number[] = [];
    const actions: number[][] = ACTIONS.map(() => []);
    const floor: number[] = [];
    const withExeca: number[] = [];
    // The floor of any action that calls an API: Node, its fetch, one request to the loopback.
    const fetchOnce = `await fetch(${JSON.stringify(`${github.url}/rate_limit`)}).then((r) => r.arrayBuffer());`;
    for (let run = 0; run < RUNS + 1; run++) {
      const nodeMs = await once([process.execPath, '-e', '0'], process.env, temp);
      const fetchMs = await once(
        [process.execPath, '--input-type=module', '-e', fetchOnce],
        process.env,
        temp,
      );
      const actionMs: number[] = [];
      // Builds take turns going first (every other run reversed): no build always follows another.
      const order = ACTIONS.map((_, index) => (run % 2 === 0 ? index : ACTIONS.length - 1 - index));
      for (const index of order) {
        actionMs[index] = await once(
          [process.execPath, ...PROFILE_ARGS, ACTIONS[index]!],
          env(),
          origin.checkout,
          () => new Promise<number>((done) => (onRequest = done)),
        );
      }
      const floorsMs: number[] = [];
      for (const bundle of [libraryFloor, processFloor]) {
        floorsMs.push(
          await once(
            [process.execPath, ...PROFILE_ARGS, bundle],
            env(),
            origin.checkout,
            () => new Promise<number>((done) => (onRequest = done)),
          ),
        );
      }
      const [floorMs = NaN, processFloorMs = NaN] = floorsMs;
      if (run > 0) {
        baseline.push(nodeMs);
        fetchFloor.push(fetchMs);
        actionMs.forEach((ms, index) => actions[index]!.push(ms));
        floor.push(floorMs);
        withExeca.push(processFloorMs);
      }
    }
    const labelOf = (file: string) =>
      ACTIONS.length === 1 ? 'node dist/index.js' : `node ${relative(process.cwd(), file)}`;
    printTable(`Action start-up, median of ${RUNS} runs after a warm-up (ms)`, [
      { run: 'node -e 0 (baseline)', ms: fmt(median(baseline), 0) },
      { run: 'node + one fetch() to the loopback API', ms: fmt(median(fetchFloor), 0) },
      {
        run: 'library floor: @actions/core, @actions/github, zod, yaml, SDK → first model request',
        ms: fmt(median(floor), 0),
      },
      {
        run: 'process floor: the library floor + execa starting git status → first model request',
        ms: fmt(median(withExeca), 0),
      },
      ...ACTIONS.map((file, index) => ({
        run: `${labelOf(file)} → first model request`,
        ms: fmt(median(actions[index]!), 0),
      })),
    ]);
    for (const [index, file] of ACTIONS.entries()) {
      const ms = median(actions[index]!);
      const { files, bytes } = startupFiles(file);
      console.log(
        `${labelOf(file)}: ${fmt(ms, 0)} ms to the first model request, ${fmt(ms / median(baseline), 1)}× a bare node start, ${fmt(ms - median(fetchFloor), 0)} ms more than node with one fetch(), ${fmt(ms / median(floor), 2)}× the library floor (+${fmt(ms - median(floor), 0)} ms; target ≤ 1.5×), ${fmt(ms / median(withExeca), 2)}× the process floor (+${fmt(ms - median(withExeca), 0)} ms); it loads ${files} files (${fmt(bytes / 1024 / 1024, 2)} MiB) before its first request`,
      );
    }
    // Two builds measured together compare best run by run: the machine's swings (±15 % here)
    // hit both builds of a run alike, so the median of the differences is steadier than the
    // difference of the medians.
    for (const [index, file] of ACTIONS.entries()) {
      if (index === 0) continue;
      const differences = actions[index]!.map((ms, run) => ms - actions[0]![run]!);
      const ratios = (runs: number[]) => runs.map((ms, run) => ms / floor[run]!);
      console.log(
        `${labelOf(file)} against ${labelOf(ACTIONS[0]!)}, run by run: median difference ${fmt(median(differences), 0)} ms (${differences.filter((ms) => ms < 0).length} of ${differences.length} runs faster); median ratio to that run's library floor ${fmt(median(ratios(actions[index]!)), 2)}× against ${fmt(median(ratios(actions[0]!)), 2)}×`,
      );
    }
  } finally {
    await Promise.all([github.close(), model.close()]);
    await origin.cleanup();
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The two floors (fixtures/) bundled as scripts/build.mjs bundles dist/ (ncc), into `dir`. */
async function buildFloors(dir: string): Promise<{ libraryFloor: string; processFloor: string }> {
  const floors = ['library-floor', 'process-floor'] as const;
  await nccBundle({
    workDir: '.build-tmp/bench-library-floor',
    sources: ['bench/fixtures'],
    builds: floors.map((name) => ({ entry: `bench/fixtures/${name}.ts`, out: join(dir, name) })),
  });
  return {
    libraryFloor: join(dir, 'library-floor', 'index.js'),
    processFloor: join(dir, 'process-floor', 'index.js'),
  };
}

/**
 * The bundle files a start loads: the entry and, transitively, the chunks it imports statically
 * (chunks behind a dynamic `import()`, like the artifact client, load only when used).
 */
export function startupFiles(entry: string): { files: number; bytes: number } {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(
      /(?:^|[;}])\s*import\s*(?:[^'"();]*?from\s*)?["'](\.[^"']+)["']/gm,
    )) {
      visit(resolve(dirname(file), match[1]!));
    }
  };
  visit(entry);
  let bytes = 0;
  for (const file of seen) bytes += statSync(file).size;
  return { files: seen.size, bytes };
}

if (import.meta.url === `file://${process.argv[1]}`) await runActionStartupBench();
