import fc from 'fast-check';
import { LIFECYCLE_STATES } from '../../functions/contract/lifecycle';
import { ALLOWED_EVENTS, CREDENTIAL_EVENTS, type CredentialEvent } from '../../functions/domain/kinds/credential';
import { integrateEvents, type DerivedEntry, type EventToIntegrate, type RecordIntegration, type StoredTimelineEntry } from '../../functions/domain/ingress/integrate';
import { objectTransitionRefusal } from '../../functions/domain/kinds/object';
import { CredentialRecordInput, credentialFormat } from '../../lib/loader/formats/credential';
import { deriveStatusLists } from '../../lib/loader/lists';
import { ObjectRecordInput, objectFormat } from '../../lib/loader/formats/object';
import { ProofRecordInput, proofFormat } from '../../lib/loader/formats/proof';
import { STEP, at, expanded, credentialHistoryOf, digestOf, events, inForceAt, lifecycle, sequencedKeys, storedAfter, storedFrom, unchangedEntry } from '../support/timelines';

/**
 * The sequencer's pure rules (functions/domain/ingress/integrate.ts, docs/ingress.md#rules-of-order):
 * accepted events are placed in a record's timeline at the instants they state, whatever order they
 * arrive in; the lifecycle rules are applied again there; every entry's view is what the timeline
 * up to it says; and the current state is never rolled back by an older event.
 * Stored records come from the loader's own expansion, stored as the table holds them.
 */

const SEED = 20261124;
const OBJECT = 'OBJECT';
const CREDENTIAL = 'CREDENTIAL';
const PROOF = 'COMMERCIAL_PROOF';

type ObjectHistory = ObjectRecordInput['history'];
type CredentialHistory = CredentialRecordInput['history'];

const changeTo = (minute: number, state: string) => ({ type: 'STATE_CHANGED' as const, at: at(minute), state: state as keyof typeof LIFECYCLE_STATES });
const observation = (minute: number) => ({ type: 'AUTHORITY_OBSERVED' as const, at: at(minute), source: 'shop-authority' });

function storedObject(history: ObjectHistory, restricted?: Record<string, unknown>): StoredTimelineEntry[] {
  const input = ObjectRecordInput.parse({
    restricted,
    kind: 'OBJECT',
    reference: 'ORD-1',
    objectType: 'ORDER',
    businessReference: 'SO-2026-0001',
    title: 'Order SO-2026-0001',
    authority: 'shop.example',
    freshnessSeconds: 86_400,
    history,
  });
  return storedFrom(expanded(objectFormat, input));
}

/** A credential as stored after the loader's derive step, which writes its status-list slots into every version. */
function storedCredential(history: CredentialHistory, statusListIndex = 7): StoredTimelineEntry[] {
  const input = CredentialRecordInput.parse({
    kind: 'CREDENTIAL',
    reference: 'CRED-1',
    credentialType: 'MembershipCredential',
    title: 'Membership',
    issuer: 'did:web:issuer.example.org',
    validFrom: history[0].at,
    subject: { type: 'Member', claims: { level: 'gold' } },
    statusList: 'members-2026',
    statusListIndex,
    freshnessSeconds: 86_400,
    history,
  });
  const record = expanded(credentialFormat, input);
  deriveStatusLists([record]);
  return storedFrom(record);
}

function storedProof(synchronizations: { minute: number; state: string; n: number }[]): StoredTimelineEntry[] {
  const input = ProofRecordInput.parse({
    kind: 'COMMERCIAL_PROOF',
    reference: 'PRF-1',
    proofType: 'PURCHASE',
    title: 'Purchase of a bicycle',
    issuer: 'shop.example',
    issuedAt: at(0),
    claims: { amount: 420 },
    source: { system: 'commerce-platform', recordType: 'ORDER', digest: digestOf(0) },
    freshnessSeconds: 86_400,
    synchronizations: synchronizations.map((s) => ({ at: at(s.minute), state: s.state, digest: digestOf(s.n) })),
  });
  return storedFrom(expanded(proofFormat, input));
}

const outcomeOf = (integration: RecordIntegration, event: EventToIntegrate) => integration.outcomes.find((o) => o.key === event.key)!;
const entryOf = (integration: RecordIntegration, minute: number) => integration.entries.filter((e) => e.at === at(minute));
/** Entries the sequencer would write again (new ones and re-derived stored ones). */
const rewritten = (integration: RecordIntegration) => integration.entries.filter((e) => !unchangedEntry(e));
const highestVersion = (stored: readonly StoredTimelineEntry[]) => Math.max(...stored.map((e) => e.head.version));

function expectSetAside(integration: RecordIntegration, event: EventToIntegrate, reason: RegExp): void {
  const outcome = outcomeOf(integration, event);
  expect(outcome).toEqual({ key: event.key, sequenced: false, reason: expect.stringMatching(reason) });
  expect(integration.entries.some((e) => e.eventKey === event.key)).toBe(false);
}

/** Nothing to write and nothing to log: the record stays exactly as stored. */
function expectNothingChanged(integration: RecordIntegration, stored: readonly StoredTimelineEntry[]): void {
  expect(integration.newHeads).toEqual([]);
  expect(integration.entries.map((e) => e.id)).toEqual(stored.map((e) => e.id));
  expect(rewritten(integration)).toEqual([]);
}

describe('living objects: an event newer than the record advances or confirms it', () => {
  const stored = storedObject([changeTo(0, 'PLACED'), changeTo(10, 'SHIPPED')]);

  test('a newer state change is version max+1: the previous content with state, stateSince and version changed', () => {
    const event = events.stateChanged('e1', at(20), 'DELIVERED', 'SHIPPED');
    const result = integrateEvents(OBJECT, stored, [event]);

    expect(outcomeOf(result, event)).toEqual({ key: event.key, sequenced: true, entryAt: at(20), version: 3 });
    const previous = stored[1].head;
    expect(result.newHeads).toHaveLength(1);
    const head = result.newHeads[0];
    expect(head).toEqual({ kind: 'OBJECT', reference: 'ORD-1', version: 3, content: { ...previous.content, state: 'DELIVERED', stateSince: at(20), version: 3 }, evidence: null });
    // The store compares JSON: the new version keeps the content's field order.
    expect(Object.keys(head.content)).toEqual(Object.keys(previous.content));

    const [added] = entryOf(result, 20);
    expect(added).toMatchObject({ id: null, eventKey: event.key, stored: null, head });
    expect(added.entry).toEqual({ at: at(20), type: 'STATE_CHANGED', state: 'DELIVERED', previousState: 'SHIPPED', source: 'shop.example' });
    expect(added.view).toEqual({ state: 'DELIVERED', lastObservedAt: null });
    // Only the new entry is written; the stored ones are already true.
    expect(rewritten(result)).toEqual([added]);
  });

  test('the restricted data kept with the record goes with it into the new version (and stays out of its content)', () => {
    const restricted = { customerId: 'CUST-0042', note: 'left at the neighbour' };
    const kept = storedObject([changeTo(0, 'PLACED'), changeTo(10, 'SHIPPED')], restricted);
    const [head] = integrateEvents(OBJECT, kept, [events.stateChanged('e1', at(20), 'DELIVERED', 'SHIPPED')]).newHeads;
    expect(head.restricted).toEqual(restricted);
    expect(JSON.stringify(head.content)).not.toContain('CUST-0042');
  });

  test('an observation of the state held adds an entry (no version) and moves lastObservedAt', () => {
    const event = events.observed('e1', at(20), 'SHIPPED');
    const result = integrateEvents(OBJECT, stored, [event]);

    expect(outcomeOf(result, event)).toEqual({ key: event.key, sequenced: true, entryAt: at(20), version: null });
    expect(result.newHeads).toEqual([]);
    const [added] = entryOf(result, 20);
    expect(added.entry).toEqual({ at: at(20), type: 'AUTHORITY_OBSERVED', state: 'SHIPPED', source: 'shop.example' });
    expect(added.view).toEqual({ state: 'SHIPPED', lastObservedAt: at(20) });
    expect(added.head).toEqual(stored[1].head);
    expect(rewritten(result)).toEqual([added]);
  });

  test('a change after a terminal state is set aside with the reason, and nothing changes', () => {
    const ended = storedObject([changeTo(0, 'PLACED'), changeTo(10, 'CANCELLED'), changeTo(20, 'ARCHIVED')]);
    const event = events.stateChanged('e1', at(30), 'SHIPPED', 'ARCHIVED');
    const result = integrateEvents(OBJECT, ended, [event]);
    expectSetAside(result, event, /ARCHIVED is terminal/);
    expectNothingChanged(result, ended);
  });

  test('a revoked object may only become historical', () => {
    const cancelled = storedObject([changeTo(0, 'PLACED'), changeTo(10, 'CANCELLED')]);
    const back = events.stateChanged('e1', at(20), 'PLACED', 'CANCELLED');
    const refused = integrateEvents(OBJECT, cancelled, [back]);
    expectSetAside(refused, back, /CANCELLED \(revoked\) may be followed only by historical states/);
    expectNothingChanged(refused, cancelled);

    const archived = events.stateChanged('e2', at(20), 'ARCHIVED', 'CANCELLED');
    expect(outcomeOf(integrateEvents(OBJECT, cancelled, [archived]), archived)).toMatchObject({ sequenced: true, version: 3 });
  });

  test('a "change" to the state already held is set aside: a confirmation is an observation', () => {
    const event = events.stateChanged('e1', at(20), 'SHIPPED', 'SHIPPED');
    const result = integrateEvents(OBJECT, stored, [event]);
    expectSetAside(result, event, /already SHIPPED.*authority-observed/);
    expectNothingChanged(result, stored);
  });

  test('an observation of a state the object is not in is set aside', () => {
    const event = events.observed('e1', at(20), 'DELIVERED');
    const result = integrateEvents(OBJECT, stored, [event]);
    expectSetAside(result, event, /observed DELIVERED .* but the object was SHIPPED then/);
    expectNothingChanged(result, stored);
  });

  test('an event stating an instant before the record\'s first entry is set aside', () => {
    const change = events.stateChanged('e1', at(-5), 'SHIPPED', 'PLACED');
    const seen = events.observed('e2', at(-1), 'PLACED');
    const result = integrateEvents(OBJECT, stored, [change, seen]);
    expectSetAside(result, change, /before the object's first state/);
    expectSetAside(result, seen, /before the object's first state/);
    expectNothingChanged(result, stored);
  });

  test('an event already integrated (a stored entry carries its key) is reported sequenced again, with no second entry', () => {
    const change = events.stateChanged('e1', at(20), 'DELIVERED', 'SHIPPED');
    const seen = events.observed('e2', at(30), 'DELIVERED');
    const first = integrateEvents(OBJECT, stored, [change, seen]);
    const after = storedAfter(stored, first.entries);

    const again = integrateEvents(OBJECT, after, [seen, change]);
    expect(again.outcomes).toEqual(expect.arrayContaining([outcomeOf(first, change), outcomeOf(first, seen)]));
    expect(outcomeOf(again, change)).toEqual({ key: change.key, sequenced: true, entryAt: at(20), version: 3 });
    expectNothingChanged(again, after);
    expect(again.entries.filter((e) => e.eventKey === change.key)).toHaveLength(1);
  });

  test('events about another kind of record are set aside, and a record no event changes refuses them all', () => {
    const wrong = events.statusChanged('e1', at(20), 'REVOKED', 'ACTIVE', 'ORD-1');
    const result = integrateEvents(OBJECT, stored, [wrong]);
    expectSetAside(result, wrong, /svc\.credential\.status-changed\.v1 is not about a living object/);
    expectNothingChanged(result, stored);

    const list = integrateEvents('STATUS_LIST', stored, [events.observed('e2', at(20), 'SHIPPED')]);
    expect(list).toEqual({ entries: [], newHeads: [], outcomes: [{ key: 'P#shop#e2', sequenced: false, reason: expect.stringMatching(/STATUS_LIST, which no event changes/) }] });
  });
});

describe('living objects: late events are placed at their own instant', () => {
  // PLACED(v1) at 0, SHIPPED(v2) at 20, an observation at 30, DELIVERED(v3) at 40.
  const stored = storedObject([changeTo(0, 'PLACED'), changeTo(20, 'SHIPPED'), observation(30), changeTo(40, 'DELIVERED')]);

  test('a late change between two stored changes: order by instant, current state kept, the next change follows it', () => {
    const late = events.stateChanged('late', at(10), 'CONFIRMED', 'PLACED');
    const result = integrateEvents(OBJECT, stored, [late]);

    expect(result.entries.map((e) => e.at)).toEqual([at(0), at(10), at(20), at(30), at(40)]);
    // Versions count what the service learned, in the order it learned it: the late one is 4.
    expect(outcomeOf(result, late)).toEqual({ key: late.key, sequenced: true, entryAt: at(10), version: 4 });
    expect(result.newHeads.map((h) => h.version)).toEqual([4]);
    expect(result.newHeads[0].content).toEqual({ ...stored[0].head.content, state: 'CONFIRMED', stateSince: at(10), version: 4 });

    const newest = result.entries[result.entries.length - 1];
    expect(newest.view).toEqual({ state: 'DELIVERED', lastObservedAt: at(30) });
    expect(newest.head).toEqual(stored[3].head);
    expect(entryOf(result, 20)[0].entry).toMatchObject({ state: 'SHIPPED', previousState: 'CONFIRMED' });

    // As of the late instant (and until the next change) the record shows the late state.
    for (const minute of [10, 15, 19]) {
      const view = inForceAt(result.entries, at(minute))!;
      expect(view.view).toEqual({ state: 'CONFIRMED', lastObservedAt: null });
      expect(view.head.content).toMatchObject({ state: 'CONFIRMED', version: 4 });
    }
    expect(inForceAt(result.entries, at(5))!.view).toEqual({ state: 'PLACED', lastObservedAt: null });
    // Written: the late entry, and the change after it (its previousState); nothing else.
    expect(rewritten(result).map((e) => e.at)).toEqual([at(10), at(20)]);
  });

  test('a late change contradicted by a later stored observation is set aside', () => {
    // The authority confirmed SHIPPED at 30, so the object cannot have become RETURNED at 25.
    const late = events.stateChanged('late', at(25), 'RETURNED', 'SHIPPED');
    const result = integrateEvents(OBJECT, stored, [late]);
    expectSetAside(result, late, /observed SHIPPED at .*30:00\.000Z, after this change to RETURNED/);
    expectNothingChanged(result, stored);
  });

  test('a late change the following stored change could not follow is set aside', () => {
    // CANCELLED at 10 would make the SHIPPED at 20 a revoked object coming back.
    const late = events.stateChanged('late', at(10), 'CANCELLED', 'PLACED');
    const result = integrateEvents(OBJECT, stored, [late]);
    expectSetAside(result, late, /the change to SHIPPED at .* could not follow CANCELLED/);
    expectNothingChanged(result, stored);
  });

  test('a late observation moves lastObservedAt of the entries after it, until the next observation', () => {
    const late = events.observed('late', at(5), 'PLACED');
    const result = integrateEvents(OBJECT, stored, [late]);
    expect(result.entries.map((e) => [e.at, e.view.lastObservedAt])).toEqual([
      [at(0), null],
      [at(5), at(5)],
      [at(20), at(5)],
      [at(30), at(30)],
      [at(40), at(30)],
    ]);
    expect(rewritten(result).map((e) => e.at)).toEqual([at(5), at(20)]);
    expect(result.newHeads).toEqual([]);
  });

  test('a late observation of a state the object was not in then is set aside', () => {
    const late = events.observed('late', at(25), 'PLACED');
    const result = integrateEvents(OBJECT, stored, [late]);
    expectSetAside(result, late, /observed PLACED .* but the object was SHIPPED then/);
    expectNothingChanged(result, stored);
  });

  test('events of one batch are integrated in the order of their instants, whatever order they arrived in', () => {
    const batch = [
      events.stateChanged('a', at(50), 'RETURNED', 'DELIVERED'),
      events.stateChanged('b', at(10), 'CONFIRMED', 'PLACED'),
      events.observed('c', at(45), 'DELIVERED'),
      events.stateChanged('d', at(60), 'ARCHIVED', 'RETURNED'),
    ];
    const forward = integrateEvents(OBJECT, stored, batch);
    const backward = integrateEvents(OBJECT, stored, [...batch].reverse());
    expect(backward).toEqual({ ...forward, outcomes: expect.arrayContaining(forward.outcomes) });
    expect(forward.outcomes.map((o) => [o.key, o.sequenced && o.version])).toEqual([
      ['P#shop#b', 4],
      ['P#shop#c', null],
      ['P#shop#a', 5],
      ['P#shop#d', 6],
    ]);
    expect(forward.entries[forward.entries.length - 1].view).toEqual({ state: 'ARCHIVED', lastObservedAt: at(45) });
  });
});

describe('credentials: the status follows the issuer\'s statements', () => {
  const stored = storedCredential([lifecycle('ISSUED', 0)]);

  test('SUSPENDED, then REINSTATED (ACTIVE), then REVOKED; nothing after REVOKED', () => {
    const suspended = events.statusChanged('s', at(10), 'SUSPENDED', 'ACTIVE');
    const reinstated = events.statusChanged('r', at(20), 'ACTIVE', 'SUSPENDED');
    const revoked = events.statusChanged('v', at(30), 'REVOKED', 'ACTIVE');
    const afterRevoked = events.statusChanged('x', at(40), 'ACTIVE', 'REVOKED');
    // Arrival order differs from instant order on purpose.
    const result = integrateEvents(CREDENTIAL, stored, [afterRevoked, revoked, suspended, reinstated]);

    expect(result.outcomes.filter((o) => o.sequenced).map((o) => [o.key, o.sequenced && o.version])).toEqual([
      [suspended.key, 2],
      [reinstated.key, 3],
      [revoked.key, 4],
    ]);
    expectSetAside(result, afterRevoked, /REVOKED is terminal/);
    expect(result.entries.map((e) => [e.entry.type, e.entry.previousStatus, e.entry.status])).toEqual([
      ['ISSUED', null, 'ACTIVE'],
      ['SUSPENDED', 'ACTIVE', 'SUSPENDED'],
      ['REINSTATED', 'SUSPENDED', 'ACTIVE'],
      ['REVOKED', 'ACTIVE', 'REVOKED'],
    ]);
    // The issuer stating a status is the issuer confirming it at that instant.
    for (const e of result.entries) expect(e.view).toEqual({ status: e.entry.status, lastConfirmedAt: e.at });

    const issued = stored[0].head.content;
    expect(issued.statusSlots).toEqual([
      { statusPurpose: 'revocation', listId: 'members-2026-revocation', statusListIndex: 7 },
      { statusPurpose: 'suspension', listId: 'members-2026-suspension', statusListIndex: 7 },
    ]);
    for (const head of result.newHeads) {
      expect(head.content).toEqual({ ...issued, status: head.content.status, statusSince: head.content.statusSince, version: head.version });
      expect(Object.keys(head.content)).toEqual(Object.keys(issued));
    }
    expect(result.newHeads.map((h) => [h.version, h.content.status, h.content.statusSince])).toEqual([
      [2, 'SUSPENDED', at(10)],
      [3, 'ACTIVE', at(20)],
      [4, 'REVOKED', at(30)],
    ]);

    // Stored again, a revoked credential takes nothing more, not even a reinstatement after it.
    const after = storedAfter(stored, result.entries);
    const later = events.statusChanged('y', at(50), 'SUSPENDED', 'REVOKED');
    const refused = integrateEvents(CREDENTIAL, after, [later, afterRevoked]);
    expectSetAside(refused, later, /REVOKED is terminal/);
    expectNothingChanged(refused, after);
  });

  test('a status the credential already has, or one it cannot change to, is set aside', () => {
    const same = events.statusChanged('a', at(10), 'ACTIVE', 'ACTIVE');
    const unknown = events.statusChanged('b', at(10), 'EXPIRED', 'ACTIVE');
    const early = events.statusChanged('c', at(-10), 'SUSPENDED', 'ACTIVE');
    const result = integrateEvents(CREDENTIAL, stored, [same, unknown, early]);
    expectSetAside(result, same, /already ACTIVE/);
    expectSetAside(result, unknown, /EXPIRED is not one a credential changes to/);
    expectSetAside(result, early, /before the credential was issued/);
    expectNothingChanged(result, stored);
  });

  test('late statuses: one contradicted by a later confirmation, or one the next stored change cannot follow, is set aside', () => {
    const history = storedCredential([lifecycle('ISSUED', 0), { type: 'AUTHORITY_OBSERVED', at: at(20), source: 'issuer-registry' }, lifecycle('SUSPENDED', 40)]);
    const contradicted = events.statusChanged('a', at(10), 'SUSPENDED', 'ACTIVE');
    const cannotFollow = events.statusChanged('b', at(30), 'REVOKED', 'ACTIVE');
    const result = integrateEvents(CREDENTIAL, history, [contradicted, cannotFollow]);
    expectSetAside(result, contradicted, /the issuer confirmed ACTIVE at .*, after this change to SUSPENDED/);
    expectSetAside(result, cannotFollow, /the SUSPENDED at .* could not follow REVOKED/);
    expectNothingChanged(result, history);

    // A late suspension lifted again before the stored revocation: each fits its neighbours, and the
    // stored revocation now follows the reinstatement.
    const revokedLater = storedCredential([lifecycle('ISSUED', 0), { type: 'AUTHORITY_OBSERVED', at: at(20), source: 'issuer-registry' }, lifecycle('REVOKED', 40)]);
    const suspended = events.statusChanged('c', at(25), 'SUSPENDED', 'ACTIVE');
    const reinstated = events.statusChanged('d', at(30), 'ACTIVE', 'SUSPENDED');
    const fits = integrateEvents(CREDENTIAL, revokedLater, [reinstated, suspended]);
    expect(sequencedKeys(fits)).toEqual([suspended.key, reinstated.key]);
    expect(fits.entries.map((e) => [e.at, e.entry.type, e.entry.previousStatus, e.view.status, e.head.version])).toEqual([
      [at(0), 'ISSUED', null, 'ACTIVE', 1],
      [at(20), 'AUTHORITY_OBSERVED', 'ACTIVE', 'ACTIVE', 1],
      [at(25), 'SUSPENDED', 'ACTIVE', 'SUSPENDED', 3],
      [at(30), 'REINSTATED', 'SUSPENDED', 'ACTIVE', 4],
      [at(40), 'REVOKED', 'ACTIVE', 'REVOKED', 2],
    ]);
    expect(fits.entries[4].head).toEqual(revokedLater[2].head);
  });
});

describe('events that fit only with others of their batch', () => {
  test('late statuses that fit only together (a suspension and its reinstatement before a stored suspension) are integrated together', () => {
    const history = storedCredential([lifecycle('ISSUED', 0), { type: 'AUTHORITY_OBSERVED', at: at(20), source: 'issuer-registry' }, lifecycle('SUSPENDED', 40)]);
    // Alone, each breaks a neighbour: SUSPENDED@25 would be followed by the stored SUSPENDED@40, and ACTIVE@30 repeats ACTIVE.
    const suspended = events.statusChanged('c', at(25), 'SUSPENDED', 'ACTIVE');
    const reinstated = events.statusChanged('d', at(30), 'ACTIVE', 'SUSPENDED');
    expect(sequencedKeys(integrateEvents(CREDENTIAL, history, [suspended]))).toEqual([]);
    expect(sequencedKeys(integrateEvents(CREDENTIAL, history, [reinstated]))).toEqual([]);
    const together = integrateEvents(CREDENTIAL, history, [reinstated, suspended]);
    expect(sequencedKeys(together)).toEqual([suspended.key, reinstated.key]);
    expect(together.entries.map((e) => [e.at, e.entry.type, e.entry.previousStatus, e.view.status, e.head.version])).toEqual([
      [at(0), 'ISSUED', null, 'ACTIVE', 1],
      [at(20), 'AUTHORITY_OBSERVED', 'ACTIVE', 'ACTIVE', 1],
      [at(25), 'SUSPENDED', 'ACTIVE', 'SUSPENDED', 3],
      [at(30), 'REINSTATED', 'SUSPENDED', 'ACTIVE', 4],
      [at(40), 'SUSPENDED', 'ACTIVE', 'SUSPENDED', 2],
    ]);
  });

  test('an observation of the new state at the instant of the change fits, whichever of the two arrived first', () => {
    const stored = storedObject([changeTo(0, 'PLACED')]);
    const change = events.stateChanged('change', at(10), 'SHIPPED', 'PLACED');
    const observed = events.observed('seen', at(10), 'SHIPPED');
    for (const batch of [[observed, change], [change, observed]]) {
      const result = integrateEvents(OBJECT, stored, batch);
      expect(sequencedKeys(result).sort()).toEqual([change.key, observed.key].sort());
      expect(result.entries.map((e) => [e.entry.type, e.view.state])).toEqual([
        ['STATE_CHANGED', 'PLACED'],
        ['STATE_CHANGED', 'SHIPPED'],
        ['AUTHORITY_OBSERVED', 'SHIPPED'],
      ]);
    }
  });

  test('a set that does not fit even together stays set aside, each with its own reason', () => {
    const stored = storedObject([changeTo(0, 'PLACED'), changeTo(20, 'CANCELLED')]);
    // Each repeats PLACED, alone and together.
    const a = events.stateChanged('a', at(5), 'PLACED', 'PLACED');
    const b = events.stateChanged('b', at(10), 'PLACED', 'PLACED');
    const result = integrateEvents(OBJECT, stored, [a, b]);
    expect(sequencedKeys(result)).toEqual([]);
    expectSetAside(result, a, /already PLACED/);
    expectSetAside(result, b, /already PLACED/);
    expectNothingChanged(result, stored);
  });
});

describe('commercial proofs: source snapshots are timeline entries, never versions', () => {
  const stored = storedProof([
    { minute: 10, state: 'PLACED', n: 1 },
    { minute: 30, state: 'SHIPPED', n: 2 },
  ]);

  test('late snapshots re-derive the count and last synchronization of every later entry; no new version', () => {
    const early = events.snapshot('a', at(5), 'PLACED', digestOf(3));
    const between = events.snapshot('b', at(20), 'CONFIRMED', digestOf(4));
    const newest = events.snapshot('c', at(40), 'DELIVERED', digestOf(5));
    const result = integrateEvents(PROOF, stored, [newest, between, early]);

    expect(result.outcomes.map((o) => [o.key, o.sequenced && o.version])).toEqual([
      [early.key, null],
      [between.key, null],
      [newest.key, null],
    ]);
    expect(result.newHeads).toEqual([]);
    const last = (minute: number, state: string, n: number) => ({ at: at(minute), state, digest: digestOf(n) });
    expect(result.entries.map((e) => [e.at, e.entry.type, e.entry.state, e.view])).toEqual([
      [at(0), 'PROOF_ISSUED', 'ISSUED', { lastSynchronization: null, synchronizations: 0 }],
      [at(5), 'SOURCE_SYNCHRONIZED', 'PLACED', { lastSynchronization: last(5, 'PLACED', 3), synchronizations: 1 }],
      [at(10), 'SOURCE_SYNCHRONIZED', 'PLACED', { lastSynchronization: last(10, 'PLACED', 1), synchronizations: 2 }],
      [at(20), 'SOURCE_SYNCHRONIZED', 'CONFIRMED', { lastSynchronization: last(20, 'CONFIRMED', 4), synchronizations: 3 }],
      [at(30), 'SOURCE_SYNCHRONIZED', 'SHIPPED', { lastSynchronization: last(30, 'SHIPPED', 2), synchronizations: 4 }],
      [at(40), 'SOURCE_SYNCHRONIZED', 'DELIVERED', { lastSynchronization: last(40, 'DELIVERED', 5), synchronizations: 5 }],
    ]);
    // The proof as issued stays the version in force everywhere.
    for (const e of result.entries) expect(e.head).toEqual(stored[0].head);
    expect(entryOf(result, 20)[0].entry.source).toBe('commerce-platform');
    // Stored snapshots whose count moved are written again; the issuance entry is untouched.
    expect(rewritten(result).map((e) => e.at)).toEqual([at(5), at(10), at(20), at(30), at(40)]);
  });

  test('a snapshot before the proof was issued, or an event of another kind, is set aside', () => {
    const early = events.snapshot('a', at(-1), 'PLACED', digestOf(3));
    const wrong = events.observed('b', at(50), 'PLACED', 'PRF-1');
    const result = integrateEvents(PROOF, stored, [early, wrong]);
    expectSetAside(result, early, /before the proof was issued/);
    expectSetAside(result, wrong, /not about a commercial proof/);
    expectNothingChanged(result, stored);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties: random stored histories (made by the loader), random batches in random arrival order.

/** Object states from every lifecycle class, few enough that generated events often agree with the record. */
const OBJECT_STATES = ['PLACED', 'SHIPPED', 'DELIVERED', 'CANCELLED', 'RETURNED', 'ARCHIVED'] as const;
const HORIZON = 12; // grid steps an event may lie beyond the stored history

interface Scenario {
  kind: string;
  /** As the table holds the record now (maybe already after an earlier batch). */
  stored: StoredTimelineEntry[];
  /** The batch, in arrival order; some events may be redeliveries of the earlier batch's. */
  batch: EventToIntegrate[];
}

const gridMinute = (max: number) => fc.integer({ min: -2, max }).map((n) => n * STEP);
const stepsArb = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 3 }), observe: fc.boolean(), pick: fc.nat() }), { maxLength: 6 });

function objectHistoryOf(first: string, steps: { gap: number; observe: boolean; pick: number }[]): ObjectHistory {
  let minute = 0;
  let state = first;
  const history: ObjectHistory = [changeTo(0, first)];
  for (const step of steps) {
    minute += step.gap * STEP;
    const next = OBJECT_STATES.filter((s) => objectTransitionRefusal(state, s) === null);
    if (step.observe || next.length === 0) history.push(observation(minute));
    else {
      state = next[step.pick % next.length];
      history.push(changeTo(minute, state));
    }
  }
  return history;
}


/** A random event for a record of `kind`, stating an instant on the grid (its key is completed by the batch). */
const eventArb = (kind: string, key = ''): fc.Arbitrary<EventToIntegrate> => {
  const minute = gridMinute(HORIZON + 6 * 3);
  if (kind === OBJECT) {
    return fc
      .tuple(fc.boolean(), minute, fc.constantFrom(...OBJECT_STATES))
      .map(([change, m, state]) => (change ? events.stateChanged(key, at(m), state) : events.observed(key, at(m), state)));
  }
  if (kind === CREDENTIAL) return fc.tuple(minute, fc.constantFrom('ACTIVE', 'SUSPENDED', 'REVOKED')).map(([m, status]) => events.statusChanged(key, at(m), status));
  return fc.tuple(minute, fc.constantFrom(...OBJECT_STATES), fc.nat({ max: 1000 })).map(([m, state, n]) => events.snapshot(key, at(m), state, digestOf(n)));
};

const storedArb = (kind: string): fc.Arbitrary<StoredTimelineEntry[]> => {
  if (kind === OBJECT) return fc.tuple(fc.constantFrom('PLACED', 'SHIPPED'), stepsArb).map(([first, steps]) => storedObject(objectHistoryOf(first, steps)));
  if (kind === CREDENTIAL) return stepsArb.map((steps) => storedCredential(credentialHistoryOf(steps)));
  return fc
    .array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom(...OBJECT_STATES), fc.nat({ max: 1000 })), { maxLength: 5 })
    .map((syncs) => {
      let minute = 0;
      return storedProof(syncs.map(([gap, state, n]) => ({ minute: (minute += gap * STEP), state, n })));
    });
};

/**
 * A record as stored (by the loader, then maybe after an earlier batch was integrated and written),
 * and a batch of new events mixed with redeliveries of earlier ones, in a random arrival order.
 */
const scenarioArb = (kind: string): fc.Arbitrary<Scenario> =>
  fc
    .tuple(
      storedArb(kind),
      fc.array(eventArb(kind), { maxLength: 5 }).map((es) => es.map((e, i) => ({ ...e, key: `${e.key}early-${i}` }))),
      fc.array(eventArb(kind), { maxLength: 8 }).map((es) => es.map((e, i) => ({ ...e, key: `${e.key}new-${i}` }))),
      fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 13, maxLength: 13 }),
    )
    .map(([loaded, earlier, fresh, redeliver, order]) => {
      const stored = earlier.length > 0 ? storedAfter(loaded, integrateEvents(kind, loaded, earlier).entries) : loaded;
      const batch = [...fresh, ...earlier.filter((_, i) => redeliver[i])];
      const arrival = batch.map((e, i) => ({ e, rank: order[i] })).sort((a, b) => a.rank - b.rank);
      return { kind, stored, batch: arrival.map((a) => a.e) };
    });

/** Each entry's derived parts, folded again left to right over the derived timeline itself. */
function expectFoldedViews(kind: string, entries: readonly DerivedEntry[]): void {
  if (kind === OBJECT) {
    let state: unknown = null;
    let head: unknown = null;
    let lastObservedAt: string | null = null;
    for (const e of entries) {
      if (e.entry.type === 'STATE_CHANGED') {
        expect(e.entry.previousState).toBe(state);
        // The derived timeline obeys the lifecycle table everywhere, not only at the newest entry.
        if (state !== null) expect(objectTransitionRefusal(String(state), e.entry.state as keyof typeof LIFECYCLE_STATES)).toBeNull();
        state = e.entry.state;
        head = e.head;
        expect(e.head.content).toMatchObject({ state, stateSince: e.at, version: e.head.version });
      } else {
        expect(e.entry.type).toBe('AUTHORITY_OBSERVED');
        lastObservedAt = e.at;
        expect(e.entry.state).toBe(state);
      }
      expect(e.view).toEqual({ state, lastObservedAt });
      expect(e.head).toEqual(head);
    }
  } else if (kind === CREDENTIAL) {
    let status: unknown = null;
    let head: unknown = null;
    const slots = entries[0].head.content.statusSlots;
    for (const e of entries) {
      if (e.entry.type === 'AUTHORITY_OBSERVED') {
        expect(e.entry).toMatchObject({ status, previousStatus: status });
      } else {
        expect(e.entry.previousStatus).toBe(status);
        if (status !== null) expect(ALLOWED_EVENTS[status as keyof typeof ALLOWED_EVENTS]).toContain(e.entry.type);
        expect(e.entry.status).toBe(CREDENTIAL_EVENTS[e.entry.type as CredentialEvent]);
        status = e.entry.status;
        head = e.head;
        expect(e.head.content).toMatchObject({ status, statusSince: e.at, version: e.head.version, statusSlots: slots });
      }
      expect(e.view).toEqual({ status, lastConfirmedAt: e.at });
      expect(e.head).toEqual(head);
    }
  } else {
    let lastSynchronization: unknown = null;
    let synchronizations = 0;
    for (const e of entries) {
      if (e.entry.type === 'SOURCE_SYNCHRONIZED') {
        synchronizations++;
        // A stored snapshot keeps the digest it had; a new one carries its event's.
        lastSynchronization = { at: e.at, state: e.entry.state, digest: (e.view.lastSynchronization as { digest: string }).digest };
      } else expect(e.entry.type).toBe('PROOF_ISSUED');
      expect(e.view).toEqual({ lastSynchronization, synchronizations });
      expect(e.head).toEqual(entries[0].head);
    }
  }
}

describe.each([OBJECT, CREDENTIAL, PROOF])('%s: properties over random histories and batches', (kind) => {
  test('(a) derived entries are in instant order, and every stored entry is still there in its place, stating what it stated', () => {
    const stated = kind === CREDENTIAL ? 'status' : 'state';
    fc.assert(
      fc.property(scenarioArb(kind), ({ stored, batch }) => {
        const { entries } = integrateEvents(kind, stored, batch);
        for (let i = 1; i < entries.length; i++) expect(Date.parse(entries[i - 1].at)).toBeLessThanOrEqual(Date.parse(entries[i].at));
        expect(entries.filter((e) => e.stored).map((e) => e.id)).toEqual(stored.map((e) => e.id));
        // What the source said (a change, or the state an authority saw) is a fact; only derived parts move.
        for (const e of entries) if (e.stored) expect([e.at, e.entry.type, e.entry[stated], e.entry.source]).toEqual([e.stored.at, e.stored.entry.type, e.stored.entry[stated], e.stored.entry.source]);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  test('(b) every sequenced event appears exactly once, where and as its outcome says; no set-aside one appears', () => {
    fc.assert(
      fc.property(scenarioArb(kind), ({ stored, batch }) => {
        const result = integrateEvents(kind, stored, batch);
        expect(result.outcomes.map((o) => o.key).sort()).toEqual(batch.map((e) => e.key).sort());
        for (const o of result.outcomes) {
          const carrying = result.entries.filter((e) => e.eventKey === o.key);
          if (!o.sequenced) {
            expect(carrying).toEqual([]);
            continue;
          }
          expect(carrying).toHaveLength(1);
          expect(carrying[0].at).toBe(o.entryAt);
          expect(carrying[0].at).toBe(batch.find((e) => e.key === o.key)!.at);
          const isChange = kind !== PROOF && carrying[0].entry.type !== 'AUTHORITY_OBSERVED';
          expect(o.version).toBe(isChange ? carrying[0].head.version : null);
        }
        // Every entry not stored came from an event of this batch.
        for (const e of result.entries) if (!e.stored) expect(sequencedKeys(result)).toContain(e.eventKey);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  test('(c) the new versions are distinct, consecutive, and above every stored version; stored versions are never rewritten', () => {
    fc.assert(
      fc.property(scenarioArb(kind), ({ stored, batch }) => {
        const result = integrateEvents(kind, stored, batch);
        const highest = highestVersion(stored);
        const versions = result.newHeads.map((h) => h.version).sort((a, b) => a - b);
        expect(versions).toEqual(versions.map((_, i) => highest + 1 + i));
        if (kind === PROOF) expect(versions).toEqual([]);
        const sequencedChanges = result.outcomes.filter((o) => o.sequenced && o.version !== null && !stored.some((e) => e.eventKey === o.key));
        expect(sequencedChanges.map((o) => (o.sequenced ? (o.version ?? 0) : 0)).sort((a, b) => a - b)).toEqual(versions);
        // A version the ledger already holds is carried as stored wherever it is in force.
        for (const e of result.entries) if (e.head.version <= highest) expect(e.head).toEqual(stored.find((s) => s.head.version === e.head.version)!.head);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  test('(d) integrating the same events again into what was written changes nothing and reports them sequenced', () => {
    fc.assert(
      fc.property(scenarioArb(kind), ({ stored, batch }) => {
        const first = integrateEvents(kind, stored, batch);
        const written = storedAfter(stored, first.entries);
        // Set-aside deliveries leave the queue (the pending store settles them), so only sequenced ones can come again.
        const again = batch.filter((e) => sequencedKeys(first).includes(e.key));
        const second = integrateEvents(kind, written, again);
        expect(second.outcomes).toEqual(expect.arrayContaining(first.outcomes.filter((o) => o.sequenced)));
        expect(second.outcomes).toHaveLength(again.length);
        expectNothingChanged(second, written);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  test('(f) each entry\'s previous state, view and version in force are what a left-to-right fold over the timeline gives', () => {
    fc.assert(
      fc.property(scenarioArb(kind), ({ stored, batch }) => {
        expectFoldedViews(kind, integrateEvents(kind, stored, batch).entries);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  test('the arrival order of events with distinct instants does not matter', () => {
    fc.assert(
      fc.property(scenarioArb(kind), ({ stored, batch }) => {
        const distinct = batch.filter((e, i) => batch.findIndex((o) => o.at === e.at) === i);
        const a = integrateEvents(kind, stored, distinct);
        const b = integrateEvents(kind, stored, [...distinct].reverse());
        expect(b.entries).toEqual(a.entries);
        expect(b.newHeads).toEqual(a.newHeads);
        expect(b.outcomes).toEqual(a.outcomes);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});

describe.each([OBJECT, CREDENTIAL])('%s: (e) events older than the newest stored entry never roll the current state back', (kind) => {
  test('the newest entry and its state are the stored ones', () => {
    fc.assert(
      fc.property(scenarioArb(kind), ({ stored, batch }) => {
        const newest = stored[stored.length - 1];
        const older = batch.filter((e) => Date.parse(e.at) < Date.parse(newest.at));
        const result = integrateEvents(kind, stored, older);
        const last = result.entries[result.entries.length - 1];
        const [held, heldSince] = kind === OBJECT ? ['state', 'stateSince'] : ['status', 'statusSince'];
        const content = (head: { content: unknown }) => head.content as Record<string, unknown>;
        expect(last.stored).toBe(newest);
        expect(last.view[held]).toBe(newest.view[held]);
        // The version in force there is the stored one, unless late changes that fit were placed
        // after the stored change in force (a suspension and its reinstatement, say): then it is
        // the last of them, a new version (numbered after the record's highest) saying the same state.
        expect([newest.head.version, ...result.newHeads.map((h) => h.version)]).toContain(last.head.version);
        if (last.head.version !== newest.head.version) expect(Date.parse(String(content(last.head)[heldSince]))).toBeGreaterThanOrEqual(Date.parse(String(content(newest.head)[heldSince])));
        expect(content(last.head)[held]).toBe(content(newest.head)[held]);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe.each([OBJECT, CREDENTIAL, PROOF])('%s: a partial timeline (from the earliest event on) integrates as the whole one does', (kind) => {
  // What the sequencer reads for objects and proofs (RecordStore.readTimelines from an instant): the entries at or after the
  // earliest instant an event states, and the one entry just before them.
  test('same outcomes, same new versions, same entries from that instant on', () => {
    fc.assert(
      fc.property(scenarioArb(kind), ({ stored, batch }) => {
        fc.pre(batch.length > 0);
        const whole = integrateEvents(kind, stored, batch);
        const from = Math.min(...batch.map((e) => Date.parse(e.at)));
        const cut = stored.findIndex((e) => Date.parse(e.at) >= from);
        const start = cut === -1 ? stored.length : cut;
        const before = start > 0 ? stored[start - 1] : null;
        const highestVersion = Math.max(...stored.map((e) => e.head.version));
        const part = integrateEvents(kind, stored.slice(start), batch, { before, highestVersion });
        expect(part.outcomes).toEqual(whole.outcomes);
        expect(part.newHeads).toEqual(whole.newHeads);
        const tail = (entries: DerivedEntry[]) => entries.filter((e) => Date.parse(e.at) >= from).map((e) => ({ id: e.id, at: e.at, entry: e.entry, view: e.view, head: e.head, eventKey: e.eventKey }));
        expect(tail(part.entries)).toEqual(tail(whole.entries));
        // Nothing before the earliest event changes, so nothing before it needs reading.
        expect(whole.entries.filter((e) => Date.parse(e.at) < from).every((e) => e.stored !== null && unchangedEntry(e))).toBe(true);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe.each([OBJECT, CREDENTIAL, PROOF])('%s: (g) one fact per event, however many deliveries carry it and in whatever order they arrive', (kind) => {
  /**
   * The batch of a random scenario, each event carried by 1 to 3 deliveries (other pending keys,
   * the same identity: a sender's replay under a new webhook-id, or a second sender instance),
   * all in a random arrival order. The identity of every event is its original key, so a
   * redelivery of an event the earlier batch integrated meets its entry too.
   */
  const duplicatedArb = scenarioArb(kind).chain(({ stored, batch }) =>
    fc
      .tuple(
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: batch.length, maxLength: batch.length }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: batch.length * 3, maxLength: batch.length * 3 }),
      )
      .map(([copies, ranks]) => {
        const deliveries = batch.flatMap((e, i) => Array.from({ length: copies[i] }, (_, j): EventToIntegrate => ({ ...e, key: `${e.key}~delivery-${j}`, identity: e.key })));
        const arrival = deliveries.map((d, i) => ({ d, rank: ranks[i] })).sort((a, b) => a.rank - b.rank).map((a) => a.d);
        return { stored, deliveries: arrival };
      }),
  );
  /** The first delivery of each event, in arrival order: what integrating each event once would see. */
  const firstOfEach = (deliveries: readonly EventToIntegrate[]) => deliveries.filter((d, i) => deliveries.findIndex((o) => o.identity === d.identity) === i);

  test('the timeline, the new versions and the outcomes are those of each event delivered once; every delivery of an event gets its outcome', () => {
    fc.assert(
      fc.property(duplicatedArb, ({ stored, deliveries }) => {
        const once = integrateEvents(kind, stored, firstOfEach(deliveries));
        const all = integrateEvents(kind, stored, deliveries);
        expect(all.entries).toEqual(once.entries);
        expect(all.newHeads).toEqual(once.newHeads);
        const outcomeOf = new Map(once.outcomes.map((o) => [firstOfEach(deliveries).find((d) => d.key === o.key)!.identity, o]));
        expect(all.outcomes.map((o) => o.key).sort()).toEqual(deliveries.map((d) => d.key).sort());
        for (const o of all.outcomes) expect(o).toEqual({ ...outcomeOf.get(deliveries.find((d) => d.key === o.key)!.identity)!, key: o.key });
        // No identity is on two entries.
        const carried = all.entries.flatMap((e) => (e.eventKey ? [e.eventKey] : []));
        expect(new Set(carried).size).toBe(carried.length);
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  test('delivered again under new keys once integrated: nothing changes, and each is reported as its event was', () => {
    fc.assert(
      fc.property(duplicatedArb, ({ stored, deliveries }) => {
        const first = integrateEvents(kind, stored, deliveries);
        const written = storedAfter(stored, first.entries);
        const sequenced = first.outcomes.filter((o) => o.sequenced);
        const again = deliveries.filter((d) => sequenced.some((o) => o.key === d.key)).map((d) => ({ ...d, key: `${d.key}~again` }));
        const second = integrateEvents(kind, written, again);
        expectNothingChanged(second, written);
        for (const o of second.outcomes) {
          const before = sequenced.find((s) => `${s.key}~again` === o.key)!;
          expect(o).toEqual({ ...before, key: o.key });
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});
