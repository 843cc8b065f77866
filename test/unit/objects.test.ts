import { LivingObjectResolution } from '../../functions/contract/schemas/objects';
import {
  isFresh,
  objectDisposition,
  overallDisposition,
  resolveObject,
  rightsState,
  type ObjectHead,
  type ObjectWindowEntry,
} from '../../functions/domain/objects';

const T0 = '2026-06-01T12:00:00.000Z';
const minutes = (n: number) => new Date(Date.parse(T0) + n * 60_000).toISOString();

function head(overrides: Partial<ObjectHead> = {}, content: Partial<ObjectHead['content']> = {}): ObjectHead {
  return {
    kind: 'OBJECT',
    reference: 'ORD-1',
    version: 2,
    evidence: { version: 2 },
    ...overrides,
    content: {
      reference: 'ORD-1',
      objectType: 'ORDER',
      businessReference: 'ORDER 1',
      title: 'Order 1',
      authority: 'Service platform',
      state: 'DELIVERED',
      stateSince: minutes(-120),
      version: 2,
      freshnessSeconds: 3600,
      ...content,
    },
  };
}

function entry(at: string, state: string, lastObservedAt: string | null, h = head({}, { state })): ObjectWindowEntry {
  return { at, entry: { at, type: 'AUTHORITY_OBSERVED', state, source: 'SYNC' }, view: { state, lastObservedAt }, head: h };
}

const live = { at: T0, historical: false };

describe('freshness', () => {
  it('is fresh when the latest observation lies within the window', () => {
    expect(isFresh(minutes(-59), 3600, live)).toBe(true);
    expect(isFresh(minutes(-60), 3600, live)).toBe(true);
  });
  it('is not fresh outside the window, without observation, or for a historical view', () => {
    expect(isFresh(minutes(-61), 3600, live)).toBe(false);
    expect(isFresh(null, 3600, live)).toBe(false);
    expect(isFresh(minutes(-1), 3600, { at: T0, historical: true })).toBe(false);
  });
});

describe('disposition', () => {
  it('is UNKNOWN when nothing is known at the instant', () => {
    expect(objectDisposition(undefined, live)).toBe('UNKNOWN');
  });
  it('is HISTORICAL_ONLY for a past view, and for superseded or archived records', () => {
    expect(objectDisposition(entry(minutes(-5), 'DELIVERED', minutes(-5)), { at: T0, historical: true })).toBe('HISTORICAL_ONLY');
    expect(objectDisposition(entry(minutes(-5), 'SUPERSEDED', minutes(-5)), live)).toBe('HISTORICAL_ONLY');
    expect(objectDisposition(entry(minutes(-5), 'ARCHIVED', minutes(-5)), live)).toBe('HISTORICAL_ONLY');
  });
  it('is MODIFIED when the version shown is newer than its evidence', () => {
    const e = entry(minutes(-5), 'ACTIVE', minutes(-5), head({ version: 3, evidence: { version: 2 } }, { state: 'ACTIVE', version: 3 }));
    expect(objectDisposition(e, live)).toBe('MODIFIED');
  });
  it('is STALE when not fresh, CURRENT otherwise', () => {
    expect(objectDisposition(entry(minutes(-5), 'DELIVERED', minutes(-90)), live)).toBe('STALE');
    expect(objectDisposition(entry(minutes(-5), 'DELIVERED', null), live)).toBe('STALE');
    expect(objectDisposition(entry(minutes(-5), 'DELIVERED', minutes(-5)), live)).toBe('CURRENT');
  });
  it('takes precedence in the documented order', () => {
    // historical beats modified and stale
    const modifiedStale = entry(minutes(-5), 'ACTIVE', null, head({ version: 3, evidence: { version: 2 } }, { state: 'ACTIVE', version: 3 }));
    expect(objectDisposition(modifiedStale, { at: T0, historical: true })).toBe('HISTORICAL_ONLY');
    // modified beats stale
    expect(objectDisposition(modifiedStale, live)).toBe('MODIFIED');
  });
});

describe('overall disposition', () => {
  it('is TRUSTED only when current, in good standing and integrity is confirmed', () => {
    expect(overallDisposition('DELIVERED', 'CURRENT', true)).toBe('TRUSTED');
    expect(overallDisposition('DELIVERED', 'CURRENT', false)).toBe('UNVERIFIED');
  });
  it('names the first problem a person must know about', () => {
    expect(overallDisposition('UNKNOWN', 'UNKNOWN', false)).toBe('UNKNOWN');
    expect(overallDisposition('CANCELLED', 'CURRENT', true)).toBe('REVOKED');
    expect(overallDisposition('CANCELLED', 'STALE', true)).toBe('REVOKED');
    expect(overallDisposition('SUPERSEDED', 'HISTORICAL_ONLY', true)).toBe('HISTORICAL');
    expect(overallDisposition('ACTIVE', 'MODIFIED', false)).toBe('CHANGED');
    expect(overallDisposition('ACTIVE', 'STALE', true)).toBe('STALE');
  });
});

describe('rights state', () => {
  it('is REVOKED_BY_LIFECYCLE whenever the lifecycle withdrew the object', () => {
    for (const state of ['CANCELLED', 'REVOKED', 'RETURNED', 'RECALLED', 'VOIDED']) {
      expect(rightsState(state, 'CURRENT', true)).toBe('REVOKED_BY_LIFECYCLE');
      expect(rightsState(state, 'STALE', false)).toBe('REVOKED_BY_LIFECYCLE');
    }
  });
  it('requires review for anything short of current with confirmed integrity', () => {
    expect(rightsState('DELIVERED', 'STALE', true)).toBe('REVIEW_REQUIRED');
    expect(rightsState('DELIVERED', 'MODIFIED', true)).toBe('REVIEW_REQUIRED');
    expect(rightsState('DELIVERED', 'HISTORICAL_ONLY', true)).toBe('REVIEW_REQUIRED');
    expect(rightsState('DELIVERED', 'CURRENT', false)).toBe('REVIEW_REQUIRED');
    expect(rightsState('SUPERSEDED', 'CURRENT', true)).toBe('REVIEW_REQUIRED');
  });
  it('asserts no public right otherwise', () => {
    expect(rightsState('DELIVERED', 'CURRENT', true)).toBe('NO_PUBLIC_RIGHT_ASSERTED');
  });
});

describe('resolveObject', () => {
  const base = 'https://api.example.test/prod';
  const entries = [entry(minutes(-5), 'DELIVERED', minutes(-5)), entry(minutes(-30), 'DELIVERED', minutes(-90))];

  it('builds a LivingObjectResolution with the timeline oldest first', () => {
    const r = resolveObject({ reference: 'ORD-1', entries, evaluation: live, integrityConfirmed: true, baseUrl: base });
    expect(LivingObjectResolution.safeParse(r).success).toBe(true);
    expect(r.timeline!.map((e) => e.at)).toEqual([minutes(-30), minutes(-5)]);
    expect(r.current).toMatchObject({ state: 'DELIVERED', disposition: 'CURRENT', fresh: true, observedAt: minutes(-5), evidenceIntegrityConfirmed: true, overallDisposition: 'TRUSTED', evaluatedAt: T0 });
  });

  it('presents order-like records with a CustomerAccountOrderCard that never discloses payment or refund state', () => {
    const r = resolveObject({ reference: 'ORD-1', entries, evaluation: live, integrityConfirmed: false, baseUrl: base });
    const card = r.presentations!.customerAccountOrder!;
    expect(card).toMatchObject({
      schemaVersion: 'svc.customer-account-order-card.v1',
      businessReference: 'ORDER 1',
      currentState: 'DELIVERED',
      disposition: 'CURRENT',
      evidenceIntegrity: 'NOT_CONFIRMED',
      rightsState: 'REVIEW_REQUIRED',
      paymentState: null,
      refundState: null,
      lastAuthorityCheck: minutes(-5),
      disclosure: { containsCustomerPii: false, containsPaymentAccountData: false },
    });
    expect(card.actions).toEqual({
      verifyCurrentStatus: `${base}/verify?reference=ORD-1`,
      trustReceipt: `${base}/trust-receipt/ORD-1`,
      livingTransactionJson: `${base}/v1/objects/ORD-1`,
    });
  });

  it('gives non-order objects no order card', () => {
    const device = [entry(minutes(-5), 'IN_SERVICE', minutes(-5), head({}, { objectType: 'DEVICE', state: 'IN_SERVICE' }))];
    const r = resolveObject({ reference: 'ORD-1', entries: device, evaluation: live, integrityConfirmed: true, baseUrl: base });
    expect(r.presentations).toBeUndefined();
  });

  it('answers UNKNOWN with an empty timeline when nothing is known at the instant', () => {
    const r = resolveObject({ reference: 'ORD-1', entries: [], evaluation: { at: T0, historical: true }, integrityConfirmed: true, baseUrl: base });
    expect(r.current).toMatchObject({ state: 'UNKNOWN', disposition: 'UNKNOWN', overallDisposition: 'UNKNOWN', fresh: false, observedAt: null, evidenceIntegrityConfirmed: false });
    expect(r.timeline).toEqual([]);
    expect(r.object).toEqual({ reference: 'ORD-1' });
  });

  it('projects only public content fields, whatever else the stored head carries', () => {
    const h = head({ restricted: { email: 'someone@example.invalid' } }) as ObjectHead & { content: Record<string, unknown> };
    (h.content as Record<string, unknown>).customerEmail = 'leak@example.invalid';
    const r = resolveObject({ reference: 'ORD-1', entries: [entry(minutes(-1), 'DELIVERED', minutes(-1), h)], evaluation: live, integrityConfirmed: true, baseUrl: base });
    const text = JSON.stringify(r);
    expect(text).not.toContain('example.invalid');
    expect(Object.keys(r.object).sort()).toEqual(['authority', 'businessReference', 'freshnessSeconds', 'objectType', 'reference', 'state', 'stateSince', 'title', 'version']);
  });
});
