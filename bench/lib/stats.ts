/** Nearest-rank percentile of samples (any order). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

/** Rounds to a few significant decimals for the table (values stay numbers in results.json). */
export function round(value: number, decimals = 3): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

export const ratio = (value: number, baseline: number) => round(value / baseline, 2);

/** Milliseconds since `start` (from process.hrtime.bigint()). */
export const elapsedMs = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** Calls `fn` `warmup + iterations` times in sequence; returns the timings of the measured calls. */
export async function timeCalls(fn: () => Promise<unknown>, iterations: number, warmup: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < warmup + iterations; i++) {
    const start = process.hrtime.bigint();
    await fn();
    if (i >= warmup) samples.push(elapsedMs(start));
  }
  return samples;
}
