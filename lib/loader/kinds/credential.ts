import { createHash } from 'node:crypto';
import * as z from 'zod';
import { Instant } from '../../../functions/contract/schemas/common';
import { ClaimId, STATUS_PURPOSES, type CredentialLifecycleState } from '../../../functions/contract/schemas/credentials';
import { encodeStatusList, MIN_STATUS_LIST_ENTRIES } from '../../../functions/domain/credentials/bitstring';
import {
  ALLOWED_EVENTS,
  CREDENTIAL_EVENTS,
  CREDENTIAL_KIND,
  PURPOSE_STATE,
  STATUS_LIST_KIND,
  statusListIdOf,
  statusListReference,
  type CredentialContent,
  type CredentialEvent,
  type CredentialHead,
  type CredentialTimelineEntry,
  type CredentialView,
  type StatusListContent,
  type StatusListWindowEntry,
} from '../../../functions/domain/credentials/model';
import { canonicalInstant } from '../../../functions/store/layout';
import type { RecordToStore } from '../../../functions/store/write';
import type { RecordProblem } from '../problems';
import { increasingInstants, Restricted, type RecordKind } from './shared';

/**
 * Claim names that would carry personal data. Public claims are the record author's promise,
 * so this is a safety net, not the guarantee: anything about the person belongs in `restricted`.
 */
const PERSONAL_CLAIM_NAMES = new Set(
  [
    'name', 'givenName', 'familyName', 'fullName', 'firstName', 'lastName', 'email', 'emailAddress', 'phone', 'telephone',
    'mobile', 'birthDate', 'dateOfBirth', 'birthPlace', 'address', 'streetAddress', 'postalCode', 'nationalId',
    'passportNumber', 'ssn', 'taxId', 'iban', 'cardNumber', 'accountNumber', 'photo', 'image', 'holder', 'subject',
  ].map((n) => n.toLowerCase()),
);
const RESERVED_CLAIM_NAMES = new Set(['id', 'type']);

const ClaimValue = z.union([z.string().max(120), z.number().finite(), z.boolean()]);
const Claims = z
  .record(z.string().regex(/^[a-z][A-Za-z0-9]{0,39}$/, 'a camelCase claim name'), ClaimValue)
  .superRefine((claims, ctx) => {
    const names = Object.keys(claims);
    if (names.length > 20) ctx.addIssue({ code: 'custom', message: 'at most 20 public claims' });
    for (const name of names) {
      if (RESERVED_CLAIM_NAMES.has(name)) ctx.addIssue({ code: 'custom', path: [name], message: `'${name}' is set by the service, not a claim` });
      else if (PERSONAL_CLAIM_NAMES.has(name.toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [name], message: `'${name}' looks like personal data; keep it in restricted` });
      }
    }
  });

/** A DID or an https URL: the issuer's public identifier, nothing more. */
const IssuerId = z
  .string()
  .max(200)
  .regex(/^(did:[a-z0-9]+:[A-Za-z0-9._:%-]+|https:\/\/[A-Za-z0-9.-]+(\/[A-Za-z0-9._~%/-]*)?)$/, 'a DID or an https URL');

const StatusListGroup = z.string().regex(/^[a-z0-9][a-z0-9-]{1,59}$/, '2 to 60 characters of a-z 0-9 -');

const LifecycleEntry = <T extends CredentialEvent>(type: T) =>
  z.strictObject({
    type: z.literal(type),
    at: Instant,
    /** false: this version is not yet in the ledger (its evidence stays that of the previous version). */
    anchored: z.boolean().optional(),
  });

export const CredentialRecordInput = z
  .strictObject({
    kind: z.literal(CREDENTIAL_KIND),
    reference: ClaimId,
    credentialType: z
      .string()
      .regex(/^[A-Z][A-Za-z0-9]{2,63}$/, 'a PascalCase type such as MembershipCredential')
      .refine((t) => t !== 'VerifiableCredential', 'VerifiableCredential is always added; name the specific type'),
    title: z.string().min(1).max(200),
    issuer: IssuerId,
    validFrom: Instant,
    validUntil: Instant.optional(),
    subject: z.strictObject({
      type: z.string().regex(/^[A-Z][A-Za-z0-9]{1,63}$/, 'a PascalCase type such as Member'),
      claims: Claims.optional(),
    }),
    /** The status list group; the service publishes <group>-revocation and <group>-suspension. */
    statusList: StatusListGroup,
    /** Pins the position in the group's lists (an index assigned at issuance); otherwise one is derived. */
    statusListIndex: z.number().int().min(0).max(MIN_STATUS_LIST_ENTRIES - 1).optional(),
    /** How long a statement or confirmation of the status by the issuer keeps it fresh. */
    freshnessSeconds: z.number().int().min(1).max(366 * 24 * 3600),
    history: z
      .array(
        z.discriminatedUnion('type', [
          LifecycleEntry('ISSUED'),
          LifecycleEntry('SUSPENDED'),
          LifecycleEntry('REINSTATED'),
          LifecycleEntry('REVOKED'),
          z.strictObject({ type: z.literal('AUTHORITY_OBSERVED'), at: Instant, source: z.string().min(1).max(120) }),
        ]),
      )
      .min(1)
      .superRefine(increasingInstants)
      .superRefine((history, ctx) => {
        if (history[0]?.type !== 'ISSUED') {
          ctx.addIssue({ code: 'custom', path: [0, 'type'], message: 'the first history entry must be ISSUED' });
          return;
        }
        let state: CredentialLifecycleState = 'ACTIVE';
        history.forEach((h, i) => {
          if (i === 0 || h.type === 'AUTHORITY_OBSERVED') return;
          if (!ALLOWED_EVENTS[state].includes(h.type)) {
            ctx.addIssue({ code: 'custom', path: [i, 'type'], message: `${h.type} cannot follow ${state} (allowed: ${ALLOWED_EVENTS[state].join(', ') || 'none, revocation is final'})` });
            return;
          }
          state = CREDENTIAL_EVENTS[h.type];
        });
      }),
    restricted: Restricted,
  })
  .superRefine((input, ctx) => {
    if (input.validUntil !== undefined && Date.parse(input.validUntil) <= Date.parse(input.validFrom)) {
      ctx.addIssue({ code: 'custom', path: ['validUntil'], message: 'must be later than validFrom' });
    }
  });
export type CredentialRecordInput = z.infer<typeof CredentialRecordInput>;

/** A head as the loader builds it: `anchored` is read by the ledger step, `pinnedIndex` by the derive step; neither is stored. */
type LoaderCredentialHead = CredentialHead & { anchored?: boolean; pinnedIndex?: number };

export function expandCredential(input: CredentialRecordInput): RecordToStore {
  const entries: RecordToStore['entries'] = [];
  let head: LoaderCredentialHead | undefined;
  let lastConfirmedAt = '';
  for (const h of input.history) {
    const at = canonicalInstant(h.at);
    let entry: CredentialTimelineEntry;
    if (h.type === 'AUTHORITY_OBSERVED') {
      entry = { at, type: h.type, status: head!.content.status, previousStatus: head!.content.status, source: h.source };
    } else {
      const previousStatus = head?.content.status ?? null;
      const version = (head?.version ?? 0) + 1;
      const content: CredentialContent = {
        credentialId: input.reference,
        credentialType: input.credentialType,
        title: input.title,
        issuer: input.issuer,
        validFrom: canonicalInstant(input.validFrom),
        validUntil: input.validUntil === undefined ? null : canonicalInstant(input.validUntil),
        subject: { type: input.subject.type, claims: input.subject.claims ?? {} },
        status: CREDENTIAL_EVENTS[h.type],
        statusSince: at,
        statusList: input.statusList,
        statusSlots: [],
        freshnessSeconds: input.freshnessSeconds,
        version,
      };
      head = { kind: CREDENTIAL_KIND, reference: input.reference, version, content, evidence: null, anchored: h.anchored !== false };
      if (input.statusListIndex !== undefined) head.pinnedIndex = input.statusListIndex;
      if (input.restricted) head.restricted = input.restricted;
      entry = { at, type: h.type, status: content.status, previousStatus, source: input.issuer };
    }
    // A lifecycle event is the issuer stating the status; an observation is the issuer confirming it.
    lastConfirmedAt = at;
    const view: CredentialView = { status: head!.content.status, lastConfirmedAt };
    entries.push({ at, entry, view, head: head! });
  }
  return { reference: input.reference, kind: CREDENTIAL_KIND, entries };
}

export const credentialKind: RecordKind<CredentialRecordInput> = {
  kind: CREDENTIAL_KIND,
  schema: CredentialRecordInput,
  expand: expandCredential,
};

/** Credential record kinds. */
export const credentialKinds: RecordKind<any>[] = [credentialKind];

/**
 * What status list derivation needs of one credential (a few dozen bytes, so a load can keep it
 * on disk between its passes: lib/loader/scratch.ts): its group and issuer, a pinned position,
 * and its lifecycle events in time order (when each began and the state it led to).
 */
export interface CredentialSummary {
  /** The record's position in the file (problems name it). */
  index: number;
  reference: string;
  group: string;
  issuer: string;
  pinnedIndex?: number;
  issuedAt: number;
  events: { at: number; status: CredentialLifecycleState }[];
}

const credentialHeads = (record: RecordToStore): LoaderCredentialHead[] => [...new Set(record.entries.map((e) => e.head as LoaderCredentialHead))];

/** The summary of an expanded credential record (expandCredential). */
export function credentialSummary(record: RecordToStore, index: number): CredentialSummary {
  const heads = credentialHeads(record);
  const events = heads.map((h) => ({ at: Date.parse(h.content.statusSince), status: h.content.status }));
  const summary: CredentialSummary = { index, reference: record.reference, group: heads[0].content.statusList, issuer: heads[0].content.issuer, issuedAt: events[0].at, events };
  if (heads[0].pinnedIndex !== undefined) summary.pinnedIndex = heads[0].pinnedIndex;
  return summary;
}

/** Pseudo-random yet reproducible start position (W3C asks for positions that reveal no issuance order). */
function hashedPosition(group: string, reference: string, size: number): number {
  return createHash('sha256').update(`${group}\n${reference}`).digest().readUInt32BE(0) % size;
}

/**
 * Positions in a group: pinned indexes first (unique), then every other credential from its
 * hashed position, probing forward past taken slots, in order of issuance (then reference), so a
 * credential issued later never moves one issued earlier.
 */
function assignPositions(group: string, members: CredentialSummary[], problems: RecordProblem[]): Map<CredentialSummary, number> {
  const taken = new Map<number, CredentialSummary>();
  const positions = new Map<CredentialSummary, number>();
  for (const m of members) {
    const pinned = m.pinnedIndex;
    if (pinned === undefined) continue;
    const other = taken.get(pinned);
    if (other) {
      problems.push({ index: m.index, reference: m.reference, field: 'statusListIndex', message: `${pinned} is already held by ${other.reference} in status list ${group}` });
      continue;
    }
    taken.set(pinned, m);
    positions.set(m, pinned);
  }
  const unpinned = members.filter((m) => m.pinnedIndex === undefined).sort((a, b) => a.issuedAt - b.issuedAt || (a.reference < b.reference ? -1 : 1));
  for (const m of unpinned) {
    if (taken.size >= MIN_STATUS_LIST_ENTRIES) {
      problems.push({ index: m.index, reference: m.reference, field: 'statusList', message: `status list ${group} is full (${MIN_STATUS_LIST_ENTRIES} credentials); use another group` });
      continue;
    }
    let position = hashedPosition(group, m.reference, MIN_STATUS_LIST_ENTRIES);
    while (taken.has(position)) position = (position + 1) % MIN_STATUS_LIST_ENTRIES;
    taken.set(position, m);
    positions.set(m, position);
  }
  return positions;
}

/** The versions of one list: a new version whenever a lifecycle event changes a bit; the first at the group's first issuance. */
function listVersions(listId: string, purpose: StatusListContent['statusPurpose'], issuer: string, members: CredentialSummary[], positions: Map<CredentialSummary, number>): RecordToStore {
  const reference = statusListReference(listId);
  const changes = members
    .filter((m) => positions.has(m))
    .flatMap((m) => m.events.map((e) => ({ at: e.at, position: positions.get(m)!, set: e.status === PURPOSE_STATE[purpose] })))
    .sort((a, b) => a.at - b.at);
  const bits = new Set<number>();
  const entries: RecordToStore['entries'] = [];
  let published = '';
  for (let i = 0; i < changes.length; ) {
    const at = changes[i].at;
    for (; i < changes.length && changes[i].at === at; i++) {
      if (changes[i].set) bits.add(changes[i].position);
      else bits.delete(changes[i].position);
    }
    const sorted = [...bits].sort((a, b) => a - b);
    const key = sorted.join(',');
    if (entries.length > 0 && key === published) continue;
    published = key;
    const version = entries.length + 1;
    const publishedAt = new Date(at).toISOString();
    const content: StatusListContent = { listId, statusPurpose: purpose, issuer, entries: MIN_STATUS_LIST_ENTRIES, encodedList: encodeStatusList(sorted), publishedAt, version };
    const head = { kind: STATUS_LIST_KIND, reference, version, content, evidence: null, anchored: true };
    const entry: StatusListWindowEntry['entry'] = { at: publishedAt, type: 'LIST_PUBLISHED', version };
    entries.push({ at: publishedAt, entry, view: {}, head });
  }
  return { reference, kind: STATUS_LIST_KIND, entries };
}

/**
 * A group's positions (a list has one issuer: the first credential's; the others are problems),
 * as assignPositions gives them, by credential.
 */
function groupPositions(group: string, members: CredentialSummary[]): { positions: Map<CredentialSummary, number>; problems: RecordProblem[] } {
  const problems: RecordProblem[] = [];
  const issuer = members[0].issuer;
  const listed = members.filter((m) => {
    if (m.issuer === issuer) return true;
    problems.push({ index: m.index, reference: m.reference, field: 'issuer', message: `status list ${group} is published for ${issuer}; a list has one issuer` });
    return false;
  });
  return { positions: assignPositions(group, listed, problems), problems };
}

const byReference = (positions: Map<CredentialSummary, number>): Map<string, number> => new Map([...positions].map(([m, position]) => [m.reference, position]));

/**
 * Each credential's position in its group's lists (by reference; none: not listed) and the
 * problems, without building the lists: what the checking pass needs (a group always derives
 * STATUS_PURPOSES.length records).
 */
export function statusListPositions(group: string, members: CredentialSummary[]): { positions: Map<string, number>; problems: RecordProblem[] } {
  const { positions, problems } = groupPositions(group, members);
  return { positions: byReference(positions), problems };
}

/**
 * One group's status lists from its credentials (in file order): a list has one issuer (the
 * first credential's), positions as assignPositions gives them, and one record per purpose whose
 * timeline holds the versions of the list over time.
 */
export function statusListsOfGroup(group: string, members: CredentialSummary[]): { positions: Map<string, number>; records: RecordToStore[]; problems: RecordProblem[] } {
  const { positions, problems } = groupPositions(group, members);
  // Only listed credentials have a position: listVersions leaves out those of another issuer.
  const records = STATUS_PURPOSES.map((purpose) => listVersions(statusListIdOf(group, purpose), purpose, members[0].issuer, members, positions));
  return { positions: byReference(positions), records, problems };
}

/**
 * Gives an expanded credential its position in its group's lists (none: not listed, a problem
 * was reported) and drops the loader-only pinned index.
 */
export function placeCredential(record: RecordToStore, position: number | undefined): void {
  for (const head of credentialHeads(record)) {
    delete head.pinnedIndex;
    if (position === undefined) continue;
    const group = head.content.statusList;
    head.content.statusSlots = STATUS_PURPOSES.map((purpose) => ({ statusPurpose: purpose, listId: statusListIdOf(group, purpose), statusListIndex: position }));
  }
}

/**
 * The status lists, derived from every validated credential: one record per group and purpose
 * whose timeline holds the versions of the list over time, so reading it as of an instant is the
 * generic as-of read. Also writes each credential's position into its content.
 */
export function deriveStatusLists(records: readonly RecordToStore[]): { records: RecordToStore[]; problems: RecordProblem[] } {
  const problems: RecordProblem[] = [];
  const groups = new Map<string, { members: CredentialSummary[]; records: RecordToStore[] }>();
  records.forEach((record, index) => {
    if (record.kind !== CREDENTIAL_KIND) return;
    const summary = credentialSummary(record, index);
    const group = groups.get(summary.group) ?? { members: [], records: [] };
    group.members.push(summary);
    group.records.push(record);
    groups.set(summary.group, group);
  });
  const derived: RecordToStore[] = [];
  for (const [group, { members, records: credentials }] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const lists = statusListsOfGroup(group, members);
    problems.push(...lists.problems);
    for (const record of credentials) placeCredential(record, lists.positions.get(record.reference));
    derived.push(...lists.records);
  }
  return { records: derived, problems };
}
