import { describe, expect, it } from 'vitest';
import { ConcurrencyGate } from '../../src/execution/concurrency-gate.js';

async function settle() {
  for (let index = 0; index < 5; index++) await Promise.resolve();
}

describe('ConcurrencyGate', () => {
  it('lets shared holders in together up to the cap', async () => {
    const gate = new ConcurrencyGate(2);
    const granted: number[] = [];
    const releases = [0, 1, 2].map((index) =>
      gate.acquire(false).then((release) => {
        granted.push(index);
        return release;
      }),
    );
    await settle();
    expect(granted).toEqual([0, 1]);
    (await releases[0])?.();
    await settle();
    expect(granted).toEqual([0, 1, 2]);
  });

  it('gives an exclusive holder the gate alone, after the shared holders before it', async () => {
    const gate = new ConcurrencyGate();
    const order: string[] = [];
    const first = await gate.acquire(false);
    const writer = gate.acquire(true).then((release) => {
      order.push('writer');
      return release;
    });
    await settle();
    expect(order).toEqual([]);
    first();
    const release = await writer;
    expect(order).toEqual(['writer']);
    expect(gate.active).toBe(1);
    release();
    expect(gate.active).toBe(0);
  });

  it('holds back shared requests queued behind a waiting exclusive one (FIFO)', async () => {
    const gate = new ConcurrencyGate();
    const order: string[] = [];
    const reader = await gate.acquire(false);
    const writer = gate.acquire(true).then((release) => (order.push('writer'), release));
    const lateReader = gate.acquire(false).then((release) => (order.push('late reader'), release));
    await settle();
    expect(order).toEqual([]);
    reader();
    (await writer)();
    (await lateReader)();
    expect(order).toEqual(['writer', 'late reader']);
  });

  it('rejects a waiting request when its signal aborts and lets the queue move on', async () => {
    const gate = new ConcurrencyGate();
    const holder = await gate.acquire(true);
    const controller = new AbortController();
    const cancelled = gate.acquire(false, controller.signal);
    const next = gate.acquire(false);
    controller.abort(new Error('stop'));
    await expect(cancelled).rejects.toThrow('stop');
    holder();
    const release = await next;
    expect(gate.active).toBe(1);
    release();
  });

  it('rejects at once when the signal is already aborted', async () => {
    const gate = new ConcurrencyGate();
    const controller = new AbortController();
    controller.abort(new Error('late'));
    await expect(gate.acquire(false, controller.signal)).rejects.toThrow('late');
  });

  it('ignores a second release of the same grant', async () => {
    const gate = new ConcurrencyGate();
    const first = await gate.acquire(false);
    const second = await gate.acquire(false);
    first();
    first();
    expect(gate.active).toBe(1);
    second();
  });

  it('refuses a cap that is not a positive integer', () => {
    expect(() => new ConcurrencyGate(0)).toThrow(RangeError);
  });
});
