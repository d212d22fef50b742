/** Small helpers shared by the benchmarks: medians, percentiles, a table printer, a stall watch. */

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  console.log(`\n${title}`);
  console.table(rows);
}

export function fmt(value: number, digits = 3): string {
  return value.toFixed(digits);
}

/** Runs `action` while a 5 ms interval ticks; returns its duration and the longest tick gap. */
export async function withStallWatch(action: () => Promise<unknown>) {
  let last = performance.now();
  let longestGap = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  await action().catch(() => undefined);
  const ms = performance.now() - started;
  clearInterval(ticker);
  return { ms, longestGap: Math.max(longestGap, performance.now() - last) };
}
