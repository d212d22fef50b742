/**
 * What @actions/core writes to process.stdout (log lines, annotations, groups, `add-mask`) during
 * a test, one entry per write, kept from the real stdout; restored when the test ends.
 */
import { onTestFinished, vi } from 'vitest';

export function captureStdout(): string[] {
  const writes: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    writes.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
    return true;
  });
  onTestFinished(() => spy.mockRestore());
  return writes;
}
