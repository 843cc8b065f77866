import type { IngressEffect } from '../../contract/ingress-values';
import type { CanonicalEvent } from '../ingress/event';
import type { RecordHead } from '../record';

/**
 * What every record kind declares (docs/ingress.md#record-kinds): how a record of the kind begins,
 * which events are about it, what the receivers decide for one, and how an event becomes a fact of
 * its timeline and a fact a version. The general algorithms (functions/domain/ingress/integrate.ts,
 * functions/domain/ingress/rules.ts) ask the kind; nothing outside functions/domain/kinds/ knows
 * what a kind's states, statuses or entries mean (test/unit/layering.test.ts holds that).
 */

export type Head = RecordHead<Record<string, unknown>>;

/** A stored timeline entry as a writer reads it back (the record store, functions/store/ports/records.ts). */
export interface StoredTimelineEntry {
  /** The entry's identity in the store: opaque, handed back when the entry is written again. */
  id: string;
  at: string;
  entry: Record<string, unknown>;
  view: Record<string, unknown>;
  head: Head;
  /** The identity of the event that produced this entry, when one did. */
  eventKey: string | null;
}

/** An event to integrate: accepted by a receiver, or a file's history entry (the loader). */
export interface EventToIntegrate {
  /** What its outcome is reported under (its pending item, or the file's history entry). */
  key: string;
  /**
   * Its identity (its sender's CloudEvents source and id), written on its entry: an identity
   * already in the timeline, or met earlier in the batch, is never integrated again. Default: `key`.
   */
  identity?: string;
  type: string;
  reference: string;
  /** The instant it states (changedAt or observedAt). */
  at: string;
  data: Record<string, unknown>;
  /** Who stated it, when the statement names it (an observation in a file names its source); else the kind's authority. */
  source?: string;
}

export type EventOutcome = { key: string; sequenced: true; entryAt: string; version: number | null } | { key: string; sequenced: false; reason: string };

/** An entry as it must now be stored; `id` is null for a new entry (the store places it). */
export interface DerivedEntry {
  id: string | null;
  at: string;
  entry: Record<string, unknown>;
  view: Record<string, unknown>;
  head: Head;
  eventKey: string | null;
  /** The stored entry this replaces, to tell whether anything changed. */
  stored: StoredTimelineEntry | null;
}

/** One fact of a timeline: a stored entry, or an event being inserted. */
export interface Fact {
  at: string;
  ms: number;
  /** The entry type the fact is (the kind's vocabulary). */
  type: string;
  /** True for a fact that starts a version (a change of state or status, an issuance), built or not. */
  change: boolean;
  /** The state, status or source state the fact states or claims. */
  state: string;
  /** A change's own version; null for observations and snapshots. */
  head: Head | null;
  /** Source snapshots: the digest observed. */
  digest?: string;
  /** Who stated it, when the event named it. */
  source?: string;
  stored: StoredTimelineEntry | null;
  /** The identity of the event it states (written on its entry). */
  eventKey: string | null;
  /** An event being inserted: what its outcome is reported under. */
  deliveryKey?: string;
}

/** What an event states, as a fact of a kind's timeline (its place and identity are added by the algorithm). */
export type Statement = Pick<Fact, 'type' | 'change' | 'state' | 'digest' | 'source'>;

/** The entry's stored parts as a kind derives them at a fact. */
export interface DerivedParts {
  at: string;
  entry: Record<string, unknown>;
  view: Record<string, unknown>;
  head: Head;
}

/** How the records of a kind are projected onto records derived from them (a credential onto its status lists). */
export interface Projection {
  /** The derived record. */
  reference: string;
  /** What the derived record must follow (a credential's position and status changes). */
  part: unknown;
  /** The earliest instant the change behind it states: the derived record cannot change before it. */
  from: string;
}

/** A kind's timeline: how events become facts, facts versions, and every entry's stored parts. */
export interface TimelineRules {
  kind: string;
  /** Read the whole record before integrating (its projections need its whole timeline), not only from the earliest event. */
  readsWhole: boolean;
  /** The stored entries as facts. */
  facts(stored: readonly StoredTimelineEntry[]): Fact[];
  /** What the event states for this kind of record, or why it is not about one. */
  statementOf(event: EventToIntegrate): Statement | string;
  /** Why facts[i], just inserted, breaks the rules with its neighbours, or null; `before` is the change in force just before it (changeBefore). */
  refusal(facts: readonly Fact[], i: number, before: Fact | null): string | null;
  /** The version a change inserted at facts[i] creates (null for observations and snapshots) after `before`; `next` numbers it. */
  versionOf(fact: Fact, before: Fact | null, next: () => number): Head | null;
  /**
   * Every fact's stored parts, derived over the timeline; `seed` is the stored entry just before
   * the facts (its view and version are what is in force where they begin), null when they begin
   * the record.
   */
  derive(facts: readonly Fact[], seed: StoredTimelineEntry | null): DerivedParts[];
  /** What a stored entry states (the state, status or source state in force at it). */
  stateAt(entry: StoredTimelineEntry): string;
  /** The records derived from this one that must follow its timeline, now `entries`; none for most kinds. */
  projections?(entries: readonly DerivedEntry[], from: string): Projection[];
  /** How a derived record follows what is projected onto it (`stored`: its entries from the earliest `from`, with the one in force then). */
  follow?(stored: readonly StoredTimelineEntry[], parts: readonly unknown[], highestVersion: number): { entries: DerivedEntry[]; newHeads: Head[] };
}

/** The record as the service holds it now, as the receivers read it (its newest entry). */
export interface CurrentRecord {
  exists: boolean;
  kind: string | null;
  /** Instant of the newest entry (UTC ISO-8601 with milliseconds), null when none. */
  newestAt: string | null;
  /** What the kind says its newest view states (kind.stateOf): an object's state, a credential's status, a proof source's last state. */
  state: string | null;
  /** The content of the version in force, null when none. */
  content: Record<string, unknown> | null;
}

export type Refusal = { ok: false; status: 404 | 409 | 422; code: 'NOT_FOUND' | 'WRONG_RECORD_KIND' | 'TRANSITION_FORBIDDEN' | 'INVALID_REQUEST'; detail: string; field?: string };
export type Decision = { ok: true; effect: IngressEffect } | Refusal;

/** What the receivers ask a kind (functions/domain/ingress/rules.ts decide). */
export interface AdmissionRules {
  kind: string;
  /** The event types about this kind of record. */
  eventTypes: readonly string[];
  /** What a stored view states: an object's state, a credential's status, a proof source's last synchronized state. */
  stateOf(view: Record<string, unknown> | null | undefined): string | null;
  /**
   * The decision for an event about a record of this kind that exists: `late` when the event
   * states an instant at or before the record's newest entry (it is recorded as history and never
   * rolls the current state back).
   */
  admit(event: CanonicalEvent, record: CurrentRecord, late: boolean): Decision;
}

/** A problem of a file's record: the field (a history entry: `history.<i>...`) and why. */
export interface FileProblem {
  field: string;
  message: string;
}

/**
 * A record as a load file describes it, ready for the integration rules: how it begins (its first
 * entry, holding its first version: no event creates a record) and every later history entry as
 * the event that states it, keyed by the field of the file that states it (`history.<i>.state`,
 * `synchronizations.<i>`), so each outcome names its entry. With problems, nothing else: the file
 * cannot describe the record.
 */
export type RecordBeginning = { genesis: StoredTimelineEntry; events: EventToIntegrate[]; problems: [] } | { genesis?: undefined; events?: undefined; problems: FileProblem[] };

export const conflict = (detail: string): Refusal => ({ ok: false, status: 409, code: 'TRANSITION_FORBIDDEN', detail });

/** The newest change before index i (exclusive), or null. */
export function changeBefore(facts: readonly Fact[], i: number): Fact | null {
  for (let j = i - 1; j >= 0; j--) if (facts[j].change) return facts[j];
  return null;
}


/** A stored entry as a fact of its timeline. */
export const factOf = (e: StoredTimelineEntry, state: string, change: boolean, head: Head | null, digest?: string): Fact => ({
  at: e.at,
  ms: Date.parse(e.at),
  type: String(e.entry.type),
  change,
  state,
  head,
  digest,
  source: undefined,
  stored: e,
  eventKey: e.eventKey,
  deliveryKey: undefined,
});

/** A new version after `before`: its content with `fields` and the version changed, field order kept (the store compares JSON). */
export function newVersion(before: Head, version: number, fields: Record<string, unknown>): Head {
  const head: Head = { kind: before.kind, reference: before.reference, version, content: { ...before.content, ...fields, version }, evidence: null };
  if (before.restricted) head.restricted = before.restricted;
  return head;
}
