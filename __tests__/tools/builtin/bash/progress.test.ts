import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressFeed, relayProgress } from '../../../../src/tools/builtin/bash/progress.js';
import type { ToolProgress } from '../../../../src/tools/tool.js';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('relayProgress', () => {
  it('yields output as it arrives and returns the final value', async () => {
    const feed = new ProgressFeed();
    const done = deferred<string>();
    const relay = relayProgress(done.promise, feed, 100);
    feed.push('first');
    expect(await relay.next()).toEqual({
      done: false,
      value: { type: 'progress', message: 'first' },
    });
    const pending = relay.next();
    done.resolve('result');
    expect(await pending).toEqual({ done: true, value: 'result' });
  });

  it('sends at most one event per interval, carrying what arrived meanwhile', async () => {
    const feed = new ProgressFeed();
    const done = deferred<string>();
    const relay = relayProgress(done.promise, feed, 100);
    feed.push('a');
    expect((await relay.next()).value).toEqual({ type: 'progress', message: 'a' });
    let second: IteratorResult<ToolProgress, string> | undefined;
    const pending = relay.next().then((step) => (second = step));
    feed.push('b');
    feed.push('c');
    await vi.advanceTimersByTimeAsync(99);
    expect(second).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(second?.value).toEqual({ type: 'progress', message: 'bc' });
    done.resolve('x');
    expect(await relay.next()).toEqual({ done: true, value: 'x' });
  });

  it('returns without an event when the command settles before any output', async () => {
    const done = deferred<number>();
    const relay = relayProgress(done.promise, new ProgressFeed(), 100);
    done.resolve(7);
    expect(await relay.next()).toEqual({ done: true, value: 7 });
  });
});

describe('ProgressFeed', () => {
  it('keeps only the tail of a large burst', () => {
    const feed = new ProgressFeed();
    feed.push('x'.repeat(5_000));
    feed.push('end');
    const text = feed.take();
    expect(text).toHaveLength(4_000);
    expect(text.endsWith('end')).toBe(true);
    expect(feed.take()).toBe('');
  });
});
