/**
 * The worker thread's entry: runs each job it is sent (search-job.ts), one at a time (the main
 * thread sends the next only after `done`), and posts its results. It is bundled on its own into a string (scripts/build.mjs; worker-source.ts
 * when running from source) and started with `eval`, so that the bundle needs no file beside it.
 */
import { parentPort } from 'node:worker_threads';
import { runGlobJob, runMatchJob, runWalkJob } from './search-job.js';
import type { JobMessage, SearchJob } from './search-job.js';

const port = parentPort;
port?.on('message', (job: SearchJob) => {
  const post = (message: JobMessage) => port.postMessage(message);
  const fail = (error: unknown) =>
    post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  try {
    if (job.kind === 'walk') runWalkJob(job, post).catch(fail);
    else if (job.kind === 'glob') runGlobJob(job, post);
    else runMatchJob(job, post);
  } catch (error) {
    fail(error);
  }
});
