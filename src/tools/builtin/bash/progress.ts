/**
 * Relays a running command's output as progress events, at most one per interval, until the
 * command settles. Pending text is bounded: a burst between two events keeps only its tail.
 */
import type { ToolProgress } from '../../tool.js';

const MAX_PENDING_CHARS = 4_000;

export class ProgressFeed {
  private pending = '';
  private wake: (() => void) | undefined;

  push(chunk: string) {
    this.pending = (this.pending + chunk).slice(-MAX_PENDING_CHARS);
    this.wake?.();
    this.wake = undefined;
  }

  take(): string {
    const text = this.pending;
    this.pending = '';
    return text;
  }

  /** Resolves once output is pending. */
  ready(): Promise<void> {
    if (this.pending !== '') return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }
}

export async function* relayProgress<T>(
  done: Promise<T>,
  feed: ProgressFeed,
  intervalMs: number,
): AsyncGenerator<ToolProgress, T, void> {
  let finished = false;
  const settled = done.then(() => {
    finished = true;
  });
  for (;;) {
    await Promise.race([settled, feed.ready()]);
    if (finished) return done;
    yield { type: 'progress', message: feed.take() };
    await pause(intervalMs, settled);
  }
}

/** Waits `ms`, or less if `until` settles first; never leaves a timer behind. */
function pause(ms: number, until: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([until, elapsed]).finally(() => clearTimeout(timer));
}
