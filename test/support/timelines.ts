import { createHash } from 'node:crypto';
import { ALLOWED_EVENTS, CREDENTIAL_EVENTS, type CredentialEvent } from '../../functions/domain/kinds/credential';
import type { CredentialRecordInput } from '../../lib/loader/formats/credential';
import { expandFromFile } from '../../lib/loader/expand';
import type { RecordFormat } from '../../lib/loader/formats/shared';
import type { DerivedEntry, EventToIntegrate, RecordIntegration, StoredTimelineEntry } from '../../functions/domain/ingress/integrate';
import { entrySk } from '../../functions/store/layout';
import type { RecordToStore } from '../../functions/store/ports/records';
import { entrySeqOf } from '../../functions/store/layout';

/**
 * Stored timelines as the sequencer reads them back, built the way the table gets them: the
 * loader's own expanders produce the entries, and what the table would hold is rebuilt from them
 * (sort keys from entrySk, the JSON the items carry). Tests of the pure integration rules then read
 * the same shapes the service does, not hand-written approximations that could drift from them.
 */

/** Minutes after a fixed instant, as the store writes instants (UTC ISO-8601 with milliseconds). */
export const BASE_MS = Date.parse('2026-03-01T08:00:00.000Z');
export const at = (minutes: number): string => new Date(BASE_MS + minutes * 60_000).toISOString();

/** Fields the loader reads and removes before writing (the ledger step's `anchored`, the list step's `pinnedIndex`). */
const LOADER_ONLY_FIELDS = ['anchored', 'pinnedIndex', 'alterStoredContentAfterLogging'];

/** What a JSON item attribute gives back: plain data, no shared objects between entries. */
const asStored = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A file's record as the loader expands it (its kind's rules applied to its history); throws on a problem. */
export function expanded<Input>(format: RecordFormat<Input>, input: Input & { reference: string }): RecordToStore {
  const out = expandFromFile(format, input);
  if (out.problems) throw new Error(`the record does not load: ${JSON.stringify(out.problems)}`);
  return out.record;
}

/** The loader's record as the table holds it: one entry item per timeline entry, its id (the sort key) from its position. */
export function storedFrom(record: RecordToStore): StoredTimelineEntry[] {
  return record.entries.map((e, seq) => {
    const head = asStored(e.head) as Record<string, unknown>;
    for (const field of LOADER_ONLY_FIELDS) delete head[field];
    return {
      id: entrySk(e.at, seq),
      at: e.at,
      entry: asStored(e.entry) as Record<string, unknown>,
      view: asStored(e.view) as Record<string, unknown>,
      head: head as unknown as StoredTimelineEntry['head'],
      eventKey: null,
    };
  });
}

/**
 * The entries after the sequencer wrote `derived` over `stored` (functions/ledger-writer/sequencer.ts):
 * a new entry gets the next sequence number after the record's highest, in timeline order; every
 * entry is read back as JSON and in sort-key order.
 */
export function storedAfter(stored: readonly StoredTimelineEntry[], derived: readonly DerivedEntry[]): StoredTimelineEntry[] {
  let seq = stored.reduce((highest, e) => Math.max(highest, entrySeqOf(e.id)), -1);
  const written = derived.map((e) => ({
    id: e.id ?? entrySk(e.at, ++seq),
    at: e.at,
    entry: asStored(e.entry),
    view: asStored(e.view),
    head: asStored(e.head),
    eventKey: e.eventKey,
  }));
  return written.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Whether a derived entry would be written again: the sequencer compares the JSON of what is
 * stored with what is derived, so key order matters as much as values do.
 */
export function unchangedEntry(e: DerivedEntry): boolean {
  if (!e.stored) return false;
  return (
    e.stored.eventKey === e.eventKey &&
    JSON.stringify(e.stored.entry) === JSON.stringify(e.entry) &&
    JSON.stringify(e.stored.view) === JSON.stringify(e.view) &&
    JSON.stringify(e.stored.head) === JSON.stringify(e.head)
  );
}

/** The entry in force at `instant`: the newest at or before it (the as-of read of functions/store/layout.ts). */
export function inForceAt<E extends { at: string }>(entries: readonly E[], instant: string): E | undefined {
  let found: E | undefined;
  for (const e of entries) if (Date.parse(e.at) <= Date.parse(instant)) found = e;
  return found;
}

export const sequencedKeys = (integration: RecordIntegration): string[] => integration.outcomes.filter((o) => o.sequenced).map((o) => o.key);

/** Canonical events as a receiver stores them (functions/contract/events.ts), keyed like pending items. */
export const events = {
  stateChanged: (key: string, instant: string, state: string, previousState: string | null = null, reference = 'ORD-1'): EventToIntegrate => ({
    key: `P#shop#${key}`,
    type: 'svc.living-object.state-changed.v1',
    reference,
    at: instant,
    data: { objectType: 'ORDER', previousState, state, changedAt: instant, recordVersion: 1 },
  }),
  observed: (key: string, instant: string, state: string, reference = 'ORD-1'): EventToIntegrate => ({
    key: `P#shop#${key}`,
    type: 'svc.living-object.authority-observed.v1',
    reference,
    at: instant,
    data: { objectType: 'ORDER', state, observedAt: instant },
  }),
  statusChanged: (key: string, instant: string, status: string, previousStatus: string | null = null, reference = 'CRED-1'): EventToIntegrate => ({
    key: `P#issuer#${key}`,
    type: 'svc.credential.status-changed.v1',
    reference,
    at: instant,
    data: { previousStatus, status, changedAt: instant },
  }),
  snapshot: (key: string, instant: string, sourceState: string, digest: string, reference = 'PRF-1'): EventToIntegrate => ({
    key: `P#commerce#${key}`,
    type: 'svc.commercial-proof.source-snapshot.v1',
    reference,
    at: instant,
    data: { sourceState, digest, observedAt: instant },
  }),
};

/** A distinct source digest for each n, in the form the snapshot event carries. */
export const digestOf = (n: number): string => `sha256:${createHash('sha256').update(`source record ${n}`).digest('hex')}`;

/** The grid (minutes) random histories and events share, so equal instants happen. */
export const STEP = 5;

type CredentialHistory = CredentialRecordInput['history'];
export const lifecycle = (type: CredentialEvent, minute: number) => ({ type, at: at(minute) });

/**
 * A credential history the loader accepts, from random steps: issued at `start`, then each step a
 * few grid steps later either an observation or one of the lifecycle events its status allows.
 */
export function credentialHistoryOf(steps: { gap: number; observe: boolean; pick: number }[], start = 0): CredentialHistory {
  let minute = start;
  let status: keyof typeof ALLOWED_EVENTS = 'ACTIVE';
  const history: CredentialHistory = [lifecycle('ISSUED', start)];
  for (const step of steps) {
    minute += step.gap * STEP;
    const next: readonly CredentialEvent[] = ALLOWED_EVENTS[status];
    if (step.observe || next.length === 0) history.push({ type: 'AUTHORITY_OBSERVED', at: at(minute), source: 'issuer-registry' });
    else {
      const type: CredentialEvent = next[step.pick % next.length];
      status = CREDENTIAL_EVENTS[type];
      history.push(lifecycle(type, minute));
    }
  }
  return history;
}
