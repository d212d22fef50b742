/**
 * The worker thread's entry: runs one search job (search-job.ts) and posts its results. It is
 * bundled on its own into a string (scripts/build.mjs; worker-source.ts when running from source)
 * and started with `eval`, so that the bundle needs no file beside it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runSearchJob } from './search-job.js';
import type { JobMessage, SearchJob } from './search-job.js';

const port = parentPort;
if (port) {
  const post = (message: JobMessage) => port.postMessage(message);
  try {
    runSearchJob(workerData as SearchJob, post);
  } catch (error) {
    post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
}
