import { decodeStatusList, encodeStatusList, setIndexesOf } from '../credentials/bitstring';
import { PURPOSE_STATE, type StatusListContent } from '../credentials/model';
import type { StatusPurpose } from '../../contract/schemas/credentials';
import type { RecordHead } from '../record';
import type { DerivedEntry, StoredTimelineEntry } from './integrate';

/**
 * Keeping a published status list true to its credentials' timelines (pure). A list's timeline holds
 * its versions: each entry is the list as it stood from its instant on. When a credential's status
 * timeline changes, its bit must read, at every instant, the status the credential had then:
 *   - where the list in force at one of the credential's status changes has the wrong bit, a new
 *     list entry is published at that instant;
 *   - every list entry at or after it whose bit is wrong is replaced by a new version of the list
 *     with the bit corrected (the earlier version stays in the ledger; the timeline shows the new).
 * Reconciling from the credential's whole timeline (not only the new events) makes it idempotent:
 * running it again on a list already true changes nothing.
 */

export interface CredentialStatusTimeline {
  /** The credential's position in the group's lists. */
  position: number;
  /** Its status changes in instant order: when each began and the status it led to. */
  changes: { at: string; status: string }[];
}

type ListHead = RecordHead<StatusListContent>;

function statusAt(timeline: CredentialStatusTimeline, ms: number): string | null {
  let status: string | null = null;
  for (const change of timeline.changes) {
    if (Date.parse(change.at) > ms) break;
    status = change.status;
  }
  return status;
}

/**
 * The entries of one list (`stored`, in sort-key order: the whole list, or its entries from an
 * instant on with the one in force then) as they must now be stored, and the list versions
 * created (to log). `highestVersion` is the list record's highest version so far.
 */
export function reconcileStatusList(
  purpose: StatusPurpose,
  stored: readonly StoredTimelineEntry[],
  credentials: readonly CredentialStatusTimeline[],
  highestVersion?: number,
): { entries: DerivedEntry[]; newHeads: ListHead[] } {
  const entries: DerivedEntry[] = stored.map((e) => ({ sk: e.sk, at: e.at, entry: e.entry, view: e.view, head: e.head, eventKey: e.eventKey, stored: e }));
  if (entries.length === 0) return { entries, newHeads: [] };
  // The list's highest version wherever it is (given when `stored` is only the list's recent part).
  let highest = Math.max(highestVersion ?? 0, ...stored.map((e) => e.head.version));
  const newHeads: ListHead[] = [];
  // Each version's 16 KB bitstring is expanded once, however many instants ask for it.
  const decoded = new Map<RecordHead<Record<string, unknown>>, Set<number>>();
  const bitsOf = (head: RecordHead<Record<string, unknown>>): Set<number> => {
    let bits = decoded.get(head);
    if (!bits) decoded.set(head, (bits = new Set(setIndexesOf(decodeStatusList(String(head.content.encodedList))))));
    return bits;
  };
  const wanted = (timeline: CredentialStatusTimeline, ms: number) => statusAt(timeline, ms) === PURPOSE_STATE[purpose];

  /** The list's bits at `ms` with every given credential's bit as its timeline says. */
  const corrected = (bits: Set<number>, ms: number): Set<number> | null => {
    let changed: Set<number> | null = null;
    for (const c of credentials) {
      if (bits.has(c.position) === wanted(c, ms)) continue;
      changed ??= new Set(bits);
      if (wanted(c, ms)) changed.add(c.position);
      else changed.delete(c.position);
    }
    return changed;
  };
  const versionOf = (base: RecordHead<Record<string, unknown>>, at: string, bits: Set<number>): ListHead => {
    const version = ++highest;
    const content = { ...(base.content as unknown as StatusListContent), encodedList: encodeStatusList([...bits].sort((a, b) => a - b)), publishedAt: at, version };
    const head: ListHead = { kind: base.kind, reference: base.reference, version, content, evidence: null };
    newHeads.push(head);
    return head;
  };
  const entryOf = (at: string, head: ListHead, sk: string | null, replaced: StoredTimelineEntry | null): DerivedEntry => ({
    sk,
    at,
    entry: { at, type: 'LIST_PUBLISHED', version: head.version },
    view: {},
    head: head as unknown as RecordHead<Record<string, unknown>>,
    eventKey: null,
    stored: replaced,
  });

  // 1. Correct every version whose bits contradict a timeline at its own instant. First, so that
  //    step 2 judges the list in force at each change by the bits it will finally have.
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    const bits = corrected(bitsOf(e.head), Date.parse(e.at));
    if (bits) entries[i] = entryOf(e.at, versionOf(e.head, e.at, bits), e.sk, e.stored);
  }
  // 2. Publish where a credential's status changed and the (corrected) list in force then says otherwise.
  const instants = [...new Set(credentials.flatMap((c) => c.changes.map((ch) => ch.at)))].sort((a, b) => Date.parse(a) - Date.parse(b));
  for (const at of instants) {
    const ms = Date.parse(at);
    let inForce = -1;
    for (let i = 0; i < entries.length && Date.parse(entries[i].at) <= ms; i++) inForce = i;
    if (inForce < 0) continue; // before the list's first version: the list did not exist yet
    const bits = corrected(bitsOf(entries[inForce].head), ms);
    if (!bits) continue;
    entries.splice(inForce + 1, 0, entryOf(at, versionOf(entries[inForce].head, at, bits), null, null));
  }
  return { entries, newHeads };
}
