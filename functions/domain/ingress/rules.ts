import { REPLAY_WINDOW_SECONDS, type IngressEffect } from '../../contract/ingress-values';
import { ALLOWED_EVENTS, CREDENTIAL_KIND } from '../credentials/model';
import { isLifecycleState, lifecycleClass, type LifecycleState } from '../lifecycle';
import { COMMERCIAL_PROOF_KIND } from '../proofs';
import type { CanonicalEvent } from './event';

/**
 * The rules an accepted event must satisfy against the record it names, and what it will do to
 * that record (docs/ingress.md#lifecycle-rules and #rules-of-order). Pure: the record as it stands
 * (one Query) and the event in, a decision out.
 */

export const OBJECT_KIND = 'OBJECT';

/** The record as the service holds it now: its kind and its newest entry (null fields when unknown). */
export interface CurrentRecord {
  exists: boolean;
  kind: string | null;
  /** Instant of the newest entry (UTC ISO-8601 with milliseconds), null when none. */
  newestAt: string | null;
  /** Object state, credential status, or the proof source's last synchronized state. */
  state: string | null;
  /** Object type of a living object. */
  objectType: string | null;
}

export type Decision =
  | { ok: true; effect: IngressEffect }
  | { ok: false; status: 404 | 409 | 422; code: 'NOT_FOUND' | 'WRONG_RECORD_KIND' | 'TRANSITION_FORBIDDEN' | 'INVALID_REQUEST'; detail: string; field?: string };

/** Which lifecycle classes may follow each class. Same-state "changes" are refused (use an observation). */
const OBJECT_SUCCESSORS = {
  GOOD_STANDING: ['GOOD_STANDING', 'REVOKED', 'HISTORICAL'],
  REVOKED: ['HISTORICAL'],
  HISTORICAL: [],
} as const;

/** Terminal object states: nothing follows them. */
export const isTerminalObjectState = (state: string): boolean => lifecycleClass(state) === 'HISTORICAL';

/** May an object go from `from` to `to`? (null when allowed, else why not) */
export function objectTransitionRefusal(from: string, to: LifecycleState): string | null {
  if (from === to) return `the object is already ${to}; a confirmation without a change is an authority observation (svc.living-object.authority-observed.v1)`;
  const fromClass = lifecycleClass(from);
  if (fromClass === 'UNKNOWN') return `the object's state ${from} is outside the lifecycle table`;
  const allowed: readonly string[] = OBJECT_SUCCESSORS[fromClass];
  if (allowed.length === 0) return `${from} is terminal: nothing follows it`;
  if (!allowed.includes(lifecycleClass(to))) return `${from} (${fromClass.toLowerCase().replace('_', ' ')}) may be followed only by ${allowed.map((c) => c.toLowerCase().replace('_', ' ')).join(' or ')} states, not ${to}`;
  return null;
}

const CREDENTIAL_EVENT_OF = { SUSPENDED: 'SUSPENDED', REVOKED: 'REVOKED', ACTIVE: 'REINSTATED' } as const;
const CREDENTIAL_STATES = Object.keys(ALLOWED_EVENTS);

export function credentialTransitionRefusal(from: string, to: string): string | null {
  if (!(from in ALLOWED_EVENTS)) return `the credential's status ${from} is outside the credential lifecycle`;
  const event = CREDENTIAL_EVENT_OF[to as keyof typeof CREDENTIAL_EVENT_OF];
  const allowed = ALLOWED_EVENTS[from as keyof typeof ALLOWED_EVENTS] as readonly string[];
  if (from === to) return `the credential is already ${to}`;
  if (allowed.length === 0) return `${from} is terminal: nothing follows it`;
  if (!allowed.includes(event)) return `${from} may be followed only by ${allowed.join(' or ')}, not ${to}`;
  return null;
}

const KIND_OF_TYPE: Record<string, string> = {
  'svc.living-object.state-changed.v1': OBJECT_KIND,
  'svc.living-object.authority-observed.v1': OBJECT_KIND,
  'svc.credential.status-changed.v1': CREDENTIAL_KIND,
  'svc.commercial-proof.source-snapshot.v1': COMMERCIAL_PROOF_KIND,
};

const conflict = (detail: string): Decision => ({ ok: false, status: 409, code: 'TRANSITION_FORBIDDEN', detail });

/**
 * The decision for one event against the record as it stands at `now`:
 *  1. The instant the event states may not lie beyond the replay window in the future (422).
 *  2. The record must exist (404): no event creates a record; records are created by the loader.
 *  3. It must be of the kind the event is about (409 WRONG_RECORD_KIND).
 *  4. An event older than (or at) the record's newest entry is late: it will be recorded in the
 *     timeline at its own instant and never rolls the current state back (RECORDED_AS_HISTORY);
 *     a late state change must still be a transition the table allows between its own states.
 *  5. An event newer than the newest entry is checked against the current state: a state change
 *     must be allowed (409 TRANSITION_FORBIDDEN, e.g. nothing follows a terminal state), an
 *     observation must confirm the state held (409 otherwise).
 */
export function decide(event: CanonicalEvent, record: CurrentRecord, now: string): Decision {
  const timeField = 'changedAt' in event.data ? 'data.changedAt' : 'data.observedAt';
  if (Date.parse(event.at) > Date.parse(now) + REPLAY_WINDOW_SECONDS * 1000) {
    return { ok: false, status: 422, code: 'INVALID_REQUEST', detail: `Field '${timeField}' is in the future (${event.at}); the service clock is ${now}.`, field: timeField };
  }
  const kind = KIND_OF_TYPE[event.type];
  if (!record.exists) return { ok: false, status: 404, code: 'NOT_FOUND', detail: `No record is held under reference '${event.reference}'; events never create records.` };
  if (record.kind !== kind) {
    return { ok: false, status: 409, code: 'WRONG_RECORD_KIND', detail: `Reference '${event.reference}' holds a ${record.kind ?? 'record of unknown kind'}, not a ${kind}; ${event.type} is about a ${kind}.` };
  }
  const data = event.data as Record<string, string | null>;
  if (kind === OBJECT_KIND && record.objectType !== null && data.objectType !== record.objectType) {
    return conflict(`Reference '${event.reference}' is a ${record.objectType}, not a ${data.objectType}.`);
  }
  if (kind === CREDENTIAL_KIND && !CREDENTIAL_STATES.includes(data.status!)) {
    return { ok: false, status: 422, code: 'INVALID_REQUEST', detail: `Field 'data.status' must be one of ${CREDENTIAL_STATES.join(', ')}.`, field: 'data.status' };
  }
  const late = record.newestAt !== null && Date.parse(event.at) <= Date.parse(record.newestAt);

  switch (event.type) {
    case 'svc.living-object.state-changed.v1': {
      const to = data.state as LifecycleState;
      if (late) {
        const from = data.previousState;
        const why = from === null ? null : isLifecycleState(from) ? objectTransitionRefusal(from, to) : null;
        return why ? conflict(`A late state change (${event.at}, before the newest entry ${record.newestAt}) must still be allowed: ${why}.`) : { ok: true, effect: 'RECORDED_AS_HISTORY' };
      }
      if (record.state === null) return conflict(`Reference '${event.reference}' has no state yet to change from.`);
      const why = objectTransitionRefusal(record.state, to);
      return why ? conflict(`The change to ${to} is not allowed: ${why}.`) : { ok: true, effect: 'ADVANCES_CURRENT_STATE' };
    }
    case 'svc.living-object.authority-observed.v1': {
      if (late) return { ok: true, effect: 'RECORDED_AS_HISTORY' };
      if (record.state !== data.state) {
        return conflict(`The observation says ${data.state} but the object is ${record.state ?? 'in no state'}; a change is a svc.living-object.state-changed.v1 event.`);
      }
      return { ok: true, effect: 'CONFIRMS_CURRENT_STATE' };
    }
    case 'svc.credential.status-changed.v1': {
      const to = data.status!;
      if (late) {
        const from = data.previousStatus;
        const why = from === null || !CREDENTIAL_STATES.includes(from) ? null : credentialTransitionRefusal(from, to);
        return why ? conflict(`A late status change must still be allowed: ${why}.`) : { ok: true, effect: 'RECORDED_AS_HISTORY' };
      }
      if (record.state === null) return conflict(`Credential '${event.reference}' has no status yet to change from.`);
      const why = credentialTransitionRefusal(record.state, to);
      return why ? conflict(`The change to ${to} is not allowed: ${why}.`) : { ok: true, effect: 'ADVANCES_CURRENT_STATE' };
    }
    case 'svc.commercial-proof.source-snapshot.v1':
      return { ok: true, effect: late ? 'RECORDED_AS_HISTORY' : 'ADVANCES_CURRENT_STATE' };
    default:
      return { ok: false, status: 422, code: 'INVALID_REQUEST', detail: `Field 'type' names an event this service does not receive.`, field: 'type' };
  }
}
