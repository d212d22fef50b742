/**
 * Cost: the input tokens ci-agent and Claude Code are billed for on the same scripted sessions,
 * counted by billing.ts from the request bodies each sent (cache reads 0.1×, cache writes 1.25×,
 * uncached 1×; one token estimate, characters / 4, for both).
 *
 * Sessions (the model's turns scripted by the replay server; the files real, in a temp dir):
 * - "30 turns": cli-session.ts's script: per three turns 4 Reads in one message, an Edit, `ls`.
 * - "200 turns, compacting": context-session.ts's reading session with files large enough
 *   (1500 lines, about 60 kB each) that the 200k window fills and both clients compact.
 * - "200 turns, working": working-session.ts: reads of source files, a test report, grep, edits
 *   and `ls` over 200 turns, about 350k tokens of results, past the 200k window. Claude Code
 *   stops there with "Prompt is too long" (it does not compact in `-p` against the replay server);
 *   its bill until then is compared with ours over the same requests, and our whole run with it.
 * ci-agent runs in-process through runSession (its real tools and system prompt) against the
 * replay server; Claude Code runs as `claude -p` against the same script when
 * CI_AGENT_BENCH_CLAUDE names its binary, and its billed counts are then written to
 * bench/fixtures/claude-code-billing.json (with CI_AGENT_BENCH_RECORD=1); otherwise that fixture is
 * what ci-agent is compared with. Targets: weighted input ≤ 0.4× Claude Code's on the 30-turn
 * session, ≤ 0.5× on the compacting one, which must complete.
 */
import { execaSync } from 'execa';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AgentEvent } from '../src/agent/events.js';
import { runSession } from '../src/agent/session.js';
import { createAnthropicClient } from '../src/model/anthropic-client.js';
import { pricingFor } from '../src/model/pricing.js';
import type {
  RecordedRequest,
  ReplayScriptEntry,
  ReplayTurnInput,
} from '../testkit/replay-server.js';
import { startReplayServer } from '../testkit/replay-server.js';
import { billRequests, sumBilled, totalInput, weightedInput } from './billing.js';
import type { BilledInput } from './billing.js';
import { isSummaryRequest, runClaude } from './claude-session.js';
import { CYCLES, makeRepo, script as cliScript } from './cli-session.js';
import {
  SESSION_PROMPT,
  SESSION_SUMMARY,
  countEditsOnDisk,
  readingScript,
  writeSessionFiles,
} from './context-session.js';
import { fmt, printTable } from './stats.js';
import { countWorkingEdits, workingScript, writeWorkingFiles } from './working-session.js';

/** A model both clients give a 200k-token window. */
export const COST_MODEL = 'claude-sonnet-4-5';
const FIXTURE = resolve('bench/fixtures/claude-code-billing.json');

/** The scripted edits found on disk at the end, of those the script asked for. */
export interface Edits {
  done: number;
  expected: number;
}

export interface CostSession {
  name: string;
  prompt: string;
  maxTurns: number;
  /** Writes the files into a fresh directory; the script answers turns, and summaries. */
  setup: () => Promise<{ root: string; turns: ReplayScriptEntry[]; edits: () => Promise<Edits> }>;
}

function scripted(blocks: ReplayTurnInput[]): ReplayScriptEntry[] {
  let next = 0;
  const respond = (request: RecordedRequest): ReplayTurnInput =>
    isSummaryRequest(request)
      ? [{ type: 'text', text: SESSION_SUMMARY }]
      : (blocks[next++] ?? [{ type: 'text', text: 'Done.' }]);
  return Array.from({ length: blocks.length * 3 + 20 }, () => respond);
}

export const THIRTY_TURNS: CostSession = {
  name: '30 turns',
  prompt: 'Edit the files.',
  maxTurns: 40,
  setup: async () => {
    const root = makeRepo();
    const edits = async (): Promise<Edits> => ({
      done: (await readFile(join(root, 'a.txt'), 'utf8')).split('(edited)').length - 1,
      expected: CYCLES,
    });
    return { root, turns: scripted(cliScript(root)), edits };
  },
};

export function readingSession(
  turns: number,
  linesPerFile: number,
  name = `${turns} turns, ${linesPerFile}-line reads`,
): CostSession {
  const options = { turns, files: 30, linesPerFile, editEvery: 5 };
  return {
    name,
    prompt: SESSION_PROMPT,
    maxTurns: turns + 10,
    setup: async () => {
      const root = realpathSync(await mkdtemp(join(tmpdir(), 'ci-agent-cost-')));
      execaSync('git', ['init', '-q'], { cwd: root });
      await writeSessionFiles(root, options);
      const script = readingScript(root, options, isSummaryRequest);
      const edits = async (): Promise<Edits> => ({
        done: await countEditsOnDisk(script.edited),
        expected: script.edited.length / 2,
      });
      return {
        root,
        turns: Array.from({ length: turns * 3 + 20 }, () => script.respond),
        edits,
      };
    },
  };
}

export const COMPACTING = readingSession(200, 1500, '200 turns, compacting');

/** working-session.ts: 40 cycles of five turns. */
const WORKING_CYCLES = 40;

export const WORKING: CostSession = {
  name: '200 turns, working',
  prompt: 'Fix the failing tests.',
  maxTurns: WORKING_CYCLES * 5 + 10,
  setup: async () => {
    const root = realpathSync(await mkdtemp(join(tmpdir(), 'ci-agent-cost-')));
    execaSync('git', ['init', '-q'], { cwd: root });
    await writeWorkingFiles(root);
    const edits = async (): Promise<Edits> => ({
      done: await countWorkingEdits(root, WORKING_CYCLES),
      expected: WORKING_CYCLES,
    });
    return { root, turns: scripted(workingScript(root, WORKING_CYCLES)), edits };
  },
};

export interface SessionBill {
  requests: number;
  /** Requests that summarised the conversation. */
  summaries: number;
  billed: BilledInput[];
  edits: Edits;
  /** Why the client stopped before the script's end, in its words; undefined when it finished. */
  stopped?: string;
}

/** ci-agent on one session: its request bodies, billed. */
export async function runOurs(
  session: CostSession,
): Promise<SessionBill & { events: AgentEvent[] }> {
  const { root, turns, edits } = await session.setup();
  const home = await mkdtemp(join(tmpdir(), 'ci-agent-cost-home-'));
  const server = await startReplayServer({ turns });
  try {
    const events: AgentEvent[] = [];
    const result = await runSession({
      prompt: session.prompt,
      cwd: root,
      model: COST_MODEL,
      modelClient: createAnthropicClient({ apiKey: 'k', baseURL: server.url }),
      permissionMode: 'bypassPermissions',
      rules: { allow: [], deny: [] },
      maxTurns: session.maxTurns,
      env: { PATH: process.env.PATH ?? '', HOME: home },
      events: (event) => events.push(event),
      retry: false,
    });
    if (result.subtype !== 'success')
      throw new Error(`ci-agent, ${session.name}: ${result.errors.join('; ')}`);
    // The run must complete its work, not just end: every scripted edit on disk.
    const done = await edits();
    if (done.done !== done.expected || done.expected === 0)
      throw new Error(`ci-agent, ${session.name}: ${done.done} of ${done.expected} edits on disk`);
    return { ...billOf(server.requests.map((request) => request.body)), edits: done, events };
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  }
}

/** Claude Code on one session. */
export async function runReference(
  claude: string,
  session: CostSession,
): Promise<SessionBill & { version: string }> {
  const { root, turns, edits } = await session.setup();
  try {
    const run = await runClaude({
      claude,
      cwd: root,
      prompt: session.prompt,
      model: COST_MODEL,
      turns,
      maxTurns: session.maxTurns,
      contextWindow: pricingFor(COST_MODEL).contextWindow,
    });
    // Reported, not required: after compacting, the reference may refuse an Edit of a file it
    // no longer has read, and the script does not read again; it may stop before the end.
    return {
      ...billOf(run.bodies),
      edits: await edits(),
      version: run.version,
      ...(run.stopped !== undefined && { stopped: run.stopped }),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function billOf(bodies: readonly unknown[]): Omit<SessionBill, 'edits'> {
  const summaries = bodies.filter((body) =>
    isSummaryRequest({ body } as unknown as RecordedRequest),
  ).length;
  return { requests: bodies.length, summaries, billed: billRequests(bodies) };
}

interface Recorded {
  version: string;
  date: string;
}

interface Fixture {
  recorded: Recorded & { command: string; model: string };
  sessions: Record<
    string,
    {
      requests: number;
      summaries: number;
      edits: Edits;
      billed: number[][];
      stopped?: string;
      /** When this session was recorded apart from the others (CI_AGENT_BENCH_SESSIONS). */
      recorded?: Recorded;
    }
  >;
}

function readFixture(): Fixture {
  return JSON.parse(readFileSync(FIXTURE, 'utf8')) as Fixture;
}

function fromFixture(fixture: Fixture, name: string): SessionBill {
  const entry = fixture.sessions[name];
  if (entry === undefined) throw new Error(`${FIXTURE}: no session "${name}"`);
  return {
    requests: entry.requests,
    summaries: entry.summaries,
    edits: entry.edits,
    ...(entry.stopped !== undefined && { stopped: entry.stopped }),
    billed: entry.billed.map(([cacheRead = 0, cacheWrite = 0, cacheWrite1h = 0, uncached = 0]) => ({
      cacheRead,
      cacheWrite,
      cacheWrite1h,
      uncached,
    })),
  };
}

/** Claude Code's recorded bill for one session (bench/fixtures/claude-code-billing.json). */
export function recordedReference(name: string): SessionBill {
  return fromFixture(readFixture(), name);
}

/**
 * The weighted-input ratio of `ours` to `theirs`; when the reference stopped early, over the
 * requests both sent (the script answers requests in order, so request i is turn i for both)
 * and, as an upper bound, our whole run against its partial one.
 */
export function costRatio(
  ours: SessionBill,
  theirs: SessionBill,
): { weighted: number; input: number; wholeRun?: number } {
  const common = theirs.stopped === undefined ? ours.billed : ours.billed.slice(0, theirs.requests);
  const weightedOf = (billed: BilledInput[]) => weightedInput(sumBilled(billed));
  const ratio = {
    weighted: weightedOf(common) / weightedOf(theirs.billed),
    input: totalInput(sumBilled(common)) / totalInput(sumBilled(theirs.billed)),
  };
  return theirs.stopped === undefined
    ? ratio
    : { ...ratio, wholeRun: weightedOf(ours.billed) / weightedOf(theirs.billed) };
}

export const SESSIONS = [THIRTY_TURNS, COMPACTING, WORKING];

/**
 * CI_AGENT_BENCH_READS=300,600: the reading session again with files of these many lines (the
 * size of a read decides how often history edits pay), from the fixture or measured live.
 */
function extraSessions(): CostSession[] {
  const sizes = process.env.CI_AGENT_BENCH_READS?.split(',').filter((size) => size !== '');
  return (sizes ?? []).map((size) => readingSession(200, Number(size)));
}

export async function runCostBench(): Promise<void> {
  const claude = process.env.CI_AGENT_BENCH_CLAUDE;
  // CI_AGENT_BENCH_SESSIONS=word[,word]: run live only the sessions whose names contain one
  // (`working`); the others come from the fixture.
  const live = process.env.CI_AGENT_BENCH_SESSIONS?.split(',');
  const fixture = readFixture();
  const reference = new Map<string, SessionBill & { version: string }>();
  const sessions = [...SESSIONS, ...extraSessions()];
  for (const session of sessions) {
    if (
      claude === undefined ||
      claude === '' ||
      (live && !live.some((word) => session.name.includes(word)))
    ) {
      const entry = fixture.sessions[session.name];
      const recorded = entry?.recorded ?? fixture.recorded;
      reference.set(session.name, {
        ...fromFixture(fixture, session.name),
        version: `${recorded.version}, recorded ${recorded.date}`,
      });
      continue;
    }
    const run = await runReference(claude, session);
    reference.set(session.name, run);
    fixture.sessions[session.name] = {
      requests: run.requests,
      summaries: run.summaries,
      edits: run.edits,
      billed: run.billed.map((bill) => [
        bill.cacheRead,
        bill.cacheWrite,
        bill.cacheWrite1h,
        bill.uncached,
      ]),
      ...(run.stopped !== undefined && { stopped: run.stopped }),
      recorded: { version: run.version, date: new Date().toISOString().slice(0, 10) },
    };
  }
  if (claude && process.env.CI_AGENT_BENCH_RECORD === '1') {
    writeFileSync(FIXTURE, `${JSON.stringify(fixture)}\n`);
  }
  const rows = [];
  const ratios: string[] = [];
  for (const session of sessions) {
    const ours = await runOurs(session);
    const theirs = reference.get(session.name)!;
    const row = (client: string, bill: SessionBill) => {
      const sum = sumBilled(bill.billed);
      return {
        session: session.name,
        client,
        requests: bill.requests,
        summaries: bill.summaries,
        edits: `${bill.edits.done}/${bill.edits.expected}`,
        'read k': fmt(sum.cacheRead / 1e3, 0),
        'write k': fmt((sum.cacheWrite + sum.cacheWrite1h) / 1e3, 0),
        'uncached k': fmt(sum.uncached / 1e3, 1),
        'input k': fmt(totalInput(sum) / 1e3, 0),
        'weighted k': fmt(weightedInput(sum) / 1e3, 0),
        stopped: bill.stopped ?? '',
      };
    };
    rows.push(row('ci-agent', ours), row(`claude -p ${theirs.version}`, theirs));
    const ratio = costRatio(ours, theirs);
    ratios.push(
      ratio.wholeRun === undefined
        ? `${session.name}: weighted ${fmt(ratio.weighted, 3)}×, input ${fmt(ratio.input, 2)}×`
        : `${session.name}: weighted ${fmt(ratio.weighted, 3)}× over the ${theirs.requests} requests both sent (Claude Code stopped: ${theirs.stopped}), input ${fmt(ratio.input, 2)}×; our whole run ${fmt(ratio.wholeRun, 3)}× its partial one`,
    );
  }
  printTable('Input tokens as billed (k = thousands of tokens, characters / 4)', rows);
  console.log(
    `ci-agent / Claude Code — ${ratios.join('; ')} (targets: weighted ≤ 0.4× on 30 turns, ≤ 0.5× on 200)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await runCostBench();
