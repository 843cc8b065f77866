import { LIFECYCLE_STATES, type LifecycleState } from '../../functions/contract/lifecycle';
import type { CanonicalEvent } from '../../functions/domain/ingress/event';
import { parseCanonicalEvent, EventInputError } from '../../functions/domain/ingress/event';
import { decide, type CurrentRecord } from '../../functions/domain/ingress/rules';
import { isTerminalObjectState, objectTransitionRefusal } from '../../functions/domain/kinds/object';
import { credentialTransitionRefusal } from '../../functions/domain/kinds/credential';
import { lifecycleClass } from '../../functions/domain/lifecycle';
import { buildEvent } from '../../lib/ingress/emit';

const NOW = '2026-03-01T12:00:00.000Z';
const NEWEST = '2026-03-01T10:00:00.000Z';
const STATES = Object.keys(LIFECYCLE_STATES) as LifecycleState[];

function event(type: string, reference: string, fields: Record<string, string>, at = '2026-03-01T11:00:00.000Z'): CanonicalEvent {
  const built = buildEvent(type, reference, fields, at);
  return parseCanonicalEvent(JSON.stringify(built), [type]);
}
const object = (state: string, objectType = 'ORDER'): CurrentRecord => ({ exists: true, kind: 'OBJECT', newestAt: NEWEST, state, content: { objectType } });

describe('object transitions (the table by lifecycle class)', () => {
  test.each(STATES.flatMap((from) => STATES.map((to) => [from, to] as const)))('%s -> %s', (from, to) => {
    const why = objectTransitionRefusal(from, to);
    const expected =
      from !== to &&
      (lifecycleClass(from) === 'GOOD_STANDING' || (lifecycleClass(from) === 'REVOKED' && lifecycleClass(to) === 'HISTORICAL'));
    expect(why === null).toBe(expected);
  });

  test('historical states are terminal: nothing follows them', () => {
    expect(STATES.filter(isTerminalObjectState)).toEqual(['SUPERSEDED', 'ARCHIVED']);
    for (const to of STATES) expect(objectTransitionRefusal('ARCHIVED', to)).not.toBeNull();
  });
});

describe('credential transitions (the credential lifecycle of functions/domain/kinds/credential.ts)', () => {
  test.each([
    ['ACTIVE', 'SUSPENDED', true],
    ['ACTIVE', 'REVOKED', true],
    ['SUSPENDED', 'ACTIVE', true],
    ['SUSPENDED', 'REVOKED', true],
    ['ACTIVE', 'ACTIVE', false],
    ['REVOKED', 'ACTIVE', false],
    ['REVOKED', 'SUSPENDED', false],
  ])('%s -> %s allowed: %s', (from, to, allowed) => {
    expect(credentialTransitionRefusal(from, to) === null).toBe(allowed);
  });
});

describe('decide', () => {
  const changed = (state: string, extra: Record<string, string> = {}, at?: string) => event('svc.living-object.state-changed.v1', 'ORD-1', { state, ...extra }, at);

  test('a newer allowed change advances the current state', () => {
    expect(decide(changed('RETURNED'), object('DELIVERED'), NOW)).toEqual({ ok: true, effect: 'ADVANCES_CURRENT_STATE' });
  });

  test('a change from a terminal state is 409', () => {
    expect(decide(changed('PLACED'), object('ARCHIVED'), NOW)).toMatchObject({ ok: false, status: 409, code: 'TRANSITION_FORBIDDEN' });
  });

  test('an older event is recorded as history and does not touch the current state, whatever that state is', () => {
    const late = changed('SHIPPED', { previousState: 'CONFIRMED' }, '2026-03-01T09:00:00.000Z');
    expect(decide(late, object('ARCHIVED'), NOW)).toEqual({ ok: true, effect: 'RECORDED_AS_HISTORY' });
    // At the same instant as the newest entry: late too (one entry per instant).
    expect(decide(changed('SHIPPED', {}, NEWEST), object('DELIVERED'), NOW)).toEqual({ ok: true, effect: 'RECORDED_AS_HISTORY' });
  });

  test('a late change must still be an allowed transition between its own states', () => {
    const late = changed('PLACED', { previousState: 'ARCHIVED' }, '2026-03-01T09:00:00.000Z');
    expect(decide(late, object('DELIVERED'), NOW)).toMatchObject({ ok: false, status: 409 });
  });

  test('no record: 404 (events never create one); another kind: 409; another object type: 409', () => {
    expect(decide(changed('PLACED'), { exists: false, kind: null, newestAt: null, state: null, content: null }, NOW)).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(decide(changed('PLACED'), { exists: true, kind: 'CREDENTIAL', newestAt: NEWEST, state: 'ACTIVE', content: null }, NOW)).toMatchObject({ status: 409, code: 'WRONG_RECORD_KIND' });
    expect(decide(changed('RETURNED'), object('DELIVERED', 'WARRANTY'), NOW)).toMatchObject({ status: 409, code: 'TRANSITION_FORBIDDEN' });
  });

  test('an observation must confirm the state held; late observations are history', () => {
    const observed = (state: string, at?: string) => event('svc.living-object.authority-observed.v1', 'ORD-1', { state }, at);
    expect(decide(observed('DELIVERED'), object('DELIVERED'), NOW)).toEqual({ ok: true, effect: 'CONFIRMS_CURRENT_STATE' });
    expect(decide(observed('SHIPPED'), object('DELIVERED'), NOW)).toMatchObject({ ok: false, status: 409 });
    expect(decide(observed('SHIPPED', '2026-03-01T09:00:00.000Z'), object('DELIVERED'), NOW)).toEqual({ ok: true, effect: 'RECORDED_AS_HISTORY' });
  });

  test('an instant beyond the replay window in the future is 422 naming the field', () => {
    expect(decide(changed('RETURNED', {}, '2026-03-01T12:06:00.000Z'), object('DELIVERED'), NOW)).toMatchObject({ status: 422, field: 'data.changedAt' });
    expect(decide(changed('RETURNED', {}, '2026-03-01T12:04:00.000Z'), object('DELIVERED'), NOW)).toMatchObject({ ok: true });
  });

  test('credential statuses outside the credential lifecycle are 422', () => {
    const e = event('svc.credential.status-changed.v1', 'CRED-1', { status: 'EXPIRED' });
    expect(decide(e, { exists: true, kind: 'CREDENTIAL', newestAt: NEWEST, state: 'ACTIVE', content: null }, NOW)).toMatchObject({ status: 422, field: 'data.status' });
  });

  test('source snapshots advance when newer, else are history', () => {
    const proof: CurrentRecord = { exists: true, kind: 'COMMERCIAL_PROOF', newestAt: NEWEST, state: 'DELIVERED', content: null };
    expect(decide(event('svc.commercial-proof.source-snapshot.v1', 'PRF-1', { sourceState: 'RETURNED' }), proof, NOW)).toEqual({ ok: true, effect: 'ADVANCES_CURRENT_STATE' });
    expect(decide(event('svc.commercial-proof.source-snapshot.v1', 'PRF-1', { sourceState: 'RETURNED' }, '2026-02-01T00:00:00Z'), proof, NOW)).toEqual({ ok: true, effect: 'RECORDED_AS_HISTORY' });
  });
});

describe('parseCanonicalEvent', () => {
  test('a type the source does not send is refused at field type', () => {
    const body = JSON.stringify(buildEvent('svc.living-object.state-changed.v1', 'ORD-1', { state: 'PLACED' }));
    try {
      parseCanonicalEvent(body, ['svc.commercial-proof.source-snapshot.v1']);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(EventInputError);
      expect((error as EventInputError).issues[0].field).toBe('type');
    }
  });
});
