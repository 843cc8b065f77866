import { createHash } from 'node:crypto';
import type { CredentialLifecycleState, StatusPurpose } from '../../contract/schemas/credentials';
import { decodeStatusList, encodeStatusList, MIN_STATUS_LIST_ENTRIES, setIndexesOf } from '../credentials/bitstring';
import type { RecordHead } from '../record';
import type { DerivedEntry, FileProblem, Head, StoredTimelineEntry, TimelineRules } from './kind';

/**
 * A published status list (W3C Bitstring Status List): derived from the credentials of one group,
 * one record per purpose, whose versions are the list as it stood from each instant on. No event
 * is about a list: it follows its credentials' status timelines (a credential's projection onto
 * it, functions/domain/kinds/credential.ts), wherever those come from (a load or events).
 */
export const STATUS_LIST_KIND = 'STATUS_LIST';

/** The state a status list bit asserts, per purpose: the bit is 1 exactly in that state. */
export const PURPOSE_STATE: Record<StatusPurpose, CredentialLifecycleState> = {
  revocation: 'REVOKED',
  suspension: 'SUSPENDED',
};

/** One version of a published list: the bits as they stood from `publishedAt` on. */
export interface StatusListContent {
  listId: string;
  statusPurpose: StatusPurpose;
  issuer: string;
  entries: number;
  encodedList: string;
  publishedAt: string;
  version: number;
}
export type StatusListHead = RecordHead<StatusListContent>;

export interface StatusListWindowEntry {
  at: string;
  entry: { at: string; type: 'LIST_PUBLISHED'; version: number };
  view: Record<string, never>;
  head: StatusListHead;
}

/** Derived list records live outside the public reference alphabet ('/'), so no loaded record can collide. */
export const statusListReference = (listId: string): string => `status-list/${listId}`;
export const statusListIdOf = (group: string, purpose: StatusPurpose): string => `${group}-${purpose}`;

/** What a list must know of one of its credentials: its position, and its status changes in instant order. */
export interface CredentialStatusTimeline {
  position: number;
  changes: { at: string; status: string }[];
}

function statusAt(timeline: CredentialStatusTimeline, ms: number): string | null {
  let status: string | null = null;
  for (const change of timeline.changes) {
    if (Date.parse(change.at) > ms) break;
    status = change.status;
  }
  return status;
}

type ListHead = RecordHead<StatusListContent>;

const entryOf = (at: string, head: ListHead, id: string | null, replaced: StoredTimelineEntry | null): DerivedEntry => ({
  id,
  at,
  entry: { at, type: 'LIST_PUBLISHED', version: head.version },
  view: {},
  head: head as unknown as Head,
  eventKey: null,
  stored: replaced,
});

/**
 * Keeping a list true to its credentials' timelines (pure). At every instant a list version is in
 * force, a credential's bit must read the status it had then:
 *   1. every version (of `stored`: the whole list, or its entries from an instant on with the one
 *      in force then) whose bit contradicts a timeline at its own instant is replaced by a new
 *      version with the bit corrected (the earlier one stays in the ledger);
 *   2. where a credential's status changed and the list in force then says otherwise, a new version
 *      is published at that instant.
 * Reconciling from the credentials' whole timelines makes it idempotent: a list already true
 * changes nothing. `highestVersion` is the list record's highest version so far.
 */
export function reconcileStatusList(
  purpose: StatusPurpose,
  stored: readonly StoredTimelineEntry[],
  credentials: readonly CredentialStatusTimeline[],
  highestVersion?: number,
): { entries: DerivedEntry[]; newHeads: ListHead[] } {
  const entries: DerivedEntry[] = stored.map((e) => ({ id: e.id, at: e.at, entry: e.entry, view: e.view, head: e.head, eventKey: e.eventKey, stored: e }));
  if (entries.length === 0) return { entries, newHeads: [] };
  let highest = Math.max(highestVersion ?? 0, ...stored.map((e) => e.head.version));
  const newHeads: ListHead[] = [];
  // Each version's 16 KB bitstring is expanded once, however many instants ask for it.
  const decoded = new Map<Head, Set<number>>();
  const bitsOf = (head: Head): Set<number> => {
    let bits = decoded.get(head);
    if (!bits) decoded.set(head, (bits = new Set(setIndexesOf(decodeStatusList(String(head.content.encodedList))))));
    return bits;
  };
  /** The bits with each of `among` as its timeline says at `ms`; null when none differs. */
  const corrected = (bits: Set<number>, ms: number, among: readonly CredentialStatusTimeline[]): Set<number> | null => {
    let changed: Set<number> | null = null;
    for (const c of among) {
      const wanted = statusAt(c, ms) === PURPOSE_STATE[purpose];
      if (bits.has(c.position) === wanted) continue;
      changed ??= new Set(bits);
      if (wanted) changed.add(c.position);
      else changed.delete(c.position);
    }
    return changed;
  };
  const versionOf = (base: Head, at: string, bits: Set<number>): ListHead => {
    const version = ++highest;
    const content = { ...(base.content as unknown as StatusListContent), encodedList: encodeStatusList([...bits].sort((a, b) => a - b)), publishedAt: at, version };
    const head: ListHead = { kind: base.kind, reference: base.reference, version, content, evidence: null };
    newHeads.push(head);
    decoded.set(head as unknown as Head, bits);
    return head;
  };

  // 1. First, so that step 2 judges the list in force at each change by the bits it will finally have.
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const bits = corrected(bitsOf(e.head), Date.parse(e.at), credentials);
    if (bits) entries[i] = entryOf(e.at, versionOf(e.head, e.at, bits), e.id, e.stored);
  }
  // 2. After step 1 every version is true at its own instant, and a version published here is true
  //    at its instant too; so at a change's instant only the credentials changing then can be wrong
  //    in the version in force, the one found last (instants ascend, new versions go after it).
  const changing = new Map<string, CredentialStatusTimeline[]>();
  for (const c of credentials) for (const change of c.changes) changing.set(change.at, [...(changing.get(change.at) ?? []), c]);
  const instants = [...changing.keys()].sort((a, b) => Date.parse(a) - Date.parse(b));
  let inForce = -1;
  for (const at of instants) {
    const ms = Date.parse(at);
    while (inForce + 1 < entries.length && Date.parse(entries[inForce + 1].at) <= ms) inForce++;
    if (inForce < 0) continue; // before the list's first version: the list did not exist yet
    const bits = corrected(bitsOf(entries[inForce].head), ms, changing.get(at)!);
    if (!bits) continue;
    entries.splice(inForce + 1, 0, entryOf(at, versionOf(entries[inForce].head, at, bits), null, null));
    inForce++;
  }
  return { entries, newHeads };
}

/**
 * A new list from its credentials' whole timelines (a load): its first version at the first
 * instant any of them states, with the bits of that instant, then reconciled with every change.
 */
export function newStatusList(listId: string, purpose: StatusPurpose, issuer: string, credentials: readonly CredentialStatusTimeline[]): { entries: DerivedEntry[] } {
  const first = credentials.flatMap((c) => c.changes.map((change) => change.at)).reduce((a, b) => (Date.parse(b) < Date.parse(a) ? b : a));
  const ms = Date.parse(first);
  const bits = credentials.filter((c) => statusAt(c, ms) === PURPOSE_STATE[purpose]).map((c) => c.position);
  const content: StatusListContent = { listId, statusPurpose: purpose, issuer, entries: MIN_STATUS_LIST_ENTRIES, encodedList: encodeStatusList(bits.sort((a, b) => a - b)), publishedAt: first, version: 1 };
  const head: Head = { kind: STATUS_LIST_KIND, reference: statusListReference(listId), version: 1, content: content as unknown as Record<string, unknown>, evidence: null };
  const genesis: StoredTimelineEntry = { id: '', at: first, entry: { at: first, type: 'LIST_PUBLISHED', version: 1 }, view: {}, head, eventKey: null };
  return { entries: reconcileStatusList(purpose, [genesis], credentials, 1).entries };
}

/** How many lists a group publishes (one per purpose). */
export const LISTS_PER_GROUP = Object.keys(PURPOSE_STATE).length;

/** The lists of a group (one per purpose, revocation first) from its credentials' whole timelines (a load). */
export function statusListsOfGroup(group: string, issuer: string, credentials: readonly CredentialStatusTimeline[]): { reference: string; kind: string; entries: DerivedEntry[] }[] {
  return (Object.keys(PURPOSE_STATE) as StatusPurpose[]).map((purpose) => {
    const listId = statusListIdOf(group, purpose);
    return { reference: statusListReference(listId), kind: STATUS_LIST_KIND, entries: newStatusList(listId, purpose, issuer, credentials).entries };
  });
}

/** A status list's timeline: no event is about it; it follows its credentials (reconcileStatusList). */
export const statusListTimeline: TimelineRules = {
  kind: STATUS_LIST_KIND,
  readsWhole: false,
  facts: () => [],
  statementOf: () => `the record is a ${STATUS_LIST_KIND}, which no event changes (it follows its credentials)`,
  refusal: () => null,
  versionOf: () => null,
  derive: () => [],
  stateAt: () => '',
  follow(stored, parts, highestVersion) {
    const purpose = stored[0]?.head.content.statusPurpose as StatusPurpose;
    return reconcileStatusList(purpose, stored, parts as CredentialStatusTimeline[], highestVersion) as unknown as { entries: DerivedEntry[]; newHeads: Head[] };
  },
};

/** A credential as its group's lists place it: who issued it, a pinned position, when it was issued. */
export interface ListMember {
  reference: string;
  issuer: string;
  pinnedIndex?: number;
  issuedAt: string;
}

/** Pseudo-random yet reproducible start position (W3C asks for positions that reveal no issuance order). */
function hashedPosition(group: string, reference: string, size: number): number {
  return createHash('sha256').update(`${group}\n${reference}`).digest().readUInt32BE(0) % size;
}

/**
 * Positions in a group's lists: a list has one issuer (the first member's; the others are not
 * listed), pinned positions first (unique), then every other credential from its hashed position,
 * probing forward past taken slots, in order of issuance (then reference), so a credential issued
 * later never moves one issued earlier. Members not placed come back with why.
 */
export function assignPositions<M extends ListMember>(group: string, members: readonly M[]): { positions: Map<M, number>; problems: { member: M; problem: FileProblem }[] } {
  const problems: { member: M; problem: FileProblem }[] = [];
  const issuer = members[0]?.issuer;
  const listed = members.filter((m) => {
    if (m.issuer === issuer) return true;
    problems.push({ member: m, problem: { field: 'issuer', message: `status list ${group} is published for ${issuer}; a list has one issuer` } });
    return false;
  });
  const taken = new Map<number, M>();
  const positions = new Map<M, number>();
  for (const m of listed) {
    const pinned = m.pinnedIndex;
    if (pinned === undefined) continue;
    const other = taken.get(pinned);
    if (other) {
      problems.push({ member: m, problem: { field: 'statusListIndex', message: `${pinned} is already held by ${other.reference} in status list ${group}` } });
      continue;
    }
    taken.set(pinned, m);
    positions.set(m, pinned);
  }
  const unpinned = listed.filter((m) => m.pinnedIndex === undefined).sort((a, b) => Date.parse(a.issuedAt) - Date.parse(b.issuedAt) || (a.reference < b.reference ? -1 : 1));
  for (const m of unpinned) {
    if (taken.size >= MIN_STATUS_LIST_ENTRIES) {
      problems.push({ member: m, problem: { field: 'statusList', message: `status list ${group} is full (${MIN_STATUS_LIST_ENTRIES} credentials); use another group` } });
      continue;
    }
    let position = hashedPosition(group, m.reference, MIN_STATUS_LIST_ENTRIES);
    while (taken.has(position)) position = (position + 1) % MIN_STATUS_LIST_ENTRIES;
    taken.set(position, m);
    positions.set(m, position);
  }
  return { positions, problems };
}
