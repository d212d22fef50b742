/**
 * Runs the built-in search's walk and match steps and the Glob tool's listing (search-job.ts) in
 * a worker thread, so that neither the model's regular expression nor a glob ever runs on the
 * main thread: JavaScript's
 * engine backtracks, and a pattern like `(a|aa)+$` on a long line would otherwise hold the event
 * loop (timers, the run's time limit, SIGTERM) for minutes. A timeout, an abort or enough lines
 * terminate the worker, even in the middle of a match; what it had posted by then is kept. A
 * worker that finished its job waits, idle, for the next one.
 */
import { Worker } from 'node:worker_threads';
import { GLOB_PROGRESS_BYTES, readProgress } from './search-job.js';
import type { GlobJob, JobMessage, SearchJob, WalkJob } from './search-job.js';
import type { FileCount, SearchQuery, SearchRun } from './types.js';
import { searchWorkerSource } from './worker-source.js';

export interface WorkerSearchResult {
  paths: string[];
  counts: FileCount[];
  problems: { unreadable: number; tooLarge: number };
  /** The file being matched when `stop` ended the search; absent when it ended otherwise. */
  stoppedIn?: string;
}

type ResultMessage = Exclude<JobMessage, { kind: 'done' | 'failed' }>;

/** The files a walk lists, or undefined when `stop` ended it first. */
export async function walkInWorker(
  job: WalkJob,
  stop: AbortSignal,
): Promise<{ files: string[]; unreadable: number } | undefined> {
  let walked: { files: string[]; unreadable: number } | undefined;
  const end = await runJob(job, stop, (message) => {
    if (message.kind === 'walked') walked = message;
    return true;
  });
  return end === 'stopped' ? undefined : walked;
}

export type GlobListing =
  | { files: string[] }
  /** `directory`: the one whose names were being matched, if the crawl had reached any. */
  | { stopped: true; directory: string | undefined };

export async function globInWorker(
  job: Omit<GlobJob, 'kind' | 'progress'>,
  stop: AbortSignal,
): Promise<GlobListing> {
  let files: string[] = [];
  const progress = new SharedArrayBuffer(GLOB_PROGRESS_BYTES);
  const end = await runJob({ kind: 'glob', ...job, progress }, stop, (message) => {
    if (message.kind === 'globbed') files = message.files;
    return true;
  });
  return end === 'stopped' ? { stopped: true, directory: readProgress(progress) } : { files };
}

export async function searchInWorker(
  files: readonly string[],
  query: SearchQuery,
  run: Pick<SearchRun, 'onLine'>,
  stop: AbortSignal,
): Promise<WorkerSearchResult> {
  const result: WorkerSearchResult = {
    paths: [],
    counts: [],
    problems: { unreadable: 0, tooLarge: 0 },
  };
  if (files.length === 0) return result;
  const progress = new SharedArrayBuffer(4);
  const end = await runJob({ kind: 'match', files, query, progress }, stop, (message) =>
    record(result, message, run),
  );
  if (end === 'stopped') result.stoppedIn = files[Atomics.load(new Int32Array(progress), 0)];
  return result;
}

/**
 * Runs one job on a pooled worker, handing each result message to `onResult` until it returns
 * false ('enough'), the job ends ('done') or `stop` fires ('stopped'). Rejects when the job fails.
 */
async function runJob(
  job: SearchJob,
  stop: AbortSignal,
  onResult: (message: ResultMessage) => boolean,
): Promise<'done' | 'enough' | 'stopped'> {
  if (stop.aborted) return 'stopped';
  const worker = await takeWorker();
  if (stop.aborted) {
    putBack(worker);
    return 'stopped';
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: 'done' | 'enough' | 'stopped' | Error) => {
      if (settled) return;
      settled = true;
      stop.removeEventListener('abort', onStop);
      worker.off('message', onMessage).off('error', onFailure).off('exit', onExit);
      // A finished worker is idle and warm; one stopped in the middle of a job is ended.
      if (outcome === 'done') putBack(worker);
      else void worker.terminate();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onStop = () => settle('stopped');
    const onMessage = (message: JobMessage) => {
      if (message.kind === 'done') settle('done');
      else if (message.kind === 'failed') {
        settle(new Error(`The built-in search failed: ${message.message}`));
      } else if (!onResult(message)) settle('enough');
    };
    const onFailure = (error: Error) => settle(error);
    const onExit = (code: number) => {
      settle(new Error(`The built-in search's worker exited with code ${code}`));
    };
    stop.addEventListener('abort', onStop, { once: true });
    worker.on('message', onMessage).on('error', onFailure).on('exit', onExit);
    worker.postMessage(job);
  });
}

// Idle workers, kept so that a search does not pay for a new thread and cold code each time.
// Unreferenced while idle, so that they never keep the process alive.
const MAX_IDLE = 2;
const idle: Worker[] = [];

async function takeWorker(): Promise<Worker> {
  const worker = idle.pop() ?? (await startWorker());
  worker.ref();
  return worker;
}

async function startWorker(): Promise<Worker> {
  const worker = new Worker(await searchWorkerSource(), { eval: true });
  // A job's own listeners report errors while it runs; an idle worker that fails just leaves.
  worker.on('error', () => undefined);
  worker.on('exit', () => {
    const index = idle.indexOf(worker);
    if (index !== -1) idle.splice(index, 1);
  });
  return worker;
}

function putBack(worker: Worker) {
  if (idle.length >= MAX_IDLE) {
    void worker.terminate();
    return;
  }
  worker.unref();
  idle.push(worker);
}

/** Adds one message's result; false when the caller has all the lines it will show. */
function record(
  result: WorkerSearchResult,
  message: ResultMessage,
  run: Pick<SearchRun, 'onLine'>,
): boolean {
  switch (message.kind) {
    case 'walked':
    case 'globbed':
      return true;
    case 'match':
      result.paths.push(message.path);
      return true;
    case 'count':
      result.counts.push({ path: message.path, count: message.count });
      return true;
    case 'problem':
      result.problems[message.problem]++;
      return true;
    case 'lines':
      return message.lines.every((line) => run.onLine(line));
  }
}
