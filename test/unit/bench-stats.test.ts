import fc from 'fast-check';
import { medianInterval } from '../../bench/lib/stats';
import { seeded } from '../../bench/lib/synthetic-records';

/**
 * The bench's interval of a median (bench/lib/stats.ts), which decides when a cold-start goal sits
 * inside the run-to-run spread: the order statistics of the published sign-test tables, and the
 * coverage it claims on samples whose median is known.
 */
const ranks = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

test('the ranks of the sign-test tables: (2, 9) of 10, (10, 22) of 31, and every sample below 6', () => {
  expect(medianInterval(ranks(10))).toEqual([2, 9]);
  expect(medianInterval(ranks(31))).toEqual([10, 22]);
  expect(medianInterval(ranks(6))).toEqual([1, 6]);
  expect(medianInterval(ranks(5))).toEqual([1, 5]);
  expect(medianInterval([7])).toEqual([7, 7]);
  expect(() => medianInterval([])).toThrow('no samples');
});

test('the samples are taken in any order', () => {
  fc.assert(
    fc.property(fc.array(fc.double({ noNaN: true }), { minLength: 1, maxLength: 60 }), (samples) => {
      const reversed = [...samples].reverse();
      // -0 and 0 are one value, and sort as one: which of them a rank holds follows the input's order.
      const value = (interval: number[]) => interval.map((x) => x + 0);
      expect(value(medianInterval(reversed))).toEqual(value(medianInterval(samples)));
      const [low, high] = medianInterval(samples);
      expect(low).toBeLessThanOrEqual(high);
    }),
    { seed: 20261126, numRuns: 200 },
  );
});

test('at 95%, 31 samples of a distribution with median 0 hold it in about 97% of draws (the coverage of ranks 10 and 22)', () => {
  // Uniform on [-1, 1) from a seeded generator (fast-check's doubles lean on special values on purpose).
  const next = seeded(20261126);
  const draws = Array.from({ length: 2000 }, () => Array.from({ length: 31 }, () => next() * 2 - 1));
  const held = draws.filter((samples) => {
    const [low, high] = medianInterval(samples);
    return low <= 0 && 0 <= high;
  }).length;
  // Exact coverage 1 - 2 P(Binomial(31, 1/2) <= 9) = 0.9705; 2000 draws put it within about ±0.012.
  expect(held / 2000).toBeGreaterThan(0.95);
  expect(held / 2000).toBeLessThan(0.99);
});
