import fc from 'fast-check';
import { STATUS_PURPOSES, type StatusPurpose } from '../../functions/contract/schemas/credentials';
import { bitAt, decodeStatusList, setIndexesOf } from '../../functions/domain/credentials/bitstring';
import { PURPOSE_STATE } from '../../functions/domain/credentials/model';
import { integrateEvents, type DerivedEntry, type EventToIntegrate, type StoredTimelineEntry } from '../../functions/domain/ingress/integrate';
import { reconcileStatusList, type CredentialStatusTimeline } from '../../functions/domain/ingress/status-lists';
import { CredentialRecordInput, deriveStatusLists, expandCredential } from '../../lib/loader/kinds/credential';
import { STEP, at, credentialHistoryOf, events, inForceAt, lifecycle, sequencedKeys, storedAfter, storedFrom, unchangedEntry } from '../support/timelines';

/**
 * A published status list stays true to its credentials' timelines (functions/domain/ingress/status-lists.ts):
 * once the sequencer has integrated a credential's status events (late ones included), every version
 * of the group's revocation and suspension lists reads, for that credential, the status it had at
 * the version's instant, and read as of any instant the list gives the status of that instant.
 * Lists and credentials are made by the loader (expandCredential, deriveStatusLists), stored as the
 * table holds them.
 */

const SEED = 20261124;
const GROUP = 'members-2026';

type CredentialHistory = CredentialRecordInput['history'];

interface Group {
  credentials: { reference: string; position: number; stored: StoredTimelineEntry[] }[];
  lists: Record<StatusPurpose, StoredTimelineEntry[]>;
}

/** Credentials of one group, each pinned to its position, and the group's lists as the loader derives them. */
function storedGroup(members: { reference: string; position: number; history: CredentialHistory }[]): Group {
  const records = members.map((m) =>
    expandCredential(
      CredentialRecordInput.parse({
        kind: 'CREDENTIAL',
        reference: m.reference,
        credentialType: 'MembershipCredential',
        title: 'Membership',
        issuer: 'did:web:issuer.example.org',
        validFrom: m.history[0].at,
        subject: { type: 'Member', claims: { level: 'gold' } },
        statusList: GROUP,
        statusListIndex: m.position,
        freshnessSeconds: 86_400,
        history: m.history,
      }),
    ),
  );
  const derived = deriveStatusLists(records);
  expect(derived.problems).toEqual([]);
  const listOf = (purpose: StatusPurpose) => storedFrom(derived.records.find((r) => r.reference === `status-list/${GROUP}-${purpose}`)!);
  return {
    credentials: members.map((m, i) => ({ reference: m.reference, position: m.position, stored: storedFrom(records[i]) })),
    lists: { revocation: listOf('revocation'), suspension: listOf('suspension') },
  };
}

/** The credential's status timeline as the sequencer hands it over (functions/ledger-writer/sequencer.ts). */
const timelineOf = (position: number, entries: readonly { at: string; entry: Record<string, unknown> }[]): CredentialStatusTimeline => ({
  position,
  changes: entries.filter((e) => e.entry.type !== 'AUTHORITY_OBSERVED').map((e) => ({ at: e.at, status: String(e.entry.status) })),
});

function statusAt(timeline: CredentialStatusTimeline, instant: string): string | null {
  let status: string | null = null;
  for (const change of timeline.changes) if (Date.parse(change.at) <= Date.parse(instant)) status = change.status;
  return status;
}

const bitsOf = (e: { head: { content: Record<string, unknown> } }) => decodeStatusList(String(e.head.content.encodedList));
const wantedBit = (purpose: StatusPurpose, timeline: CredentialStatusTimeline, instant: string) => (statusAt(timeline, instant) === PURPOSE_STATE[purpose] ? 1 : 0);
const rewritten = (entries: readonly DerivedEntry[]) => entries.filter((e) => !unchangedEntry(e));


describe('status lists follow a credential\'s late status changes', () => {
  // CRED-1 at position 5 is issued at 0; CRED-2 at position 9 is issued at 0 and revoked at 20.
  const group = storedGroup([
    { reference: 'CRED-1', position: 5, history: [lifecycle('ISSUED', 0)] },
    { reference: 'CRED-2', position: 9, history: [lifecycle('ISSUED', 0), lifecycle('REVOKED', 20)] },
  ]);
  const [cred1] = group.credentials;

  test('the loader\'s lists, before anything happens: a version at 0 and one at 20 with bit 9 set', () => {
    expect(group.lists.revocation.map((e) => [e.at, e.head.version, setIndexesOf(bitsOf(e))])).toEqual([
      [at(0), 1, []],
      [at(20), 2, [9]],
    ]);
    expect(group.lists.suspension.map((e) => [e.at, setIndexesOf(bitsOf(e))])).toEqual([[at(0), []]]);
  });

  test('a late revocation at 10: a new version at 10, and the version at 20 corrected by a new version', () => {
    const revoked = events.statusChanged('v', at(10), 'REVOKED', 'ACTIVE');
    const integration = integrateEvents('CREDENTIAL', cred1.stored, [revoked]);
    expect(sequencedKeys(integration)).toEqual([revoked.key]);
    const timeline = timelineOf(cred1.position, integration.entries);

    const { entries, newHeads } = reconcileStatusList('revocation', group.lists.revocation, [timeline]);
    // The stored version at 20 is corrected first (version 3), then the version at 10 is published (4).
    expect(entries.map((e) => [e.at, e.head.version, setIndexesOf(bitsOf(e)), e.sk === null])).toEqual([
      [at(0), 1, [], false],
      [at(10), 4, [5], true],
      [at(20), 3, [5, 9], false],
    ]);
    expect(newHeads.map((h) => [h.version, h.content.publishedAt])).toEqual([
      [3, at(20)],
      [4, at(10)],
    ]);
    // The new versions keep the list's identity and the field order the store compares.
    const first = group.lists.revocation[0].head.content;
    for (const head of newHeads) {
      expect(head.content).toMatchObject({ listId: `${GROUP}-revocation`, statusPurpose: 'revocation', issuer: 'did:web:issuer.example.org', entries: 131_072 });
      expect(Object.keys(head.content)).toEqual(Object.keys(first));
    }
    expect(entries[1].entry).toEqual({ at: at(10), type: 'LIST_PUBLISHED', version: 4 });
    expect(entries[2].entry).toEqual({ at: at(20), type: 'LIST_PUBLISHED', version: 3 });

    // The suspension list already says "not suspended" throughout: nothing to publish.
    const suspension = reconcileStatusList('suspension', group.lists.suspension, [timeline]);
    expect(suspension.newHeads).toEqual([]);
    expect(rewritten(suspension.entries)).toEqual([]);

    // Once written, reconciling the same timeline again changes nothing.
    const written = storedAfter(group.lists.revocation, entries);
    const again = reconcileStatusList('revocation', written, [timeline]);
    expect(again.newHeads).toEqual([]);
    expect(rewritten(again.entries)).toEqual([]);
  });

  test('a late suspension lifted after a stored version: the list read after the reinstatement does not say suspended', () => {
    // The suspension list has versions at 0 (nothing set) and at 5 (CRED-B, position 19, suspended).
    // CRED-A (position 0) was suspended at 2 and reinstated at 10, both learned late. The version at
    // 5 must gain bit 0 (suspended then), so from 10 on a version with bit 0 cleared must be in force.
    const suspended = storedGroup([
      { reference: 'CRED-A', position: 0, history: [lifecycle('ISSUED', 0)] },
      { reference: 'CRED-B', position: 19, history: [lifecycle('ISSUED', 0), lifecycle('SUSPENDED', 5)] },
    ]);
    const credA = suspended.credentials[0];
    const integration = integrateEvents('CREDENTIAL', credA.stored, [
      events.statusChanged('s', at(2), 'SUSPENDED', 'ACTIVE', 'CRED-A'),
      events.statusChanged('r', at(10), 'ACTIVE', 'SUSPENDED', 'CRED-A'),
    ]);
    expect(integration.outcomes.every((o) => o.sequenced)).toBe(true);
    const timeline = timelineOf(credA.position, integration.entries);
    const { entries } = reconcileStatusList('suspension', suspended.lists.suspension, [timeline]);
    expect(entries.map((e) => [e.at, setIndexesOf(bitsOf(e))])).toEqual([
      [at(0), []],
      [at(2), [0]],
      [at(5), [0, 19]],
      [at(10), [19]],
    ]);
    const written = storedAfter(suspended.lists.suspension, entries);
    expect(reconcileStatusList('suspension', written, [timeline]).newHeads).toEqual([]);
  });

  test('a late suspension lifted again: the suspension list sets the bit from 10 and clears it at 15', () => {
    const suspended = events.statusChanged('s', at(10), 'SUSPENDED', 'ACTIVE');
    const reinstated = events.statusChanged('r', at(15), 'ACTIVE', 'SUSPENDED');
    const integration = integrateEvents('CREDENTIAL', cred1.stored, [reinstated, suspended]);
    const timeline = timelineOf(cred1.position, integration.entries);
    const { entries, newHeads } = reconcileStatusList('suspension', group.lists.suspension, [timeline]);
    expect(entries.map((e) => [e.at, setIndexesOf(bitsOf(e))])).toEqual([
      [at(0), []],
      [at(10), [5]],
      [at(15), []],
    ]);
    expect(newHeads.map((h) => h.version)).toEqual([2, 3]);
    for (const minute of [0, 9, 10, 14, 15, 30]) {
      expect([minute, bitAt(bitsOf(inForceAt(entries, at(minute))!), 5)]).toEqual([minute, minute >= 10 && minute < 15 ? 1 : 0]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Properties: random groups made by the loader, random status events for some of their credentials.

const stepsArb = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 3 }), observe: fc.boolean(), pick: fc.nat() }), { maxLength: 5 });


interface Scenario {
  group: Group;
  /** Events per credential index (arrival order as generated); empty for credentials left alone. */
  batches: EventToIntegrate[][];
}

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .uniqueArray(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 3 })
  .chain((positions) =>
    fc.tuple(
      fc.constant(positions),
      fc.tuple(...positions.map(() => fc.tuple(fc.integer({ min: 0, max: 3 }), stepsArb))),
      fc.tuple(
        ...positions.map((_, c) =>
          fc.array(fc.tuple(fc.integer({ min: -1, max: 24 }), fc.constantFrom('ACTIVE', 'SUSPENDED', 'REVOKED')), { maxLength: 5 }).map((es) =>
            es.map(([step, status], i) => events.statusChanged(`c${c}-${i}`, at(step * STEP), status, null, `CRED-${c}`)),
          ),
        ),
      ),
      fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    ),
  )
  .map(([positions, histories, batches, touched]) => ({
    group: storedGroup(positions.map((position, c) => ({ reference: `CRED-${c}`, position, history: credentialHistoryOf(histories[c][1], histories[c][0] * STEP) }))),
    // Credentials not touched get no events at all, so their bits must be left as they were.
    batches: batches.map((batch, c) => (touched[c] || c === 0 ? batch : [])),
  }));

interface Reconciled {
  purpose: StatusPurpose;
  stored: StoredTimelineEntry[];
  entries: DerivedEntry[];
  newHeads: ReturnType<typeof reconcileStatusList>['newHeads'];
  /** Every credential's timeline after the batch, by position. */
  timelines: CredentialStatusTimeline[];
  /** Positions of credentials whose timeline was handed to the reconciliation. */
  changed: Set<number>;
}

/** What the sequencer does: integrate each credential's events, then reconcile both lists with the timelines that took an event. */
function reconcileScenario({ group, batches }: Scenario): Reconciled[] {
  const timelines: CredentialStatusTimeline[] = [];
  const handed: CredentialStatusTimeline[] = [];
  group.credentials.forEach((c, i) => {
    const integration = integrateEvents('CREDENTIAL', c.stored, batches[i]);
    const timeline = timelineOf(c.position, integration.entries);
    timelines.push(timeline);
    if (integration.outcomes.some((o) => o.sequenced)) handed.push(timeline);
  });
  return STATUS_PURPOSES.map((purpose) => {
    const stored = group.lists[purpose];
    return { purpose, stored, ...reconcileStatusList(purpose, stored, handed), timelines, changed: new Set(handed.map((t) => t.position)) };
  });
}

/** Every instant on the grid from before the first list version to past every event. */
const GRID = Array.from({ length: 45 }, (_, i) => at((i - 2) * STEP));

describe('status lists: properties over random groups and late events', () => {
  test('every version, and the list read as of any instant, gives each credential\'s bit for its status then', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        for (const { purpose, entries, timelines } of reconcileScenario(scenario)) {
          for (const e of entries) {
            const bits = bitsOf(e);
            for (const t of timelines) expect([purpose, e.at, t.position, bitAt(bits, t.position)]).toEqual([purpose, e.at, t.position, wantedBit(purpose, t, e.at)]);
          }
          for (const instant of GRID) {
            const inForce = inForceAt(entries, instant);
            if (!inForce) continue; // before the list's first version the list did not exist
            for (const t of timelines) expect([purpose, instant, t.position, bitAt(bitsOf(inForce), t.position)]).toEqual([purpose, instant, t.position, wantedBit(purpose, t, instant)]);
          }
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  test('a version is published at a change\'s instant exactly when the version in force just before it gives the wrong bit from then on', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        for (const { purpose, entries, timelines, changed } of reconcileScenario(scenario)) {
          const handed = timelines.filter((t) => changed.has(t.position));
          const changeInstants = new Set(handed.flatMap((t) => t.changes.map((c) => c.at)));
          for (const e of entries) if (e.stored === null) expect(changeInstants).toContain(e.at);
          for (const instant of changeInstants) {
            const prior = inForceAt(
              entries.filter((e) => Date.parse(e.at) < Date.parse(instant)),
              instant,
            );
            if (!prior) continue; // the list did not exist yet: its first version is corrected in place
            const wrong = handed.some((t) => bitAt(bitsOf(prior), t.position) !== wantedBit(purpose, t, instant));
            const publishedThen = entries.filter((e) => e.at === instant);
            if (wrong) expect([purpose, instant, publishedThen.length > 0]).toEqual([purpose, instant, true]);
            else expect([purpose, instant, publishedThen.filter((e) => e.stored === null)]).toEqual([purpose, instant, []]);
          }
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  test('other credentials\' bits are untouched', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        for (const { stored, entries, changed } of reconcileScenario(scenario)) {
          const others = (e: { head: { content: Record<string, unknown> } }) => setIndexesOf(bitsOf(e)).filter((i) => !changed.has(i));
          for (const e of entries) expect([e.at, others(e)]).toEqual([e.at, others(inForceAt(stored, e.at)!)]);
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  test('the new versions are consecutive above the list\'s highest, each in the timeline once, in instant order, one per instant', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        for (const { stored, entries, newHeads } of reconcileScenario(scenario)) {
          const highest = Math.max(...stored.map((e) => e.head.version));
          expect(newHeads.map((h) => h.version)).toEqual(newHeads.map((_, i) => highest + 1 + i));
          for (const head of newHeads) expect(entries.filter((e) => e.head === (head as unknown))).toHaveLength(1);
          for (const e of entries) expect(e.entry).toEqual({ at: e.at, type: 'LIST_PUBLISHED', version: e.head.version });
          for (const e of entries) if (e.stored) expect(e.at).toBe(e.stored.at);
          expect(entries.filter((e) => e.stored).map((e) => e.sk)).toEqual(stored.map((e) => e.sk));
          for (let i = 1; i < entries.length; i++) expect(Date.parse(entries[i - 1].at)).toBeLessThanOrEqual(Date.parse(entries[i].at));
          // One version per instant (as the loader publishes them): a second one there would only be a redundant version in the log.
          expect(new Set(entries.map((e) => e.at)).size).toBe(entries.length);
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  test('reconciling again what was written changes nothing', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        for (const { purpose, stored, entries, timelines, changed } of reconcileScenario(scenario)) {
          const written = storedAfter(stored, entries);
          const again = reconcileStatusList(purpose, written, timelines.filter((t) => changed.has(t.position)));
          expect(again.newHeads).toEqual([]);
          expect(rewritten(again.entries)).toEqual([]);
          // The loader's lists are already true to the timelines they came from.
          const untouched = reconcileStatusList(purpose, stored, scenario.group.credentials.map((c) => timelineOf(c.position, c.stored)));
          expect(untouched.newHeads).toEqual([]);
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });
});

describe('status lists: reconciled from the earliest event of the batch on', () => {
  // What the sequencer reads of a list: its entries at or after the earliest instant the batch's
  // events state, and the entry in force then (readRecordFrom), with the list's highest version.
  test('the same versions and entries as reconciling the whole list, and nothing before that instant needs it', () => {
    fc.assert(
      fc.property(scenarioArb, (scenario) => {
        const events = scenario.batches.flat();
        fc.pre(events.length > 0);
        const from = Math.min(...events.map((e) => Date.parse(e.at)));
        for (const whole of reconcileScenario(scenario)) {
          const cut = whole.stored.findIndex((e) => Date.parse(e.at) >= from);
          const start = cut === -1 ? whole.stored.length : cut;
          const part = whole.stored.slice(Math.max(0, start - 1));
          const highestVersion = Math.max(...whole.stored.map((e) => e.head.version));
          const handed = whole.timelines.filter((t) => whole.changed.has(t.position));
          const partial = reconcileStatusList(whole.purpose, part, handed, highestVersion);
          expect(partial.newHeads).toEqual(whole.newHeads);
          const fromThere = (entries: DerivedEntry[]) => entries.filter((e) => Date.parse(e.at) >= from).map((e) => ({ sk: e.sk, at: e.at, head: e.head }));
          expect(fromThere(partial.entries)).toEqual(fromThere(whole.entries));
          expect(whole.entries.filter((e) => Date.parse(e.at) < from).every(unchangedEntry)).toBe(true);
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
