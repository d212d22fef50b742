/**
 * Runs the built-in search's matching step (search-job.ts) in a worker thread, so that the
 * model's regular expression never runs on the main thread: JavaScript's engine backtracks, and a
 * pattern like `(a|aa)+$` on a long line would otherwise hold the event loop (timers, the run's
 * time limit, SIGTERM) for minutes. A timeout, an abort or enough lines terminate the worker, even
 * in the middle of a match; what it had posted by then is kept.
 */
import { Worker } from 'node:worker_threads';
import type { JobMessage, SearchJob } from './search-job.js';
import type { FileCount, SearchQuery, SearchRun } from './types.js';
import { searchWorkerSource } from './worker-source.js';

export interface WorkerSearchResult {
  paths: string[];
  counts: FileCount[];
  problems: { unreadable: number; tooLarge: number };
  /** The file being matched when `stop` ended the search; absent when it ended otherwise. */
  stoppedIn?: string;
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
  if (files.length === 0 || stop.aborted) return result;
  const source = await searchWorkerSource();
  if (stop.aborted) return result;
  const job: SearchJob = { files, query, progress: new SharedArrayBuffer(4) };
  const worker = new Worker(source, { eval: true, workerData: job });
  return new Promise<WorkerSearchResult>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: { error: Error } | { stopped: boolean }) => {
      if (settled) return;
      settled = true;
      stop.removeEventListener('abort', onStop);
      void worker.terminate();
      if ('error' in outcome) return reject(outcome.error);
      if (outcome.stopped) {
        const index = Atomics.load(new Int32Array(job.progress), 0);
        result.stoppedIn = files[index];
      }
      resolve(result);
    };
    const onStop = () => settle({ stopped: true });
    stop.addEventListener('abort', onStop, { once: true });
    worker.on('message', (message: JobMessage) => {
      if (settled) return;
      if (message.kind === 'done') return settle({ stopped: false });
      if (message.kind === 'failed') {
        return settle({ error: new Error(`The built-in search failed: ${message.message}`) });
      }
      if (!record(result, message, run)) settle({ stopped: false });
    });
    worker.on('error', (error: Error) => settle({ error }));
    worker.on('exit', (code) => {
      settle({ error: new Error(`The built-in search's worker exited with code ${code}`) });
    });
  });
}

/** Adds one message's result; false when the caller has all the lines it will show. */
function record(
  result: WorkerSearchResult,
  message: Exclude<JobMessage, { kind: 'done' | 'failed' }>,
  run: Pick<SearchRun, 'onLine'>,
): boolean {
  switch (message.kind) {
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
