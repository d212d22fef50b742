/**
 * The worker thread's entry: runs each search job it is sent (search-job.ts), one at a time, and
 * posts its results. It is bundled on its own into a string (scripts/build.mjs; worker-source.ts
 * when running from source) and started with `eval`, so that the bundle needs no file beside it.
 */
import { parentPort } from 'node:worker_threads';
import { runSearchJob } from './search-job.js';
import type { JobMessage, SearchJob } from './search-job.js';

const port = parentPort;
port?.on('message', (job: SearchJob) => {
  const post = (message: JobMessage) => port.postMessage(message);
  try {
    runSearchJob(job, post);
  } catch (error) {
    post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
});
