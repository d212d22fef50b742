/**
 * A RetryClock the test drives: backoff sleeps are recorded and return at once (or are held
 * until the test lets them go), and the stall watchdog fires only when the test says so.
 */
import type { RetryClock } from '../../src/model/retrying-client.js';
import { deferred } from './test-tools.js';
import type { Deferred } from './test-tools.js';

interface ArmedTimer {
  ms: number;
  callback: () => void;
}

export class ManualClock implements RetryClock {
  /** Every backoff wait asked for, in order. */
  readonly sleeps: number[] = [];
  /** Every watchdog period armed, in order. */
  readonly timerPeriods: number[] = [];
  /** When true, sleeps wait for `releaseSleeps()` or the signal. */
  holdSleeps = false;
  private readonly armed = new Set<ArmedTimer>();
  private armedWaiters: Array<() => void> = [];
  private held: Deferred = deferred();

  sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    if (!this.holdSleeps) return Promise.resolve();
    return new Promise((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      void this.held.promise.then(resolve);
    });
  }

  releaseSleeps(): void {
    this.held.resolve();
    this.held = deferred();
  }

  startTimer(ms: number, callback: () => void): () => void {
    const timer = { ms, callback };
    this.armed.add(timer);
    this.timerPeriods.push(ms);
    for (const wake of this.armedWaiters) wake();
    this.armedWaiters = [];
    return () => this.armed.delete(timer);
  }

  random(): number {
    return 0.5;
  }

  /** Waits until a watchdog is armed (the client waits for an event), then fires it. */
  async stall(): Promise<void> {
    while (this.armed.size === 0)
      await new Promise<void>((resolve) => this.armedWaiters.push(resolve));
    for (const timer of [...this.armed]) {
      this.armed.delete(timer);
      timer.callback();
    }
  }
}
