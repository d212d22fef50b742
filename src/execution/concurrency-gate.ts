/**
 * The one concurrency primitive of the tool system: a FIFO readers–writer gate.
 *
 * Concurrency-safe calls share the gate (up to `maxShared` at once); unsafe calls hold it alone.
 * Grants follow arrival order: a waiting exclusive call blocks every call queued behind it, so a
 * Read issued after an Edit never overtakes the Edit. Batch dispatch (all calls arrive at once)
 * and streaming execution (calls arrive as the model streams) are the same rules applied to
 * different arrival times.
 */

export type Release = () => void;

interface Waiter {
  exclusive: boolean;
  grant: (release: Release) => void;
  reject: (reason: Error) => void;
  cancelled: boolean;
}

export class ConcurrencyGate {
  private sharedHolders = 0;
  private exclusiveHeld = false;
  private readonly queue: Waiter[] = [];

  constructor(readonly maxShared = 10) {
    if (!Number.isInteger(maxShared) || maxShared < 1) {
      throw new RangeError(`maxShared must be a positive integer, got ${maxShared}`);
    }
  }

  /** Resolves with a release function once the call may run; rejects if the signal aborts first. */
  acquire(exclusive: boolean, signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = { exclusive, grant: resolve, reject, cancelled: false };
      this.queue.push(waiter);
      if (signal) {
        const onAbort = () => {
          if (waiter.cancelled) return;
          const index = this.queue.indexOf(waiter);
          if (index === -1) return; // already granted: the holder releases normally
          this.queue.splice(index, 1);
          waiter.cancelled = true;
          reject(abortError(signal));
          this.pump();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const grant = waiter.grant;
        waiter.grant = (release) => {
          signal.removeEventListener('abort', onAbort);
          grant(release);
        };
      }
      this.pump();
    });
  }

  /** Calls currently holding the gate. */
  get active(): number {
    return this.exclusiveHeld ? 1 : this.sharedHolders;
  }

  get waiting(): number {
    return this.queue.length;
  }

  private pump(): void {
    for (;;) {
      const next = this.queue[0];
      if (!next || this.exclusiveHeld) return;
      if (next.exclusive) {
        if (this.sharedHolders > 0) return;
        this.queue.shift();
        this.exclusiveHeld = true;
        next.grant(this.releaser(true));
        return;
      }
      if (this.sharedHolders >= this.maxShared) return;
      this.queue.shift();
      this.sharedHolders++;
      next.grant(this.releaser(false));
    }
  }

  private releaser(exclusive: boolean): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (exclusive) this.exclusiveHeld = false;
      else this.sharedHolders--;
      this.pump();
    };
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new Error(typeof reason === 'string' ? reason : 'aborted');
}
