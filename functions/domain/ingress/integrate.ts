import { ALLOWED_EVENTS, CREDENTIAL_KIND, type CredentialContent, type CredentialEvent } from '../credentials/model';
import type { CredentialLifecycleState } from '../../contract/schemas/credentials';
import { COMMERCIAL_PROOF_KIND } from '../proofs';
import type { RecordHead } from '../record';
import { credentialTransitionRefusal, OBJECT_KIND, objectTransitionRefusal } from './rules';
import type { LifecycleState } from '../lifecycle';

/**
 * Integrating accepted events into a record (pure; docs/ingress.md#rules-of-order). The record is
 * its timeline of facts in the order of the instants they state: the stored entries, and each new
 * event inserted at its own instant (after any stored fact of the same instant). The lifecycle
 * rules are applied again, in event-instant order, to each insertion against its neighbours:
 * an event that breaks them here is set aside with the reason (nothing is lost: it stays stored).
 * Every entry's derived parts (previous state, the view in force, the version in force) are then
 * recomputed over the whole timeline, so a late event changes exactly the entries after it that
 * it must, and the current state is never rolled back by an older event.
 *
 * A state or status change is a new record version: numbered after the record's highest version
 * (versions count what the service learned, in the order it learned it) and logged by the caller.
 * Observations and source snapshots are timeline entries, not versions.
 */

/** A stored timeline entry as the sequencer reads it back (functions/store/records.ts readWholeRecord). */
export interface StoredTimelineEntry {
  sk: string;
  at: string;
  entry: Record<string, unknown>;
  view: Record<string, unknown>;
  head: RecordHead<Record<string, unknown>>;
  /** The identity of the event that produced this entry (its stored event's key), when one did. */
  eventKey: string | null;
}

/** An accepted event, as stored by a receiver. */
export interface EventToIntegrate {
  /** Its pending item's key: what its outcome is reported under. */
  key: string;
  /**
   * Its identity (the key of its sender's CloudEvents source and id), written on its entry: an
   * identity already in the timeline, or met earlier in the batch, is never integrated again.
   * Default: `key`.
   */
  identity?: string;
  type: string;
  reference: string;
  /** The instant it states (changedAt or observedAt), as stored (UTC ISO-8601). */
  at: string;
  data: Record<string, unknown>;
}

export type EventOutcome = { key: string; sequenced: true; entryAt: string; version: number | null } | { key: string; sequenced: false; reason: string };

/** An entry as it must now be stored; `sk` is null for a new entry (the caller assigns one). */
export interface DerivedEntry {
  sk: string | null;
  at: string;
  entry: Record<string, unknown>;
  view: Record<string, unknown>;
  head: RecordHead<Record<string, unknown>>;
  eventKey: string | null;
  /** The stored entry this replaces, to tell whether anything changed. */
  stored: StoredTimelineEntry | null;
}

export interface RecordIntegration {
  entries: DerivedEntry[];
  /** Record versions created here, to log (their evidence is set by the caller, on the same objects). */
  newHeads: RecordHead<Record<string, unknown>>[];
  outcomes: EventOutcome[];
}

type Head = RecordHead<Record<string, unknown>>;

/** One fact of a timeline: a stored entry, or an event being inserted. */
interface Fact {
  at: string;
  ms: number;
  /** STATE_CHANGED / ISSUED / SUSPENDED / REINSTATED / REVOKED / AUTHORITY_OBSERVED / PROOF_ISSUED / SOURCE_SYNCHRONIZED */
  type: string;
  /** The state (object), status (credential) or source state (proof) the fact states or claims. */
  state: string;
  /** A change's own version; null for observations and snapshots. */
  head: Head | null;
  /** Source snapshots: the digest observed. */
  digest?: string;
  stored: StoredTimelineEntry | null;
  /** The identity of the event it states (written on its entry). */
  eventKey: string | null;
  /** An event being inserted: the pending item its outcome is reported under. */
  deliveryKey?: string;
}

const factOf = (e: StoredTimelineEntry, state: string, head: Head | null, digest?: string): Fact => ({
  at: e.at,
  ms: Date.parse(e.at),
  type: String(e.entry.type),
  state,
  head,
  digest,
  stored: e,
  eventKey: e.eventKey,
});

/** Position after every fact at or before `ms`. */
function insertionPoint(facts: readonly Fact[], ms: number): number {
  let i = facts.length;
  while (i > 0 && facts[i - 1].ms > ms) i--;
  return i;
}

/** The stored entry before a partial timeline, standing for everything before it: what is in force there. */
const SEED = 'SEED';

/** A fact that starts a version (a state or status change, or a proof's issuance), whether or not its version is built yet. */
const CHANGE_TYPES = new Set(['STATE_CHANGED', 'ISSUED', 'SUSPENDED', 'REINSTATED', 'REVOKED', 'PROOF_ISSUED', SEED]);
const isChange = (f: Fact): boolean => CHANGE_TYPES.has(f.type);

interface KindRules {
  /** The stored entries as facts. */
  facts(stored: readonly StoredTimelineEntry[]): Fact[];
  /** The event as a fact, or why it is not one for this kind of record. */
  factOfEvent(event: EventToIntegrate): Fact | string;
  /** Why facts[i], just inserted, breaks the rules with its neighbours, or null. */
  refusal(facts: Fact[], i: number): string | null;
  /** The version a change inserted at facts[i] creates (null for observations and snapshots); `next` numbers it. */
  versionOf(facts: Fact[], i: number, next: () => number): Head | null;
  /**
   * Every fact's stored parts, derived over the timeline; `seed` is the stored entry just before
   * the facts (its view and version are what is in force where they begin), null when they begin
   * the record.
   */
  derive(facts: readonly Fact[], seed: StoredTimelineEntry | null): Omit<DerivedEntry, 'sk' | 'eventKey' | 'stored'>[];
  /** What a seed entry states (the state, status or source state in force at it). */
  stateOf(seed: StoredTimelineEntry): string;
}

/** The newest change at or before index i (exclusive of i), or null. */
function changeBefore(facts: readonly Fact[], i: number): Fact | null {
  for (let j = i - 1; j >= 0; j--) if (isChange(facts[j])) return facts[j];
  return null;
}

function newVersion(before: Head, version: number, fields: Record<string, unknown>): Head {
  const head: Head = { kind: before.kind, reference: before.reference, version, content: { ...before.content, ...fields, version }, evidence: null };
  if (before.restricted) head.restricted = before.restricted;
  return head;
}

const OBJECT_RULES: KindRules = {
  facts: (stored) => stored.map((e) => factOf(e, String(e.entry.state), e.entry.type === 'STATE_CHANGED' ? e.head : null)),
  factOfEvent(event) {
    const state = String(event.data.state);
    if (event.type === 'svc.living-object.state-changed.v1') return { at: event.at, ms: Date.parse(event.at), type: 'STATE_CHANGED', state, head: null, stored: null, eventKey: event.key };
    if (event.type === 'svc.living-object.authority-observed.v1') return { at: event.at, ms: Date.parse(event.at), type: 'AUTHORITY_OBSERVED', state, head: null, stored: null, eventKey: event.key };
    return `${event.type} is not about a living object`;
  },
  refusal(facts, i) {
    const fact = facts[i];
    const before = changeBefore(facts, i);
    if (!before) return `it states ${fact.at}, before the object's first state`;
    if (fact.type === 'AUTHORITY_OBSERVED') {
      return fact.state === before.state ? null : `the authority observed ${fact.state} at ${fact.at}, but the object was ${before.state} then`;
    }
    const why = objectTransitionRefusal(before.state, fact.state as LifecycleState);
    if (why) return `at ${fact.at} the object was ${before.state}: ${why}`;
    for (let j = i + 1; j < facts.length; j++) {
      const later = facts[j];
      if (later.type === 'AUTHORITY_OBSERVED' && later.state !== fact.state) return `the authority observed ${later.state} at ${later.at}, after this change to ${fact.state}`;
      if (isChange(later)) {
        const next = objectTransitionRefusal(fact.state, later.state as LifecycleState);
        if (next) return `the change to ${later.state} at ${later.at} could not follow ${fact.state}: ${next}`;
        break;
      }
    }
    return null;
  },
  versionOf(facts, i, next) {
    const fact = facts[i];
    return fact.type === 'STATE_CHANGED' ? newVersion(changeBefore(facts, i)!.head!, next(), { state: fact.state, stateSince: fact.at }) : null;
  },
  stateOf: (seed) => String(seed.view.state),
  derive(facts, seed) {
    let state: string | null = seed ? String(seed.view.state) : null;
    let head: Head | null = seed ? seed.head : null;
    let lastObservedAt: string | null = seed ? ((seed.view.lastObservedAt as string | null) ?? null) : null;
    return facts.map((f) => {
      let entry: Record<string, unknown>;
      const source = String((f.head ?? head)!.content.authority);
      if (f.type === 'STATE_CHANGED') {
        entry = { at: f.at, type: 'STATE_CHANGED', state: f.state, previousState: state, source: f.stored ? f.stored.entry.source : source };
        state = f.state;
        head = f.head;
      } else {
        lastObservedAt = f.at;
        entry = { at: f.at, type: 'AUTHORITY_OBSERVED', state, source: f.stored ? f.stored.entry.source : source };
      }
      return { at: f.at, entry, view: { state, lastObservedAt }, head: head! };
    });
  },
};

const CREDENTIAL_EVENT_OF: Record<string, CredentialEvent> = { SUSPENDED: 'SUSPENDED', REVOKED: 'REVOKED', ACTIVE: 'REINSTATED' };

const CREDENTIAL_RULES: KindRules = {
  facts: (stored) => stored.map((e) => factOf(e, String(e.entry.status), e.entry.type === 'AUTHORITY_OBSERVED' ? null : e.head)),
  factOfEvent(event) {
    if (event.type !== 'svc.credential.status-changed.v1') return `${event.type} is not about a credential`;
    const status = String(event.data.status);
    const type = CREDENTIAL_EVENT_OF[status];
    if (!type) return `the status ${status} is not one a credential changes to`;
    return { at: event.at, ms: Date.parse(event.at), type, state: status, head: null, stored: null, eventKey: event.key };
  },
  refusal(facts, i) {
    const fact = facts[i];
    const before = changeBefore(facts, i);
    if (!before) return `it states ${fact.at}, before the credential was issued`;
    const why = credentialTransitionRefusal(before.state, fact.state);
    if (why) return `at ${fact.at} the credential was ${before.state}: ${why}`;
    for (let j = i + 1; j < facts.length; j++) {
      const later = facts[j];
      if (later.type === 'AUTHORITY_OBSERVED' && later.state !== fact.state) return `the issuer confirmed ${later.state} at ${later.at}, after this change to ${fact.state}`;
      if (isChange(later)) {
        if (!(ALLOWED_EVENTS[fact.state as CredentialLifecycleState] as readonly string[]).includes(later.type)) {
          return `the ${later.type} at ${later.at} could not follow ${fact.state}`;
        }
        break;
      }
    }
    return null;
  },
  versionOf(facts, i, next) {
    const fact = facts[i];
    return fact.type === 'AUTHORITY_OBSERVED' ? null : newVersion(changeBefore(facts, i)!.head!, next(), { status: fact.state, statusSince: fact.at });
  },
  stateOf: (seed) => String(seed.view.status),
  derive(facts, seed) {
    let status: string | null = seed ? String(seed.view.status) : null;
    let head: Head | null = seed ? seed.head : null;
    return facts.map((f) => {
      const previousStatus = status;
      if (isChange(f)) {
        status = f.state;
        head = f.head;
      }
      const source = f.stored ? f.stored.entry.source : (head!.content as unknown as CredentialContent).issuer;
      const entry =
        f.type === 'AUTHORITY_OBSERVED'
          ? { at: f.at, type: f.type, status, previousStatus: status, source }
          : { at: f.at, type: f.type, status, previousStatus, source };
      // A lifecycle event is the issuer stating the status; an observation is the issuer confirming it.
      return { at: f.at, entry, view: { status, lastConfirmedAt: f.at }, head: head! };
    });
  },
};

const PROOF_RULES: KindRules = {
  facts: (stored) =>
    stored.map((e) => {
      const snapshot = e.view.lastSynchronization as { digest?: string } | null;
      return factOf(e, String(e.entry.state), e.entry.type === 'PROOF_ISSUED' ? e.head : null, e.entry.type === 'SOURCE_SYNCHRONIZED' ? snapshot?.digest : undefined);
    }),
  factOfEvent(event) {
    if (event.type !== 'svc.commercial-proof.source-snapshot.v1') return `${event.type} is not about a commercial proof`;
    return { at: event.at, ms: Date.parse(event.at), type: 'SOURCE_SYNCHRONIZED', state: String(event.data.sourceState), digest: String(event.data.digest), head: null, stored: null, eventKey: event.key };
  },
  refusal(facts, i) {
    return changeBefore(facts, i) ? null : `it states ${facts[i].at}, before the proof was issued`;
  },
  versionOf: () => null,
  stateOf: (seed) => String(seed.entry.state),
  derive(facts, seed) {
    let head: Head | null = seed ? seed.head : null;
    let lastSynchronization = seed ? (seed.view.lastSynchronization as { at: string; state: string; digest: string } | null) : null;
    let synchronizations = seed ? Number(seed.view.synchronizations) : 0;
    return facts.map((f) => {
      if (isChange(f)) head = f.head;
      if (f.type === 'SOURCE_SYNCHRONIZED') {
        lastSynchronization = { at: f.at, state: f.state, digest: f.digest! };
        synchronizations++;
      }
      const source = f.stored ? f.stored.entry.source : String((head!.content.source as { system: string }).system);
      return { at: f.at, entry: { at: f.at, type: f.type, state: f.state, source }, view: { lastSynchronization, synchronizations }, head: head! };
    });
  },
};

const RULES_BY_KIND: Record<string, KindRules> = { [OBJECT_KIND]: OBJECT_RULES, [CREDENTIAL_KIND]: CREDENTIAL_RULES, [COMMERCIAL_PROOF_KIND]: PROOF_RULES };

export interface PartialTimeline {
  /** The stored entry just before `stored` (null: `stored` begins the record). */
  before: StoredTimelineEntry | null;
  /** The record's highest version, wherever it is in the timeline. */
  highestVersion: number;
}

/**
 * Integrates `events` (any order; integrated in the order of the instants they state, then as
 * given) into a record of `kind` whose stored entries are `stored` (in sort-key order): the whole
 * timeline, or, with `partial`, the entries from the earliest instant any event states on (a
 * long history is not read for events at its end; nothing before them can change).
 */
export function integrateEvents(kind: string, stored: readonly StoredTimelineEntry[], events: readonly EventToIntegrate[], partial?: PartialTimeline): RecordIntegration {
  const rules = RULES_BY_KIND[kind];
  if (!rules) {
    return { entries: [], newHeads: [], outcomes: events.map((e) => ({ key: e.key, sequenced: false, reason: `the record is a ${kind}, which no event changes` })) };
  }
  const seed = partial?.before ?? null;
  const facts = rules.facts(stored);
  // The seed stands first, as the change in force where the stored entries begin: the rules see what held before them.
  if (seed) facts.unshift({ at: seed.at, ms: Date.parse(seed.at), type: SEED, state: rules.stateOf(seed), head: seed.head, stored: seed, eventKey: seed.eventKey });
  let highest = partial?.highestVersion ?? 0;
  for (const e of stored) highest = Math.max(highest, e.head.version);
  const nextVersion = () => ++highest;
  const ordered = [...events].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const decided = new Map<string, EventOutcome>();
  const reasons = new Map<Fact, string>();
  /** Events of this batch whose identity another event of the batch carries first: they share its outcome. */
  const twins = new Map<string, Fact>();
  let waiting: Fact[] = [];
  /** The event keys already on an entry, and the batch's waiting facts by identity: looked up for every event. */
  const onEntries = new Set(facts.flatMap((f) => (f.eventKey === null ? [] : [f.eventKey])));
  const waitingByIdentity = new Map<string, Fact>();
  for (const event of ordered) {
    const identity = event.identity ?? event.key;
    // An event is integrated once, whichever delivery carries it: its identity, or (entries written
    // before events were stored by identity) its delivery's key, already on an entry.
    const already = onEntries.has(identity) || onEntries.has(event.key) ? facts.find((f) => f.eventKey !== null && (f.eventKey === identity || f.eventKey === event.key)) : undefined;
    if (already) {
      decided.set(event.key, { key: event.key, sequenced: true, entryAt: already.at, version: already.head?.version ?? null });
      continue;
    }
    const twin = waitingByIdentity.get(identity);
    if (twin) {
      twins.set(event.key, twin);
      continue;
    }
    const fact = rules.factOfEvent(event);
    if (typeof fact === 'string') decided.set(event.key, { key: event.key, sequenced: false, reason: fact });
    else {
      const waitingFact: Fact = { ...fact, eventKey: identity, deliveryKey: event.key };
      waiting.push(waitingFact);
      waitingByIdentity.set(identity, waitingFact);
    }
  }
  const accept = (fact: Fact) => {
    fact.head = rules.versionOf(facts, facts.indexOf(fact), nextVersion);
    decided.set(fact.deliveryKey!, { key: fact.deliveryKey!, sequenced: true, entryAt: fact.at, version: fact.head?.version ?? null });
  };
  // One at a time, in instant order; again while any is accepted (an event whose neighbour of the
  // same instant came later in the batch fits once it is in).
  for (let progress = true; progress && waiting.length > 0; ) {
    progress = false;
    const still: Fact[] = [];
    for (const fact of waiting) {
      const i = insertionPoint(facts, fact.ms);
      facts.splice(i, 0, fact);
      const why = rules.refusal(facts, i);
      if (why) {
        facts.splice(i, 1);
        reasons.set(fact, why);
        still.push(fact);
      } else {
        accept(fact);
        progress = true;
      }
    }
    waiting = still;
  }
  // Late events that fit only together (a suspension and its reinstatement, both late): all of them at once, or none.
  if (waiting.length > 1) {
    for (const fact of waiting) facts.splice(insertionPoint(facts, fact.ms), 0, fact);
    if (waiting.every((fact) => rules.refusal(facts, facts.indexOf(fact)) === null)) {
      for (const fact of facts.filter((f) => waiting.includes(f))) accept(fact);
      waiting = [];
    } else {
      for (const fact of waiting) facts.splice(facts.indexOf(fact), 1);
    }
  }
  for (const fact of waiting) decided.set(fact.deliveryKey!, { key: fact.deliveryKey!, sequenced: false, reason: reasons.get(fact)! });
  for (const [key, twin] of twins) decided.set(key, { ...decided.get(twin.deliveryKey!)!, key });
  const outcomes = ordered.flatMap((e) => {
    const outcome = decided.get(e.key);
    if (!outcome) return [];
    decided.delete(e.key);
    return [outcome];
  });
  if (seed) facts.shift();
  const newHeads = facts.filter((f) => f.stored === null && f.head !== null).map((f) => f.head!);
  const entries = rules.derive(facts, seed).map((d, i) => ({ ...d, sk: facts[i].stored?.sk ?? null, eventKey: facts[i].eventKey, stored: facts[i].stored }));
  return { entries, newHeads, outcomes };
}
