import { paginateQuery, QueryCommand, type DynamoDBClient, type QueryCommandInput } from '@aws-sdk/client-dynamodb';
import type { StoredTimelineEntry } from '../../domain/kinds/kind';
import { batchGetItems, WRITER_READ } from '../batch-get';
import { atPositionOf, canonicalInstant, ENTRY_SK_PREFIX, EVENT_MARK_SK_PREFIX, GENESIS_SK, HEAD_SK_PREFIX, parsePosition, positionAfter, recordHeadsPk, recordPk, sortKeysOf } from '../layout';
import type { RecordChange, RecordStore, RecordWriteOptions, StoredTimeline, TimelineRequest } from '../ports/records';
import { headOfVersion, rangeQuery, dynamoRecordWindows } from './record-windows';
import { forEachConcurrently, putItems } from './put-items';
import { entryItem, entryPartsOf, genesisItem, genesisOf, headItem, headPartsOf, itemClass, newestOf, tailOf, timelineEntryOf, versionOfHead, type EntryParts, type Item, type NewestItems } from './record-items';
import type { HeadItemFor } from './head-text';
import { RecordTails } from './record-tails';
import { tableMetaItem } from '../write';

/** Timelines read at once by one readTimelines call (each is a few Queries sent together). */
const READ_CONCURRENCY = 8;
/**
 * BatchWriteItems in flight at once within each step of a write (heads, entries, geneses),
 * unless the writer says otherwise: the order that matters is between the steps, not within one.
 */
const WRITE_CONCURRENCY = 8;

/**
 * The record store in a DynamoDB table (layout.ts): two partitions per record, its entries and its
 * versions' heads. The read path's
 * window is record-windows.ts; the writers read strongly consistent, geneses in BatchGetItems of
 * 100 keys, timelines in Queries run together; writes are BatchWriteItems of 25, in three steps
 * (new versions' heads, then the entries, so a reader never meets an entry whose
 * head is not stored; then the geneses), the requests of a step sent together.
 */
export function dynamoRecordStore(client: DynamoDBClient, table: string, tails?: RecordTails): RecordStore {
  return {
    tails,
    ...dynamoRecordWindows(client, table),
    async readGeneses(references) {
      const items = await batchGetItems(client, table, references.map((r) => ({ pk: { S: recordPk(r) }, sk: { S: GENESIS_SK } })), WRITER_READ);
      return new Map(items.map((item) => [item.pk!.S!.slice(recordPk('').length), genesisOf(item)] as const));
    },

    async readTimelines(requests) {
      const out = new Map<string, StoredTimeline>();
      // What is known of the records' newest items: the writer's memory, or one of this call's own.
      const known = tails ?? new RecordTails();
      await readNewestByKey(client, table, requests, known);
      await forEachConcurrently(requests, READ_CONCURRENCY, async (request) => {
        const timeline = await readTimeline(client, table, request, known);
        if (timeline) out.set(request.reference, timeline);
      });
      return out;
    },

    async write(changes, options = {}) {
      const { heads, entries, geneses } = recordChangeParts(changes, 'table', options.part);
      const inParallel = { concurrency: options.concurrency ?? WRITE_CONCURRENCY };
      const steps = options.part === 'timelines' ? [heads, entries] : options.part === 'geneses' ? [geneses] : [heads, entries, geneses];
      // A step that fails leaves its partitions' newest items unknown: the batch that called forgets them all (batch.ts).
      for (const step of steps) {
        await putItems(client, table, step, undefined, inParallel);
        tails?.wrote(step);
      }
    },

    async markSchema() {
      await putItems(client, table, [tableMetaItem()]);
    },
  };
}

/**
 * Where one change's items go: its entries' sort keys, and for every version it shows whose head
 * is not stored yet (one the part it was derived from did not show; every version, for a record
 * written whole) the entry its head goes at, the first the version is in force at (by index).
 */
function changeKeys(change: RecordChange): { keys: string[]; newHeads: Map<number, number> } {
  const keys = sortKeysOf(change.entries, change.after);
  const newHeads = new Map<number, number>();
  change.entries.forEach((e, i) => {
    const version = versionOfHead(e.head);
    const seen = newHeads.get(version);
    if (seen === undefined || keys[i] < keys[seen]) newHeads.set(version, i);
  });
  if (change.after !== undefined) for (const version of parsePosition(change.after).storedVersions) newHeads.delete(version);
  return { keys, newHeads };
}

/**
 * The items of one change: its entries (lean) and its new versions' heads (changeKeys). A version
 * has one head: a change giving two for one is refused. The identity of the event that made an
 * entry is on the head's item when the entry begins a version, else on the entry's item.
 */
function changeItems(change: RecordChange, { keys, newHeads }: ReturnType<typeof changeKeys>, where: HeadItemFor): { heads: Item[]; entries: Item[] } {
  const texts = new Map<number, string>();
  const eventAt = new Map<string, string>();
  change.entries.forEach((e, i) => {
    const version = versionOfHead(e.head);
    const text = JSON.stringify(e.head);
    if ((texts.get(version) ?? text) !== text) throw new Error(`${change.reference}: version ${version} is given two different heads`);
    texts.set(version, text);
    if (e.eventKey) eventAt.set(keys[i], e.eventKey);
  });
  // The event that made the entry a new head is written at rides on that head's item, any other
  // event's identity on its entry's item: no item of its own (a write unit an event), and the
  // sequencer reads a record's identities with its entries and heads (two Queries, not three).
  const heads = [...newHeads].map(([version, first]) => {
    const sk = keys[first];
    const eventKey = eventAt.get(sk);
    eventAt.delete(sk);
    return headItem(change.reference, sk, version, texts.get(version)!, eventKey, where);
  });
  const entries = change.entries.map((e, i) => entryItem(change.reference, keys[i], e, eventAt.get(keys[i])));
  return { heads, entries };
}

/**
 * The items of record changes in the order they are written: heads, then entries, then geneses
 * (after all of them); heads as the table or a journal keeps them. `part` leaves out the others'
 * items (a writer writing the geneses apart: write), and the geneses alone need only the keys.
 */
export function recordChangeParts(changes: readonly RecordChange[], where: HeadItemFor = 'table', part?: RecordWriteOptions['part']): { heads: Item[]; entries: Item[]; geneses: Item[] } {
  const layouts = changes.map(changeKeys);
  const parts = part === 'geneses' ? [] : changes.map((change, i) => changeItems(change, layouts[i], where));
  const geneses = part === 'timelines' ? [] : changes.flatMap((change, i) => (change.genesis ? [genesisItem(change.reference, change.kind, change.genesis, newestAfter(change, layouts[i]))] : []));
  return { heads: parts.flatMap((p) => p.heads), entries: parts.flatMap((p) => p.entries), geneses };
}

/**
 * The record's newest entry and head once a change is written: the newest the timeline it was
 * derived from held (its `tail`; for a record written whole, what its whole read found, and
 * nothing when it had no entry stored) or the change's own, whichever is newer. Unknown
 * (undefined) when the change was derived from part of a timeline whose newest items were not
 * read. Entries and heads are never removed, so the newest only moves forward.
 */
function newestAfter(change: RecordChange, { keys, newHeads }: ReturnType<typeof changeKeys>): NewestItems | undefined {
  const before = change.after === undefined && change.tail === undefined ? { entry: null, head: null } : newestOf(change.tail);
  if (!before) return undefined;
  const newest = (known: string | null, written: readonly string[]) => written.reduce<string | null>((n, sk) => (n === null || sk > n ? sk : n), known);
  const entry = newest(before.entry, keys);
  return entry === null ? undefined : { entry, head: newest(before.head, [...newHeads.values()].map((first) => atPositionOf(keys[first], HEAD_SK_PREFIX))) };
}

/** The same items as one list before the geneses (what the ledger's journal and a table image keep, in this order). */
export function recordChangeItems(changes: readonly RecordChange[], where: HeadItemFor = 'table'): { entries: Item[]; geneses: Item[] } {
  const { heads, entries, geneses } = recordChangeParts(changes, where);
  return { entries: [...heads, ...entries], geneses };
}

/** A record's items read by a writer, sorted into entries, heads by version and event marks by position. */
class TimelineItems {
  readonly entries: EntryParts[] = [];
  readonly heads = new Map<number, string>();
  readonly marks = new Map<string, string>();

  add(items: readonly Item[]): void {
    for (const item of items) {
      const kind = itemClass(item);
      if (kind === 'entry') this.entries.push(entryPartsOf(item));
      else if (kind === 'head') {
        const head = headPartsOf(item);
        this.heads.set(head.version, head.headText);
        if (item.eventKey?.S) this.marks.set(atPositionOf(item.sk!.S!, EVENT_MARK_SK_PREFIX), item.eventKey.S);
      }
      else if (kind === 'mark') this.marks.set(item.sk!.S!, item.eventKey!.S!);
    }
  }

  /** The entry with its head and its event; a head not among those read is read (headOfVersion). */
  async timelineEntry(parts: EntryParts, headOf: (version: number) => Promise<string | null>): Promise<StoredTimelineEntry> {
    let headText = parts.headText ?? this.heads.get(parts.version);
    if (headText === undefined) {
      headText = (await headOf(parts.version)) ?? undefined;
      if (headText === undefined) throw new Error(`no head of version ${parts.version} is stored for the entry ${parts.id}`);
      this.heads.set(parts.version, headText);
    }
    return timelineEntryOf(parts, headText, parts.eventKey ?? this.marks.get(atPositionOf(parts.id, EVENT_MARK_SK_PREFIX)) ?? null);
  }
}

/**
 * The items of `prefix` in the partition `pk` (a record's entries or its heads) at or after
 * `boundary`, in key order, and the newest one before it:
 * read newest first, two to a page, so the common case (events newer than every entry: nothing at
 * or after the boundary, or one) is one request; more items after the boundary than the first page
 * holds are read with the one before it, together, in one more round trip.
 */
async function fromBoundary(client: DynamoDBClient, table: string, pk: string, prefix: string, boundary: string, known: RecordTails): Promise<{ onward: Item[]; prior: Item | null }> {
  const remembered = known.before(pk, prefix, boundary);
  if (remembered) return { onward: [], prior: remembered.prior };
  const first = await client.send(new QueryCommand(rangeQuery(table, pk, prefix, `${prefix}~`, { newestFirst: true, limit: 2, consistent: true })));
  const items = first.Items ?? [];
  known.learned(pk, prefix, items[0] ?? null);
  const below = items.findIndex((item) => item.sk!.S! < boundary);
  if (below >= 0) return { onward: items.slice(0, below).reverse(), prior: items[below] };
  if (!first.LastEvaluatedKey) return { onward: items.reverse(), prior: null };
  const lowest = items[items.length - 1].sk!.S!;
  const rest: Item[] = [];
  const [prior] = await Promise.all([
    client.send(new QueryCommand(rangeQuery(table, pk, prefix, boundary, { newestFirst: true, limit: 1, consistent: true }))),
    (async () => {
      for await (const page of paginateQuery({ client }, rangeQuery(table, pk, boundary, lowest, { consistent: true }))) rest.push(...(page.Items ?? []).filter((item) => item.sk!.S! !== lowest));
    })(),
  ]);
  return { onward: [...rest, ...items.reverse()], prior: prior.Items?.[0] ?? null };
}

/** Every item of one partition, strongly consistent, page after page. */
export async function partitionItems(client: DynamoDBClient, table: string, pk: string): Promise<Item[]> {
  const input: QueryCommandInput = { TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: pk } }, ConsistentRead: true };
  const items: Item[] = [];
  for await (const page of paginateQuery({ client }, input)) items.push(...(page.Items ?? []));
  return items;
}

/**
 * One record's timeline, strongly consistent: whole (a paginated Query of each of its two
 * partitions, sent together), or from an instant (the entry just before it and every entry at or
 * after it, with the heads of the same stretch: a Query of each sent together, however long the
 * history before, unless the newest items are `known` to precede it). With it, where
 * its newest entry and head are (its `tail`, from what was read). The identities of the events that made them come with them, on the entries'
 * items and the heads'. What the layout before kept in the entries' partition (an event mark item,
 * `W#`; a head, `V#`) is read with a whole record, and a head of it when an entry needs it
 * (headOfVersion): `npm run migrate` moves both (lib/migrate/steps/inline-marks.ts, heads-apart.ts).
 * Null when no entry is stored under the reference.
 */
async function readTimeline(client: DynamoDBClient, table: string, request: TimelineRequest, known: RecordTails): Promise<StoredTimeline | null> {
  const read = new TimelineItems();
  let before: EntryParts | null = null;
  let newest: NewestItems | undefined;
  if (request.from === null) {
    const [entries, heads] = await Promise.all([recordPk(request.reference), recordHeadsPk(request.reference)].map((pk) => partitionItems(client, table, pk)));
    read.add([...entries, ...heads]);
    newest = newestRead(entries, heads);
  } else {
    const tail = `${canonicalInstant(request.from)}#`;
    const [entries, heads] = await Promise.all([
      fromBoundary(client, table, recordPk(request.reference), ENTRY_SK_PREFIX, `${ENTRY_SK_PREFIX}${tail}`, known),
      fromBoundary(client, table, recordHeadsPk(request.reference), HEAD_SK_PREFIX, `${HEAD_SK_PREFIX}${tail}`, known),
    ]);
    read.add([...entries.onward, ...heads.onward, ...(heads.prior ? [heads.prior] : [])]);
    before = entries.prior ? entryPartsOf(entries.prior) : null;
    // The newest of each partition was read: what is at or after the boundary, else the one before it.
    newest = newestRead([...entries.onward, ...(entries.prior ? [entries.prior] : [])], [...heads.onward, ...(heads.prior ? [heads.prior] : [])]);
  }
  const headOf = (version: number) => headOfVersion(client, table, request.reference, version);
  const entries: StoredTimelineEntry[] = [];
  for (const parts of read.entries) entries.push(await read.timelineEntry(parts, headOf));
  const prior = before ? await read.timelineEntry(before, headOf) : null;
  if (!prior && entries.length === 0) return null;
  return { before: prior, entries, after: positionAfter(prior ? [prior, ...entries] : entries), ...(newest ? { tail: tailOf(newest) } : {}) };
}

/** The newest entry and head among items read of a record's two partitions (undefined: no entry). */
function newestRead(entries: readonly Item[], heads: readonly Item[]): NewestItems | undefined {
  const newest = (items: readonly Item[], prefix: string) => items.reduce<string | null>((n, item) => (item.sk!.S!.startsWith(prefix) && (n === null || item.sk!.S! > n) ? item.sk!.S! : n), null);
  const entry = newest(entries, ENTRY_SK_PREFIX);
  return entry === null ? undefined : { entry, head: newest(heads, HEAD_SK_PREFIX) };
}

/**
 * The newest entry and head of every record asked from an instant whose genesis says where they
 * are (its `tail`), read by key in BatchGetItems sent together (a hundred keys each) rather than a
 * Query of each partition: one request for fifty records instead of a hundred. What is `known`
 * already is not read, and what is read becomes known (fromBoundary answers from it); an item not
 * found is left to the Query.
 */
async function readNewestByKey(client: DynamoDBClient, table: string, requests: readonly TimelineRequest[], known: RecordTails): Promise<void> {
  const keys: Item[] = [];
  for (const request of requests) {
    const newest = request.from === null ? undefined : newestOf(request.tail);
    if (!newest) continue;
    const boundary = `${canonicalInstant(request.from!)}#`;
    const wanted = [
      { pk: recordPk(request.reference), prefix: ENTRY_SK_PREFIX, sk: newest.entry },
      { pk: recordHeadsPk(request.reference), prefix: HEAD_SK_PREFIX, sk: newest.head },
    ];
    for (const { pk, prefix, sk } of wanted) {
      // Remembered already; or an event at or before the newest item: the Query reads what stands after the instant.
      if (known.before(pk, prefix, `${prefix}${boundary}`) || (sk !== null && sk >= `${prefix}${boundary}`)) continue;
      if (sk === null) known.learned(pk, prefix, null);
      else keys.push({ pk: { S: pk }, sk: { S: sk } });
    }
  }
  if (keys.length === 0) return;
  const once = [...new Map(keys.map((key) => [`${key.pk!.S}\n${key.sk!.S}`, key])).values()];
  for (const item of await batchGetItems(client, table, once, WRITER_READ)) known.learned(item.pk!.S!, itemClass(item) === 'head' ? HEAD_SK_PREFIX : ENTRY_SK_PREFIX, item);
}
