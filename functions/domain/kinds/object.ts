import type { CanonicalEvent } from '../ingress/event';
import { isLifecycleState, lifecycleClass, type LifecycleState } from '../lifecycle';
import type { RecordHead } from '../record';
import {
  conflict,
  factOf,
  newVersion,
  type AdmissionRules,
  type CurrentRecord,
  type Decision,
  type EventToIntegrate,
  type Fact,
  type Head,
  type RecordBeginning,
  type Statement,
  type StoredTimelineEntry,
  type TimelineRules,
} from './kind';

/**
 * A living object (docs/semantics.md#lifecycle-states): an order, a warranty, a device. Its
 * versions are its states, stated by its authority (the service platform); between changes the
 * authority confirms the state it holds (an observation: what keeps `fresh` true).
 */
export const OBJECT_KIND = 'OBJECT';

export const OBJECT_STATE_CHANGED = 'svc.living-object.state-changed.v1';
export const OBJECT_AUTHORITY_OBSERVED = 'svc.living-object.authority-observed.v1';

/** The public content of an object version (what is shown and what the ledger logs). */
export interface ObjectContent {
  reference: string;
  objectType: string;
  businessReference: string;
  title: string;
  authority: string;
  state: string;
  stateSince: string;
  version: number;
  freshnessSeconds: number;
}
export type ObjectHead = RecordHead<ObjectContent>;

/** The cumulative view at an entry's instant. */
export interface ObjectView {
  state: string;
  lastObservedAt: string | null;
}

/** Which lifecycle classes may follow each class. Same-state "changes" are refused (use an observation). */
const OBJECT_SUCCESSORS = {
  GOOD_STANDING: ['GOOD_STANDING', 'REVOKED', 'HISTORICAL'],
  REVOKED: ['HISTORICAL'],
  HISTORICAL: [],
} as const;

/** Terminal object states: nothing follows them. */
export const isTerminalObjectState = (state: string): boolean => lifecycleClass(state) === 'HISTORICAL';

const words = (lifecycle: string) => lifecycle.toLowerCase().replace('_', ' ');

/** May an object go from `from` to `to`? (null when allowed, else the rule that forbids it) */
export function objectTransitionRefusal(from: string, to: string): string | null {
  if (from === to) return `the object is already ${to}; a confirmation without a change is an authority observation (${OBJECT_AUTHORITY_OBSERVED})`;
  const fromClass = lifecycleClass(from);
  if (fromClass === 'UNKNOWN') return `the object's state ${from} is outside the lifecycle table`;
  const allowed: readonly string[] = OBJECT_SUCCESSORS[fromClass];
  if (allowed.length === 0) return `${from} is terminal: nothing follows it`;
  if (!allowed.includes(lifecycleClass(to))) return `${from} (${words(fromClass)}) may be followed only by ${allowed.map(words).join(' or ')} states, not ${to}`;
  return null;
}

export const objectAdmission: AdmissionRules = {
  kind: OBJECT_KIND,
  eventTypes: [OBJECT_STATE_CHANGED, OBJECT_AUTHORITY_OBSERVED],
  stateOf: (view) => (typeof view?.state === 'string' ? view.state : null),
  admit(event: CanonicalEvent, record: CurrentRecord, late: boolean): Decision {
    const data = event.data as Record<string, string | null>;
    const objectType = record.content?.objectType;
    if (typeof objectType === 'string' && data.objectType !== objectType) return conflict(`Reference '${event.reference}' is a ${objectType}, not a ${data.objectType}.`);
    if (event.type === OBJECT_AUTHORITY_OBSERVED) {
      if (late) return { ok: true, effect: 'RECORDED_AS_HISTORY' };
      if (record.state !== data.state) return conflict(`The observation says ${data.state} but the object is ${record.state ?? 'in no state'}; a change is a ${OBJECT_STATE_CHANGED} event.`);
      return { ok: true, effect: 'CONFIRMS_CURRENT_STATE' };
    }
    const to = data.state!;
    if (late) {
      // previousState is the sender's statement: a late change must be allowed between its own states.
      const from = data.previousState;
      const why = from !== null && from !== undefined && isLifecycleState(from) ? objectTransitionRefusal(from, to) : null;
      return why ? conflict(`A late state change (${event.at}, before the newest entry ${record.newestAt}) must still be allowed: ${why}.`) : { ok: true, effect: 'RECORDED_AS_HISTORY' };
    }
    if (record.state === null) return conflict(`Reference '${event.reference}' has no state yet to change from.`);
    const why = objectTransitionRefusal(record.state, to);
    return why ? conflict(`The change to ${to} is not allowed: ${why}.`) : { ok: true, effect: 'ADVANCES_CURRENT_STATE' };
  },
};

export const objectTimeline: TimelineRules = {
  kind: OBJECT_KIND,
  readsWhole: false,
  facts: (stored) => stored.map((e) => factOf(e, String(e.entry.state), e.entry.type === 'STATE_CHANGED', e.entry.type === 'STATE_CHANGED' ? e.head : null)),
  statementOf(event: EventToIntegrate): Statement | string {
    const state = String(event.data.state);
    if (event.type === OBJECT_STATE_CHANGED) return { type: 'STATE_CHANGED', change: true, state };
    if (event.type === OBJECT_AUTHORITY_OBSERVED) return { type: 'AUTHORITY_OBSERVED', change: false, state, source: event.source };
    return `${event.type} is not about a living object`;
  },
  refusal(facts, i, before) {
    const fact = facts[i];
    if (!before) return `it states ${fact.at}, before the object's first state`;
    if (!fact.change) return fact.state === before.state ? null : `the authority observed ${fact.state} at ${fact.at}, but the object was ${before.state} then`;
    const why = objectTransitionRefusal(before.state, fact.state as LifecycleState);
    if (why) return `at ${fact.at} the object was ${before.state}: ${why}`;
    for (let j = i + 1; j < facts.length; j++) {
      const later = facts[j];
      if (!later.change && later.state !== fact.state) return `the authority observed ${later.state} at ${later.at}, after this change to ${fact.state}`;
      if (later.change) {
        const next = objectTransitionRefusal(fact.state, later.state);
        return next ? `the change to ${later.state} at ${later.at} could not follow ${fact.state}: ${next}` : null;
      }
    }
    return null;
  },
  versionOf: (fact, before, next) => (fact.change ? newVersion(before!.head!, next(), { state: fact.state, stateSince: fact.at }) : null),
  stateAt: (entry) => String(entry.view.state),
  derive(facts, seed) {
    let state: string | null = seed ? String(seed.view.state) : null;
    let head: Head | null = seed ? seed.head : null;
    let lastObservedAt: string | null = seed ? ((seed.view.lastObservedAt as string | null) ?? null) : null;
    return facts.map((f: Fact) => {
      const authority = String((f.head ?? head)!.content.authority);
      const source = f.stored ? f.stored.entry.source : (f.source ?? authority);
      let entry: Record<string, unknown>;
      if (f.change) {
        entry = { at: f.at, type: 'STATE_CHANGED', state: f.state, previousState: state, source };
        state = f.state;
        head = f.head;
      } else {
        lastObservedAt = f.at;
        entry = { at: f.at, type: 'AUTHORITY_OBSERVED', state, source };
      }
      return { at: f.at, entry, view: { state, lastObservedAt }, head: head! };
    });
  },
};

/** What a load file says of an object besides its history (lib/loader/formats/object.ts checks its form). */
export interface ObjectDescription {
  reference: string;
  objectType: string;
  businessReference: string;
  title: string;
  authority: string;
  freshnessSeconds: number;
  restricted?: Record<string, unknown>;
  history: ({ type: 'STATE_CHANGED'; at: string; state: string } | { type: 'AUTHORITY_OBSERVED'; at: string; source: string })[];
}

/**
 * An object as a file describes it: its first state is how it begins (no event creates a record),
 * every later history entry is the event that states it, integrated by the same rules as the
 * receivers' events. Instants are kept as the file writes them.
 */
export function objectFromFile(input: ObjectDescription): RecordBeginning {
  const [first, ...rest] = input.history;
  if (first?.type !== 'STATE_CHANGED') return { problems: [{ field: 'history.0.type', message: 'the first history entry must be a STATE_CHANGED' }] };
  const content: ObjectContent = {
    reference: input.reference,
    objectType: input.objectType,
    businessReference: input.businessReference,
    title: input.title,
    authority: input.authority,
    state: first.state,
    stateSince: first.at,
    version: 1,
    freshnessSeconds: input.freshnessSeconds,
  };
  const head: Head = { kind: OBJECT_KIND, reference: input.reference, version: 1, content: content as unknown as Record<string, unknown>, evidence: null };
  if (input.restricted) head.restricted = input.restricted;
  const genesis: StoredTimelineEntry = {
    id: '',
    at: first.at,
    entry: { at: first.at, type: 'STATE_CHANGED', state: first.state, previousState: null, source: input.authority },
    view: { state: first.state, lastObservedAt: null },
    head,
    eventKey: null,
  };
  // An observation in a file confirms the state as it stands then, as an observation event says it.
  let state = first.state;
  // Literals of one shape (not spreads): a long history is read many times faster so.
  const events = rest.map((h, i): EventToIntegrate => {
    if (h.type === 'AUTHORITY_OBSERVED') {
      return { key: `history.${i + 1}`, type: OBJECT_AUTHORITY_OBSERVED, reference: input.reference, at: h.at, data: { objectType: input.objectType, state, observedAt: h.at }, source: h.source };
    }
    state = h.state;
    return { key: `history.${i + 1}.state`, type: OBJECT_STATE_CHANGED, reference: input.reference, at: h.at, data: { objectType: input.objectType, state: h.state, changedAt: h.at }, source: undefined };
  });
  return { genesis, events, problems: [] };
}
