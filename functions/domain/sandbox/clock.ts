import { LATEST_INSTANT, SANDBOX_DEFAULT_INSTANT, TEST_CLOCK_ID_PATTERN } from '../../contract/sandbox-values';
import type { TestClock, TestClockRequest } from '../../contract/schemas/sandbox';
import { canonicalSha256 } from './digest';
import { issueAt, JsonInputError } from '../json-input';

/** RFC 3339 with any offset -> UTC with milliseconds, the one form the sandbox writes. */
export function utcInstant(at: string): string {
  return new Date(Date.parse(at)).toISOString();
}

const LATEST_MS = Date.parse(LATEST_INSTANT);

/**
 * A test-clock reading: startAt (given, else the fixed default) advanced by advanceMs. The id
 * is derived from the normalised reading, so two requests naming the same instants (in any
 * offset) get the same clock, and no two different readings share an id.
 */
export function testClock(request: TestClockRequest): TestClock {
  const startAt = utcInstant(request.startAt ?? SANDBOX_DEFAULT_INSTANT);
  const advanceMs = request.advanceMs ?? 0;
  const nowMs = Date.parse(startAt) + advanceMs;
  if (nowMs > LATEST_MS) {
    throw new JsonInputError([issueAt(['advanceMs'], `advances the clock past ${LATEST_INSTANT}, the latest instant RFC 3339 can write`)]);
  }
  const reading = { startAt, advanceMs };
  return {
    schemaVersion: 'svc.sandbox-test-clock.v1',
    clockId: `tclk_${canonicalSha256({ kind: 'svc.sandbox-test-clock', ...reading }).slice(0, 32)}`,
    startAt,
    startAtSource: request.startAt === undefined ? 'DEFAULT' : 'REQUEST',
    advanceMs,
    now: new Date(nowMs).toISOString(),
  };
}

export interface EvaluationInstant {
  /** The instant an evaluation takes as "now" (UTC, milliseconds). */
  at: string;
  /** The test clock it came from, when one was given. */
  clockId: string | null;
}

/**
 * The "now" of a sandbox evaluation: the given test-clock reading, else `now`, else the fixed
 * default. A clock must be a reading the test clock really produced (its id and now are
 * re-derived from its startAt and advanceMs), so an edited clock is refused rather than
 * silently trusted.
 */
export function evaluationInstant(input: { clock?: TestClock; now?: string }): EvaluationInstant {
  if (input.clock && input.now !== undefined) {
    throw new JsonInputError([issueAt(['now'], 'give either clock or now, not both')]);
  }
  if (input.clock) {
    const clock = input.clock;
    const expected = testClock({ startAt: clock.startAt, advanceMs: clock.advanceMs });
    if (!new RegExp(TEST_CLOCK_ID_PATTERN).test(clock.clockId) || expected.clockId !== clock.clockId) {
      throw new JsonInputError([issueAt(['clock', 'clockId'], 'does not match the clock\'s startAt and advanceMs: pass a test-clock result unchanged')]);
    }
    if (utcInstant(clock.now) !== expected.now) {
      throw new JsonInputError([issueAt(['clock', 'now'], `is not startAt + advanceMs (${expected.now}): pass a test-clock result unchanged`)]);
    }
    return { at: expected.now, clockId: expected.clockId };
  }
  return { at: utcInstant(input.now ?? SANDBOX_DEFAULT_INSTANT), clockId: null };
}
