/** Nearest-rank percentile of samples (any order). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

/**
 * A distribution-free confidence interval of the median (order statistics, the binomial sign
 * test): the r-th smallest and r-th largest sample, r the largest rank with
 * P(Binomial(n, 1/2) <= r - 1) <= (1 - confidence) / 2. For 31 samples at 95%: the 10th and the
 * 22nd (97% coverage). What a median can be trusted to: a run's median inside another run's
 * interval is no difference.
 */
export function medianInterval(samples: readonly number[], confidence = 0.95): [low: number, high: number] {
  const n = samples.length;
  if (n === 0) throw new Error('no samples');
  const tail = (1 - confidence) / 2;
  // P(B <= k) for B ~ Binomial(n, 1/2), built term by term.
  let term = 0.5 ** n;
  let cdf = term;
  let r = 0;
  for (let k = 0; k < n && cdf <= tail; k++) {
    r = k + 1;
    term = (term * (n - k)) / (k + 1);
    cdf += term;
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, r);
  return [sorted[rank - 1], sorted[n - rank]];
}

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
