import { changeBefore, type DerivedEntry, type EventOutcome, type EventToIntegrate, type Fact, type Head, type StoredTimelineEntry, type TimelineRules } from '../kinds/kind';
import { timelineOf } from '../kinds/timelines';

export type { DerivedEntry, EventOutcome, EventToIntegrate, StoredTimelineEntry } from '../kinds/kind';

/**
 * Integrating events into a record (pure; docs/ingress.md#rules-of-order), whatever its kind: the
 * kind (functions/domain/kinds/) says what an event states, which neighbours it may have, which
 * version it makes and what every entry stores; this is the algorithm around it. The record is its
 * timeline of facts in the order of the instants they state: the stored entries, and each new
 * event inserted at its own instant (after any stored fact of the same instant). The kind's rules
 * are applied again, in event-instant order, to each insertion against its neighbours: an event
 * that breaks them is set aside with the reason (nothing is lost: it stays stored). Every entry's
 * derived parts are then recomputed over the whole timeline, so a late event changes exactly the
 * entries after it that it must, and the current state is never rolled back by an older event.
 *
 * A change is a new record version: numbered after the record's highest version (versions count
 * what the service learned, in the order it learned it) and logged by the caller.
 */

export interface RecordIntegration {
  entries: DerivedEntry[];
  /** Record versions created here, to log (their evidence is set by the caller, on the same objects). */
  newHeads: Head[];
  outcomes: EventOutcome[];
}

/** Position after every fact at or before `ms`. */
function insertionPoint(facts: readonly Fact[], ms: number): number {
  let i = facts.length;
  while (i > 0 && facts[i - 1].ms > ms) i--;
  return i;
}

export interface PartialTimeline {
  /** The stored entry just before `stored` (null: `stored` begins the record). */
  before: StoredTimelineEntry | null;
  /** The record's highest version, wherever it is in the timeline. */
  highestVersion: number;
}

/**
 * Integrates `events` (any order; integrated in the order of the instants they state, then as
 * given) into a record of `kind` whose stored entries are `stored` (in store order): the whole
 * timeline, or, with `partial`, the entries from the earliest instant any event states on (a
 * long history is not read for events at its end; nothing before them can change).
 */
export function integrateEvents(kind: string, stored: readonly StoredTimelineEntry[], events: readonly EventToIntegrate[], partial?: PartialTimeline): RecordIntegration {
  const rules = timelineOf(kind);
  if (!rules) {
    return { entries: [], newHeads: [], outcomes: events.map((e) => ({ key: e.key, sequenced: false, reason: `the record is a ${kind}, which no event changes` })) };
  }
  return integrateWith(rules, stored, events, partial);
}

function integrateWith(rules: TimelineRules, stored: readonly StoredTimelineEntry[], events: readonly EventToIntegrate[], partial?: PartialTimeline): RecordIntegration {
  const seed = partial?.before ?? null;
  const facts = rules.facts(stored);
  // The seed stands first, as the change in force where the stored entries begin: the rules see what held before them.
  if (seed) facts.unshift({ at: seed.at, ms: Date.parse(seed.at), type: 'SEED', change: true, state: rules.stateAt(seed), head: seed.head, digest: undefined, source: undefined, stored: seed, eventKey: seed.eventKey, deliveryKey: undefined });
  let highest = partial?.highestVersion ?? 0;
  for (const e of stored) highest = Math.max(highest, e.head.version);
  const nextVersion = () => ++highest;
  const instants = new Map(events.map((e) => [e, Date.parse(e.at)] as const));
  const ordered = [...events].sort((a, b) => instants.get(a)! - instants.get(b)!);
  const decided = new Map<string, EventOutcome>();
  const reasons = new Map<Fact, string>();
  /** Events of this batch whose identity another event of the batch carries first: they share its outcome. */
  const twins = new Map<string, Fact>();
  let waiting: Fact[] = [];
  /** The identities already on an entry, and the batch's waiting facts by identity: looked up for every event. */
  const onEntries = new Map(facts.flatMap((f) => (f.eventKey === null ? [] : [[f.eventKey, f] as const])));
  const waitingByIdentity = new Map<string, Fact>();
  for (const event of ordered) {
    const identity = event.identity ?? event.key;
    // An event is integrated once, whichever delivery carries it: its identity already on an entry.
    const already = onEntries.get(identity);
    if (already) {
      decided.set(event.key, { key: event.key, sequenced: true, entryAt: already.at, version: already.head?.version ?? null });
      continue;
    }
    const twin = waitingByIdentity.get(identity);
    if (twin) {
      twins.set(event.key, twin);
      continue;
    }
    const statement = rules.statementOf(event);
    if (typeof statement === 'string') decided.set(event.key, { key: event.key, sequenced: false, reason: statement });
    else {
      // Built field by field (not spread): one shape for every fact, which a long history is integrated many times faster with.
      const fact: Fact = {
        at: event.at,
        ms: instants.get(event)!,
        type: statement.type,
        change: statement.change,
        state: statement.state,
        head: null,
        digest: statement.digest,
        source: statement.source,
        stored: null,
        eventKey: identity,
        deliveryKey: event.key,
      };
      waiting.push(fact);
      waitingByIdentity.set(identity, fact);
    }
  }
  const accept = (fact: Fact, before: Fact | null) => {
    fact.head = rules.versionOf(fact, before, nextVersion);
    decided.set(fact.deliveryKey!, { key: fact.deliveryKey!, sequenced: true, entryAt: fact.at, version: fact.head?.version ?? null });
  };
  // The newest change of the timeline, kept as events are appended (a file's history, events at
  // the end of a record): an event appended needs no look back over the observations before it.
  let newestChange = changeBefore(facts, facts.length);
  // One at a time, in instant order; again while any is accepted (an event whose neighbour of the
  // same instant came later in the batch fits once it is in).
  for (let progress = true; progress && waiting.length > 0; ) {
    progress = false;
    const still: Fact[] = [];
    for (const fact of waiting) {
      const i = insertionPoint(facts, fact.ms);
      const appended = i === facts.length;
      facts.splice(i, 0, fact);
      const before = appended ? newestChange : changeBefore(facts, i);
      const why = rules.refusal(facts, i, before);
      if (why) {
        facts.splice(i, 1);
        reasons.set(fact, why);
        still.push(fact);
      } else {
        accept(fact, before);
        if (fact.change && (appended || changeBefore(facts, facts.length) === fact)) newestChange = fact;
        progress = true;
      }
    }
    waiting = still;
  }
  // Late events that fit only together (a suspension and its reinstatement, both late): all of them at once, or none.
  if (waiting.length > 1) {
    for (const fact of waiting) facts.splice(insertionPoint(facts, fact.ms), 0, fact);
    if (waiting.every((fact) => rules.refusal(facts, facts.indexOf(fact), changeBefore(facts, facts.indexOf(fact))) === null)) {
      facts.forEach((f, i) => waiting.includes(f) && accept(f, changeBefore(facts, i)));
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
  const entries = rules.derive(facts, seed).map((d, i): DerivedEntry => ({ id: facts[i].stored?.id ?? null, at: d.at, entry: d.entry, view: d.view, head: d.head, eventKey: facts[i].eventKey, stored: facts[i].stored }));
  return { entries, newHeads, outcomes };
}
