import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { StoredTimelineEntry } from '../../domain/kinds/kind';
import type { GenesisToWrite, RecordGenesis } from '../ports/records';
import { atPositionOf, canonicalInstant, ENTRY_SK_PREFIX, EVENT_MARK_SK_PREFIX, GENESIS_SK, HEAD_SK_PREFIX, isRecordHeadsPk, RECORD_PK_PREFIX, recordHeadsPk, recordPk, referenceOfRecordPk } from '../layout';
import { headAttributeFor, headTextOf, type HeadItemFor } from './head-text';

export type Item = Record<string, AttributeValue>;

/**
 * A record's items (layout.ts): its genesis; one lean item per timeline entry (the entry and the
 * view as JSON text, the number of the version in force); one item per version (its head's JSON
 * text, deflated: head-text.ts); and, for an entry an event made, the event's identity: on the head item at the same
 * position when the entry begins a version, else on the entry's item (`k`; an event mark item of
 * its own in the layout before: lib/migrate/steps/inline-marks.ts folds them).
 * An item of the layout before (each entry item self-sufficient: `at`, `entry`, `view`, `head`,
 * `eventKey`) is still read as it is: lib/migrate/steps/lean-records.ts rewrites them.
 *
 * Every byte of an entry item is paid for on every read of every window that shows it (a Query's
 * read units are the sum of its items' sizes, docs/semantics.md#storage), so the entry's own
 * instant, which its key already holds, is not repeated in its text: each occurrence of the JSON
 * string of the instant is written as one control character. JSON text never holds a raw control
 * character (JSON.stringify escapes them), so the substitution is exact both ways.
 */
const INSTANT_MARK = '\u0001';
/**
 * A lean entry item's attribute names, one letter each for the same reason (an item's size counts
 * its attribute names): the entry's JSON, the view's JSON, the number of the version in force.
 */
const ENTRY_TEXT = 'e';
const VIEW_TEXT = 'w';
const VERSION_NUMBER = 'v';
/** The identity of the event that made an entry not beginning a version (one beginning a version has it on its head's item). */
export const EVENT_KEY = 'k';

/**
 * An event's key (layout.ts eventPk: "P#" + sender + "#event:" + 64 hexadecimal digits) as an entry
 * item keeps it: the sender's name, a zero byte and the digest's 32 bytes (about 50 bytes where the
 * text takes 89: every window that shows the entry reads them). A key of any other form is kept as
 * its text.
 */
const EVENT_PK = /^P#([^\u0000]+)#event:([0-9a-f]{64})$/;
export function eventKeyAttribute(eventKey: string): AttributeValue {
  const parts = EVENT_PK.exec(eventKey);
  return parts ? { B: Buffer.concat([Buffer.from(parts[1], 'utf8'), Buffer.alloc(1), Buffer.from(parts[2], 'hex')]) } : { S: eventKey };
}
export function eventKeyOf(value: AttributeValue): string {
  if (value.S !== undefined) return value.S;
  const bytes = Buffer.from(value.B!);
  const digest = bytes.subarray(bytes.length - 32);
  return `P#${bytes.subarray(0, bytes.length - 33).toString('utf8')}#event:${digest.toString('hex')}`;
}
const withoutInstant = (json: string, at: string): string => json.replaceAll(JSON.stringify(at), INSTANT_MARK);
const withInstant = (text: string, at: string): string => (text.includes(INSTANT_MARK) ? text.replaceAll(INSTANT_MARK, JSON.stringify(at)) : text);

/** The instant in an entry's sort key (entrySk). */
const instantOfKey = (sk: string): string => sk.slice(ENTRY_SK_PREFIX.length, sk.lastIndexOf('#'));

/** A head's version number: what an entry item names its head by (layout.ts: one head per version). */
export function versionOfHead(head: unknown): number {
  const version = (head as { version?: unknown } | null | undefined)?.version;
  if (typeof version !== 'number') throw new TypeError(`a stored head carries its version number: ${JSON.stringify(head)?.slice(0, 200)}`);
  return version;
}

/** One lean timeline entry item; with `eventKey`, the event that made it (for an entry that does not begin a version). */
export const entryItem = (reference: string, sk: string, e: { at: string; entry: unknown; view: unknown; head: unknown }, eventKey?: string): Item =>
  leanEntryItem(reference, { id: sk, at: canonicalInstant(e.at), entryText: JSON.stringify(e.entry), viewText: JSON.stringify(e.view), version: versionOfHead(e.head), eventKey });

/** The lean entry item of an entry's texts as stored (the entry and the view JSON, whole), and the event that made it when given. */
export function leanEntryItem(reference: string, parts: Pick<EntryParts, 'id' | 'at' | 'entryText' | 'viewText' | 'version' | 'eventKey'>): Item {
  const item: Item = {
    pk: { S: recordPk(reference) },
    sk: { S: parts.id },
    [ENTRY_TEXT]: { S: withoutInstant(parts.entryText, parts.at) },
    [VIEW_TEXT]: { S: withoutInstant(parts.viewText, parts.at) },
    [VERSION_NUMBER]: { N: String(parts.version) },
  };
  // Only when the key's instant is not the entry's (never written so by the stores' own keys).
  if (instantOfKey(parts.id) !== parts.at) item.at = { S: parts.at };
  if (parts.eventKey) item[EVENT_KEY] = eventKeyAttribute(parts.eventKey);
  return item;
}

/**
 * A version's head item, in the record's heads partition at the position of the first entry it is
 * in force at; with the identity of the event that made that entry, when one did (the item of any
 * other entry an event made holds it).
 */
export function headItem(reference: string, entrySk: string, version: number, headText: string, eventKey?: string, where: HeadItemFor = 'table'): Item {
  const item: Item = { pk: { S: recordHeadsPk(reference) }, sk: { S: atPositionOf(entrySk, HEAD_SK_PREFIX) }, version: { N: String(version) }, ...headAttributeFor(where, headText) };
  if (eventKey) item.eventKey = { S: eventKey };
  return item;
}

/**
 * A head item under the key the writers keep heads at now (its record's heads partition): a
 * batch's journal written before heads had a partition of their own (a batch left unfinished
 * across the change) holds them under the record's entries' key, and is finished in today's layout.
 */
export function inHeadsPartition(item: Item): Item {
  const pk = item.pk?.S;
  if (itemClass(item) !== 'head' || !pk?.startsWith(RECORD_PK_PREFIX) || isRecordHeadsPk(pk)) return item;
  return { ...item, pk: { S: recordHeadsPk(referenceOfRecordPk(pk)) } };
}

/** What an entry item holds, its texts as stored; `headText` only on an item of the layout before heads were stored once (it carried its head). */
export interface EntryParts {
  id: string;
  at: string;
  entryText: string;
  viewText: string;
  version: number;
  headText?: string;
  /** The event that made the entry, when its item holds it (an entry not beginning a version; an item of the layout before lean entries). */
  eventKey?: string;
}

export function entryPartsOf(item: Item): EntryParts {
  const id = item.sk!.S!;
  const at = item.at?.S ?? instantOfKey(id);
  if (item.head?.S !== undefined) {
    // An item of the layout before: self-sufficient, its texts whole.
    const headText = item.head.S;
    return { id, at, entryText: item.entry!.S!, viewText: item.view!.S!, version: versionOfHead(JSON.parse(headText)), headText, eventKey: item.eventKey?.S };
  }
  const parts: EntryParts = { id, at, entryText: withInstant(item[ENTRY_TEXT]!.S!, at), viewText: withInstant(item[VIEW_TEXT]!.S!, at), version: Number(item[VERSION_NUMBER]!.N!) };
  if (item[EVENT_KEY]) parts.eventKey = eventKeyOf(item[EVENT_KEY]);
  return parts;
}

export function headPartsOf(item: Item): { sk: string; version: number; headText: string } {
  const headText = headTextOf(item);
  if (headText === null) throw new TypeError(`a head item keeps its head: ${item.pk?.S} ${item.sk?.S}`);
  return { sk: item.sk!.S!, version: Number(item.version!.N!), headText };
}

/** The entry at `parts`' position with its head (by its version) and the event that made it, if any. */
export const timelineEntryOf = (parts: EntryParts, headText: string, eventKey: string | null): StoredTimelineEntry => ({
  id: parts.id,
  at: parts.at,
  entry: JSON.parse(parts.entryText),
  view: JSON.parse(parts.viewText),
  head: JSON.parse(headText),
  eventKey,
});

/** Whether a record item is a genesis, an entry, a head or an event mark. */
export function itemClass(item: Item): 'genesis' | 'entry' | 'head' | 'mark' | 'other' {
  const sk = item.sk?.S ?? '';
  if (sk === GENESIS_SK) return 'genesis';
  if (sk.startsWith(ENTRY_SK_PREFIX)) return 'entry';
  if (sk.startsWith(HEAD_SK_PREFIX)) return 'head';
  if (sk.startsWith(EVENT_MARK_SK_PREFIX)) return 'mark';
  return 'other';
}

/** The sort keys of a record's newest entry item and newest head item (null: it has none). */
export interface NewestItems {
  entry: string;
  head: string | null;
}

/**
 * A record's genesis item: its kind and highest version; for a record the sequencer has changed
 * also `changedByEvents` (a load then keeps it as it is) and the events set aside for it (none:
 * left out); when known, the sort keys of its newest entry and head (`newest`: what the sequencer
 * reads by key instead of searching the record, records.ts), whoever wrote it; for a record a
 * load wrote completely, the digest of what it wrote.
 */
export function genesisItem(reference: string, kind: string, genesis: GenesisToWrite, newest?: NewestItems): Item {
  const item: Item = { pk: { S: recordPk(reference) }, sk: { S: GENESIS_SK }, kind: { S: kind }, reference: { S: reference }, highestVersion: { N: String(genesis.highestVersion) } };
  if (genesis.events) item.changedByEvents = { BOOL: true };
  if (genesis.events && genesis.events.setAside.length > 0) item.setAside = { S: JSON.stringify(genesis.events.setAside) };
  if (newest) item.newest = { S: tailOf(newest) };
  if (genesis.loadDigest !== undefined) item.loadDigest = { S: genesis.loadDigest };
  return item;
}

/** NewestItems as the genesis item holds them (`newest`, a JSON pair) and the ports carry them (opaque: RecordGenesis.tail, StoredTimeline.tail), and back. */
export const tailOf = (newest: NewestItems): string => JSON.stringify([newest.entry, newest.head]);
/** Undefined for anything that is not such a pair (a genesis damaged by hand): its record is then searched, as one without. */
export function newestOf(tail: string | undefined): NewestItems | undefined {
  if (tail === undefined) return undefined;
  let pair: unknown;
  try {
    pair = JSON.parse(tail);
  } catch {
    return undefined;
  }
  if (!Array.isArray(pair) || pair.length !== 2) return undefined;
  const [entry, head] = pair as unknown[];
  if (typeof entry !== 'string' || !entry.startsWith(ENTRY_SK_PREFIX)) return undefined;
  if (head !== null && (typeof head !== 'string' || !head.startsWith(HEAD_SK_PREFIX))) return undefined;
  return { entry, head };
}

export const genesisOf = (item: Item): RecordGenesis => ({
  kind: item.kind?.S ?? null,
  highestVersion: item.highestVersion?.N ? Number(item.highestVersion.N) : null,
  setAside: item.setAside?.S ? (JSON.parse(item.setAside.S) as string[]) : [],
  changedByEvents: item.changedByEvents?.BOOL === true,
  loadDigest: item.loadDigest?.S ?? null,
  ...(item.newest?.S ? { tail: item.newest.S } : {}),
});
