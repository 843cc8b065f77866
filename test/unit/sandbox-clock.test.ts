import fc from 'fast-check';
import { MAX_ADVANCE_MS, SANDBOX_DEFAULT_INSTANT, TestClock } from '../../functions/contract/schemas/sandbox';
import { evaluationInstant, testClock } from '../../functions/domain/sandbox/clock';
import { testClockRequest } from '../../functions/generated/bodies';
import { parseJsonBody, JsonInputError, type FieldIssue } from '../../functions/domain/json-input';

const readClock = (body: string | null) => testClock(parseJsonBody(body, testClockRequest, { optional: true }));

function refusal(run: () => unknown): FieldIssue[] {
  try {
    run();
  } catch (error) {
    if (error instanceof JsonInputError) return error.issues;
    throw error;
  }
  throw new Error('expected the input to be refused');
}

describe('test clock', () => {
  it('starts at the documented fixed instant when startAt is missing, never the wall clock', () => {
    for (const body of [null, '', '  \n', '{}']) {
      const clock = readClock(body);
      expect(clock).toMatchObject({ startAt: SANDBOX_DEFAULT_INSTANT, now: SANDBOX_DEFAULT_INSTANT, advanceMs: 0, startAtSource: 'DEFAULT' });
      expect(TestClock.parse(clock)).toEqual(clock);
    }
  });

  it('advances startAt by advanceMs and normalises to UTC milliseconds', () => {
    const clock = readClock(JSON.stringify({ startAt: '2026-03-01T09:00:00+01:00', advanceMs: 90 * 60_000 }));
    expect(clock).toMatchObject({ startAt: '2026-03-01T08:00:00.000Z', now: '2026-03-01T09:30:00.000Z', advanceMs: 5_400_000, startAtSource: 'REQUEST' });
  });

  it('derives the clock id from the normalised reading: same reading same id, different reading different id', () => {
    const a = readClock('{"startAt":"2026-03-01T09:00:00+01:00","advanceMs":1000}');
    const b = readClock('{"advanceMs":1000,"startAt":"2026-03-01T08:00:00.000Z"}');
    const c = readClock('{"startAt":"2026-03-01T09:00:00+01:00","advanceMs":1001}');
    const d = readClock('{"startAt":"2026-03-01T09:00:00.001+01:00","advanceMs":1000}');
    expect(a.clockId).toBe(b.clockId);
    expect(new Set([a.clockId, c.clockId, d.clockId]).size).toBe(3);
    expect(a.clockId).toMatch(/^tclk_[0-9a-f]{32}$/);
  });

  it('gives the same output for the same input, whatever the call order (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: 0, max: MAX_ADVANCE_MS }),
        (start, advanceMs) => {
          const request = { startAt: start.toISOString(), advanceMs };
          const first = testClock(request);
          expect(testClock(request)).toEqual(first);
          expect(Date.parse(first.now) - Date.parse(first.startAt)).toBe(advanceMs);
        },
      ),
    );
  });

  it.each([
    ['a JSON array', '[]', '(body)'],
    ['a JSON string', '"2026-01-01T00:00:00Z"', '(body)'],
    ['JSON null', 'null', '(body)'],
    ['a number', '42', '(body)'],
    ['malformed JSON', '{"advanceMs": 1', '(body)'],
    ['form encoding', 'advanceMs=10', '(body)'],
    ['a numeric string advanceMs', '{"advanceMs":"100"}', 'advanceMs'],
    ['a boolean advanceMs', '{"advanceMs":true}', 'advanceMs'],
    ['a null advanceMs', '{"advanceMs":null}', 'advanceMs'],
    ['a negative advanceMs', '{"advanceMs":-1}', 'advanceMs'],
    ['a fractional advanceMs', '{"advanceMs":1.5}', 'advanceMs'],
    ['an absurdly large advanceMs', `{"advanceMs":${MAX_ADVANCE_MS + 1}}`, 'advanceMs'],
    ['an overflowing advanceMs', '{"advanceMs":1e400}', 'advanceMs'],
    ['a date-only startAt', '{"startAt":"2026-01-01"}', 'startAt'],
    ['a startAt without offset', '{"startAt":"2026-01-01T00:00:00"}', 'startAt'],
    ['an impossible startAt', '{"startAt":"2026-02-30T00:00:00Z"}', 'startAt'],
    ['a numeric startAt', '{"startAt":1767225600000}', 'startAt'],
    ['an unknown field', '{"advanceMs":1,"speed":2}', 'speed'],
  ])('refuses %s, naming the field', (_what, body, field) => {
    const issues = refusal(() => readClock(body));
    expect(issues[0].field).toBe(field);
    expect(issues[0].detail.length).toBeGreaterThan(5);
  });

  it('refuses an advance past the last instant RFC 3339 can write', () => {
    const issues = refusal(() => readClock(JSON.stringify({ startAt: '9999-12-31T00:00:00Z', advanceMs: 86_400_000 })));
    expect(issues[0].field).toBe('advanceMs');
  });
});

describe('evaluation instant', () => {
  it('takes a test-clock result as its now', () => {
    const clock = testClock({ startAt: '2026-05-01T00:00:00Z', advanceMs: 3_600_000 });
    expect(evaluationInstant({ clock })).toEqual({ at: '2026-05-01T01:00:00.000Z', clockId: clock.clockId });
  });

  it('takes an explicit now, else the fixed default', () => {
    expect(evaluationInstant({ now: '2026-05-01T02:00:00+02:00' })).toEqual({ at: '2026-05-01T00:00:00.000Z', clockId: null });
    expect(evaluationInstant({})).toEqual({ at: SANDBOX_DEFAULT_INSTANT, clockId: null });
  });

  it('refuses an edited clock and a clock given together with now', () => {
    const clock = testClock({ startAt: '2026-05-01T00:00:00Z', advanceMs: 3_600_000 });
    expect(refusal(() => evaluationInstant({ clock: { ...clock, now: '2027-01-01T00:00:00.000Z' } }))[0].field).toBe('clock.now');
    expect(refusal(() => evaluationInstant({ clock: { ...clock, advanceMs: 1 } }))[0].field).toBe('clock.clockId');
    expect(refusal(() => evaluationInstant({ clock, now: '2026-05-01T00:00:00Z' }))[0].field).toBe('now');
  });
});
