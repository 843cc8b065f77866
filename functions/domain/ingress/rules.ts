import { REPLAY_WINDOW_SECONDS } from '../../contract/ingress-values';
import { admissionOfEventType, admissionOfKind } from '../kinds/admission';
import type { CurrentRecord, Decision } from '../kinds/kind';
import type { CanonicalEvent } from './event';

export type { CurrentRecord, Decision } from '../kinds/kind';

/**
 * What the receivers decide for an accepted event against the record it names (docs/ingress.md#lifecycle-rules
 * and #rules-of-order), whatever its kind: the kind (functions/domain/kinds/) says which events are
 * about it and what it allows. Pure: the record as it stands (one Query) and the event in, a decision out.
 */

/** The record as the receivers read it: its newest entry, its state as its kind reads it from the view. */
export function currentRecordOf(window: {
  exists: boolean;
  kind: string | null;
  entries: readonly { at: string; view: unknown; head: unknown }[];
}): CurrentRecord {
  const newest = window.entries[0];
  const state = admissionOfKind(window.kind)?.stateOf(newest?.view as Record<string, unknown> | undefined) ?? null;
  const content = ((newest?.head as { content?: Record<string, unknown> } | undefined)?.content ?? null);
  return { exists: window.exists, kind: window.kind, newestAt: newest?.at ?? null, state, content };
}

/**
 * The decision for one event against the record as it stands at `now`:
 *  1. The instant the event states may not lie beyond the replay window in the future (422).
 *  2. The record must exist (404): no event creates a record; records are created by the loader.
 *  3. It must be of the kind the event is about (409 WRONG_RECORD_KIND).
 *  4. The kind decides: an event older than (or at) the record's newest entry is late, recorded
 *     in the timeline at its own instant, never rolling the current state back; a newer one is
 *     checked against the current state (409 TRANSITION_FORBIDDEN when the kind forbids it).
 */
export function decide(event: CanonicalEvent, record: CurrentRecord, now: string): Decision {
  const timeField = 'changedAt' in event.data ? 'data.changedAt' : 'data.observedAt';
  if (Date.parse(event.at) > Date.parse(now) + REPLAY_WINDOW_SECONDS * 1000) {
    return { ok: false, status: 422, code: 'INVALID_REQUEST', detail: `Field '${timeField}' is in the future (${event.at}); the service clock is ${now}.`, field: timeField };
  }
  const rules = admissionOfEventType(event.type);
  if (!rules) return { ok: false, status: 422, code: 'INVALID_REQUEST', detail: `Field 'type' names an event this service does not receive.`, field: 'type' };
  const kind = rules.kind;
  if (!record.exists) return { ok: false, status: 404, code: 'NOT_FOUND', detail: `No record is held under reference '${event.reference}'; events never create records.` };
  if (record.kind !== kind) {
    return { ok: false, status: 409, code: 'WRONG_RECORD_KIND', detail: `Reference '${event.reference}' holds a ${record.kind ?? 'record of unknown kind'}, not a ${kind}; ${event.type} is about a ${kind}.` };
  }
  const late = record.newestAt !== null && Date.parse(event.at) <= Date.parse(record.newestAt);
  return rules.admit(event, record, late);
}
