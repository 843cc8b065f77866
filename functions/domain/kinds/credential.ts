import type { CredentialLifecycleState, StatusPurpose } from '../../contract/schemas/credentials';
import type { CanonicalEvent } from '../ingress/event';
import type { RecordHead } from '../record';
import {
  conflict,
  factOf,
  newVersion,
  type AdmissionRules,
  type CurrentRecord,
  type Decision,
  type EventToIntegrate,
  type FileProblem,
  type Head,
  type Projection,
  type RecordBeginning,
  type Statement,
  type StoredTimelineEntry,
  type TimelineRules,
} from './kind';
import { PURPOSE_STATE, statusListIdOf, statusListReference, type CredentialStatusTimeline } from './status-list';

/**
 * A credential (docs/credentials.md): its versions are its statuses, stated by its issuer; its
 * status is published in its group's status lists (its projection onto them). Revocation is final
 * (W3C: "not reversible"); a suspension is lifted by a reinstatement.
 */
export const CREDENTIAL_KIND = 'CREDENTIAL';

export const CREDENTIAL_STATUS_CHANGED = 'svc.credential.status-changed.v1';
/**
 * A credential's confirmations by its issuer: a load file may state them (AUTHORITY_OBSERVED in a
 * history), no event does (docs/ingress.md#event-types), so no receiver takes this type.
 */
export const CREDENTIAL_CONFIRMED_IN_FILE = 'file.credential.authority-observed';

/** Lifecycle events a credential's timeline holds, and the state each leads to. */
export const CREDENTIAL_EVENTS = {
  ISSUED: 'ACTIVE',
  SUSPENDED: 'SUSPENDED',
  REINSTATED: 'ACTIVE',
  REVOKED: 'REVOKED',
} as const satisfies Record<string, CredentialLifecycleState>;
export type CredentialEvent = keyof typeof CREDENTIAL_EVENTS;

/** Which events may follow each state (ISSUED only starts a timeline). */
export const ALLOWED_EVENTS: Record<CredentialLifecycleState, readonly CredentialEvent[]> = {
  ACTIVE: ['SUSPENDED', 'REVOKED'],
  SUSPENDED: ['REINSTATED', 'REVOKED'],
  REVOKED: [],
};

/** The event that leads to a status (a change to ACTIVE is a reinstatement: issuance only begins a credential). */
const EVENT_TO: Record<string, CredentialEvent> = { SUSPENDED: 'SUSPENDED', REVOKED: 'REVOKED', ACTIVE: 'REINSTATED' };
const CREDENTIAL_STATES = Object.keys(ALLOWED_EVENTS);

/** Where a credential sits in a published list (one entry per purpose). */
export interface CredentialStatusSlot {
  statusPurpose: StatusPurpose;
  listId: string;
  statusListIndex: number;
}

/** The public content of a credential version: exactly what responses show and the ledger logs. */
export interface CredentialContent {
  credentialId: string;
  credentialType: string;
  title: string;
  /** Public identifier only (a DID or an https URL). */
  issuer: string;
  validFrom: string;
  validUntil: string | null;
  /** Public claims about the subject; never a subject identifier or personal data. */
  subject: { type: string; claims: Record<string, string | number | boolean> };
  status: CredentialLifecycleState;
  statusSince: string;
  statusList: string;
  statusSlots: CredentialStatusSlot[];
  freshnessSeconds: number;
  version: number;
}
export type CredentialHead = RecordHead<CredentialContent>;

export interface CredentialTimelineEntry {
  at: string;
  type: CredentialEvent | 'AUTHORITY_OBSERVED';
  status: CredentialLifecycleState;
  previousStatus: CredentialLifecycleState | null;
  source: string;
}

/** The cumulative view at an entry's instant. */
export interface CredentialView {
  status: CredentialLifecycleState;
  /** Latest instant the authority stated (a lifecycle event) or confirmed (an observation) the status. */
  lastConfirmedAt: string;
}

export interface CredentialWindowEntry {
  at: string;
  entry: CredentialTimelineEntry;
  view: CredentialView;
  head: CredentialHead;
  /** The head as stored, when read from the table (assessIntegrity remembers its outcome by it). */
  headText?: string;
}

/** May a credential's status go from `from` to `to`? (null when allowed, else the rule that forbids it) */
export function credentialTransitionRefusal(from: string, to: string): string | null {
  if (!(from in ALLOWED_EVENTS)) return `the credential's status ${from} is outside the credential lifecycle`;
  const allowed = ALLOWED_EVENTS[from as CredentialLifecycleState] as readonly string[];
  if (from === to) return `the credential is already ${to}`;
  if (allowed.length === 0) return `${from} is terminal (revocation is final): nothing follows it`;
  if (!allowed.includes(EVENT_TO[to])) return `${from} may be followed only by ${allowed.join(' or ')}, not ${to}`;
  return null;
}

export const credentialAdmission: AdmissionRules = {
  kind: CREDENTIAL_KIND,
  eventTypes: [CREDENTIAL_STATUS_CHANGED],
  stateOf: (view) => (typeof view?.status === 'string' ? view.status : null),
  admit(event: CanonicalEvent, record: CurrentRecord, late: boolean): Decision {
    const data = event.data as Record<string, string | null>;
    const to = data.status!;
    if (!CREDENTIAL_STATES.includes(to)) return { ok: false, status: 422, code: 'INVALID_REQUEST', detail: `Field 'data.status' must be one of ${CREDENTIAL_STATES.join(', ')}.`, field: 'data.status' };
    if (late) {
      const from = data.previousStatus;
      const why = from === null || from === undefined || !CREDENTIAL_STATES.includes(from) ? null : credentialTransitionRefusal(from, to);
      return why ? conflict(`A late status change must still be allowed: ${why}.`) : { ok: true, effect: 'RECORDED_AS_HISTORY' };
    }
    if (record.state === null) return conflict(`Credential '${event.reference}' has no status yet to change from.`);
    const why = credentialTransitionRefusal(record.state, to);
    return why ? conflict(`The change to ${to} is not allowed: ${why}.`) : { ok: true, effect: 'ADVANCES_CURRENT_STATE' };
  },
};

/** A credential's status changes in instant order (its issuance and lifecycle events; confirmations change nothing). */
export const statusChangesOf = (entries: readonly { at: string; entry: Record<string, unknown> }[]): { at: string; status: string }[] =>
  entries.filter((e) => e.entry.type !== 'AUTHORITY_OBSERVED').map((e) => ({ at: e.at, status: String(e.entry.status) }));

/** A credential's place in its group's lists, one slot per purpose (revocation, then suspension). */
export const statusSlotsOf = (group: string, position: number): CredentialStatusSlot[] =>
  (Object.keys(PURPOSE_STATE) as StatusPurpose[]).map((purpose) => ({ statusPurpose: purpose, listId: statusListIdOf(group, purpose), statusListIndex: position }));

/** What its group's lists need of a credential, from its entries: its group, issuer, issuance, and status changes. */
export function listMembershipOf(entries: readonly { at: string; entry: Record<string, unknown>; head: unknown }[]): { group: string; issuer: string; issuedAt: string; changes: { at: string; status: string }[] } {
  const content = (entries[0].head as CredentialHead).content;
  const changes = statusChangesOf(entries);
  return { group: content.statusList, issuer: content.issuer, issuedAt: changes[0].at, changes };
}

/** Places a credential in its group's lists: the slots go into every version of it (none: it is not listed). */
export function placeInLists(entries: readonly { head: unknown }[], position: number | undefined): void {
  if (position === undefined) return;
  for (const head of new Set(entries.map((e) => e.head as CredentialHead))) head.content.statusSlots = statusSlotsOf(head.content.statusList, position);
}

export const credentialTimeline: TimelineRules = {
  kind: CREDENTIAL_KIND,
  // Its status lists follow its whole status timeline, which is short (status changes only).
  readsWhole: true,
  facts: (stored) =>
    stored.map((e) => {
      const change = e.entry.type !== 'AUTHORITY_OBSERVED';
      return factOf(e, String(e.entry.status), change, change ? e.head : null);
    }),
  statementOf(event: EventToIntegrate): Statement | string {
    if (event.type === CREDENTIAL_CONFIRMED_IN_FILE) return { type: 'AUTHORITY_OBSERVED', change: false, state: String(event.data.status), source: event.source };
    if (event.type !== CREDENTIAL_STATUS_CHANGED) return `${event.type} is not about a credential`;
    const status = String(event.data.status);
    const type = EVENT_TO[status];
    if (!type) return `the status ${status} is not one a credential changes to`;
    return { type, change: true, state: status };
  },
  refusal(facts, i, before) {
    const fact = facts[i];
    if (!before) return `it states ${fact.at}, before the credential was issued`;
    if (!fact.change) return fact.state === before.state ? null : `the issuer confirmed ${fact.state} at ${fact.at}, but the credential was ${before.state} then`;
    const why = credentialTransitionRefusal(before.state, fact.state);
    if (why) return `at ${fact.at} the credential was ${before.state}: ${why}`;
    for (let j = i + 1; j < facts.length; j++) {
      const later = facts[j];
      if (!later.change && later.state !== fact.state) return `the issuer confirmed ${later.state} at ${later.at}, after this change to ${fact.state}`;
      if (later.change) {
        if (!(ALLOWED_EVENTS[fact.state as CredentialLifecycleState] as readonly string[]).includes(later.type)) return `the ${later.type} at ${later.at} could not follow ${fact.state}`;
        return null;
      }
    }
    return null;
  },
  versionOf: (fact, before, next) => (fact.change ? newVersion(before!.head!, next(), { status: fact.state, statusSince: fact.at }) : null),
  stateAt: (entry) => String(entry.view.status),
  derive(facts, seed) {
    let status: string | null = seed ? String(seed.view.status) : null;
    let head: Head | null = seed ? seed.head : null;
    return facts.map((f) => {
      const previousStatus = status;
      if (f.change) {
        status = f.state;
        head = f.head;
      }
      const source = f.stored ? f.stored.entry.source : (f.source ?? (head!.content as unknown as CredentialContent).issuer);
      const entry = f.change ? { at: f.at, type: f.type, status, previousStatus, source } : { at: f.at, type: f.type, status, previousStatus: status, source };
      // A lifecycle event is the issuer stating the status; an observation is the issuer confirming it.
      return { at: f.at, entry, view: { status, lastConfirmedAt: f.at }, head: head! };
    });
  },
  projections(entries, from): Projection[] {
    const newest = entries[entries.length - 1];
    const slots = (newest?.head.content.statusSlots ?? []) as CredentialStatusSlot[];
    const changes = statusChangesOf(entries);
    return slots.map((slot) => ({ reference: statusListReference(slot.listId), part: { position: slot.statusListIndex, changes } satisfies CredentialStatusTimeline, from }));
  },
};

/** What a load file says of a credential besides its history (lib/loader/formats/credential.ts checks its form). */
export interface CredentialDescription {
  reference: string;
  credentialType: string;
  title: string;
  issuer: string;
  validFrom: string;
  validUntil?: string;
  subject: { type: string; claims?: Record<string, string | number | boolean> };
  statusList: string;
  freshnessSeconds: number;
  restricted?: Record<string, unknown>;
  history: ({ type: CredentialEvent; at: string } | { type: 'AUTHORITY_OBSERVED'; at: string; source: string })[];
}

/** UTC ISO-8601 with milliseconds: a credential's instants are stored so. */
const utc = (at: string): string => new Date(Date.parse(at)).toISOString();

/**
 * A credential as a file describes it: its issuance is how it begins, every later lifecycle event
 * the status change an event states, every observation the issuer's confirmation, integrated by
 * the same rules as the receivers' events. It is placed in its group's lists later (statusSlotsOf).
 */
export function credentialFromFile(input: CredentialDescription): RecordBeginning {
  const [first, ...rest] = input.history;
  if (first?.type !== 'ISSUED') return { problems: [{ field: 'history.0.type', message: 'the first history entry must be ISSUED' }] };
  const problems: FileProblem[] = rest.flatMap((h, i) => (h.type === 'ISSUED' ? [{ field: `history.${i + 1}.type`, message: 'ISSUED only begins a credential\'s history' }] : []));
  if (problems.length > 0) return { problems };
  const at = utc(first.at);
  const content: CredentialContent = {
    credentialId: input.reference,
    credentialType: input.credentialType,
    title: input.title,
    issuer: input.issuer,
    validFrom: utc(input.validFrom),
    validUntil: input.validUntil === undefined ? null : utc(input.validUntil),
    subject: { type: input.subject.type, claims: input.subject.claims ?? {} },
    status: 'ACTIVE',
    statusSince: at,
    statusList: input.statusList,
    statusSlots: [],
    freshnessSeconds: input.freshnessSeconds,
    version: 1,
  };
  const head: Head = { kind: CREDENTIAL_KIND, reference: input.reference, version: 1, content: content as unknown as Record<string, unknown>, evidence: null };
  if (input.restricted) head.restricted = input.restricted;
  const genesis: StoredTimelineEntry = {
    id: '',
    at,
    entry: { at, type: 'ISSUED', status: 'ACTIVE', previousStatus: null, source: input.issuer },
    view: { status: 'ACTIVE', lastConfirmedAt: at },
    head,
    eventKey: null,
  };
  let status: string = 'ACTIVE';
  const events = rest.map((h, i): EventToIntegrate => {
    const at = utc(h.at);
    if (h.type === 'AUTHORITY_OBSERVED') return { key: `history.${i + 1}`, type: CREDENTIAL_CONFIRMED_IN_FILE, reference: input.reference, at, data: { status, observedAt: at }, source: h.source };
    const previousStatus = status;
    status = CREDENTIAL_EVENTS[h.type];
    return { key: `history.${i + 1}.type`, type: CREDENTIAL_STATUS_CHANGED, reference: input.reference, at, data: { previousStatus, status, changedAt: at }, source: undefined };
  });
  return { genesis, events, problems: [] };
}
