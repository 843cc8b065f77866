import { paginateQuery, QueryCommand, type DynamoDBClient, type QueryCommandInput } from '@aws-sdk/client-dynamodb';
import type { StoredTimelineEntry } from '../../domain/kinds/kind';
import { batchGetItems, WRITER_READ } from '../batch-get';
import { atPositionOf, canonicalInstant, ENTRY_SK_PREFIX, EVENT_MARK_SK_PREFIX, GENESIS_SK, HEAD_SK_PREFIX, parsePosition, positionAfter, recordHeadsPk, recordPk, sortKeysOf } from '../layout';
import type { RecordChange, RecordStore, StoredTimeline, TimelineRequest } from '../ports/records';
import { headOfVersion, rangeQuery, dynamoRecordWindows } from './record-windows';
import { forEachConcurrently, putItems } from './put-items';
import { entryItem, entryPartsOf, genesisItem, genesisOf, headItem, headPartsOf, itemClass, timelineEntryOf, versionOfHead, type EntryParts, type Item } from './record-items';
import type { HeadItemFor } from './head-text';
import type { RecordTails } from './record-tails';
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
      await forEachConcurrently(requests, READ_CONCURRENCY, async (request) => {
        const timeline = await readTimeline(client, table, request, tails);
        if (timeline) out.set(request.reference, timeline);
      });
      return out;
    },

    async write(changes, options = {}) {
      const { heads, entries, geneses } = recordChangeParts(changes);
      const inParallel = { concurrency: options.concurrency ?? WRITE_CONCURRENCY };
      // A step that fails leaves its partitions' newest items unknown: the batch that called forgets them all (batch.ts).
      for (const step of [heads, entries, geneses]) {
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
 * The items of one change: its entries (lean), and the head of every version it shows whose head
 * is not stored yet (one the part it was derived from did not
 * show; every version, for a record written whole), at the first entry the version is in force at.
 * A version has one head: a change giving two for one is refused. The identity of the event that
 * made an entry is on the head's item when the entry begins a version, else on the entry's item.
 */
function changeItems(change: RecordChange, where: HeadItemFor): { heads: Item[]; entries: Item[] } {
  const keys = sortKeysOf(change.entries, change.after);
  const stored = change.after === undefined ? new Set<number>() : parsePosition(change.after).storedVersions;
  const firstOf = new Map<number, { sk: string; text: string }>();
  const eventAt = new Map<string, string>();
  change.entries.forEach((e, i) => {
    const version = versionOfHead(e.head);
    const text = JSON.stringify(e.head);
    const seen = firstOf.get(version);
    if (seen && seen.text !== text) throw new Error(`${change.reference}: version ${version} is given two different heads`);
    if (!seen || keys[i] < seen.sk) firstOf.set(version, { sk: keys[i], text });
    if (e.eventKey) eventAt.set(keys[i], e.eventKey);
  });
  // The event that made the entry a new head is written at rides on that head's item, any other
  // event's identity on its entry's item: no item of its own (a write unit an event), and the
  // sequencer reads a record's identities with its entries and heads (two Queries, not three).
  const heads = [...firstOf].filter(([version]) => !stored.has(version)).map(([version, first]) => {
    const eventKey = eventAt.get(first.sk);
    eventAt.delete(first.sk);
    return headItem(change.reference, first.sk, version, first.text, eventKey, where);
  });
  const entries = change.entries.map((e, i) => entryItem(change.reference, keys[i], e, eventAt.get(keys[i])));
  return { heads, entries };
}

/** The items of record changes in the order they are written: heads, then entries, then geneses (after all of them); heads as the table or a journal keeps them. */
export function recordChangeParts(changes: readonly RecordChange[], where: HeadItemFor = 'table'): { heads: Item[]; entries: Item[]; geneses: Item[] } {
  const parts = changes.map((change) => changeItems(change, where));
  const geneses = changes.flatMap((change) => (change.genesis ? [genesisItem(change.reference, change.kind, change.genesis)] : []));
  return { heads: parts.flatMap((p) => p.heads), entries: parts.flatMap((p) => p.entries), geneses };
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
async function fromBoundary(client: DynamoDBClient, table: string, pk: string, prefix: string, boundary: string, tails?: RecordTails): Promise<{ onward: Item[]; prior: Item | null }> {
  const known = tails?.before(pk, prefix, boundary);
  if (known) return { onward: [], prior: known.prior };
  const first = await client.send(new QueryCommand(rangeQuery(table, pk, prefix, `${prefix}~`, { newestFirst: true, limit: 2, consistent: true })));
  const items = first.Items ?? [];
  tails?.learned(pk, prefix, items[0] ?? null);
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
 * history before). The identities of the events that made them come with them, on the entries'
 * items and the heads'. What the layout before kept in the entries' partition (an event mark item,
 * `W#`; a head, `V#`) is read with a whole record, and a head of it when an entry needs it
 * (headOfVersion): `npm run migrate` moves both (lib/migrate/steps/inline-marks.ts, heads-apart.ts).
 * Null when no entry is stored under the reference.
 */
async function readTimeline(client: DynamoDBClient, table: string, request: TimelineRequest, tails?: RecordTails): Promise<StoredTimeline | null> {
  const read = new TimelineItems();
  let before: EntryParts | null = null;
  if (request.from === null) {
    const partitions = [recordPk(request.reference), recordHeadsPk(request.reference)].map((pk) => partitionItems(client, table, pk));
    for (const items of await Promise.all(partitions)) read.add(items);
  } else {
    const tail = `${canonicalInstant(request.from)}#`;
    const [entries, heads] = await Promise.all([
      fromBoundary(client, table, recordPk(request.reference), ENTRY_SK_PREFIX, `${ENTRY_SK_PREFIX}${tail}`, tails),
      fromBoundary(client, table, recordHeadsPk(request.reference), HEAD_SK_PREFIX, `${HEAD_SK_PREFIX}${tail}`, tails),
    ]);
    read.add([...entries.onward, ...heads.onward, ...(heads.prior ? [heads.prior] : [])]);
    before = entries.prior ? entryPartsOf(entries.prior) : null;
  }
  const headOf = (version: number) => headOfVersion(client, table, request.reference, version);
  const entries: StoredTimelineEntry[] = [];
  for (const parts of read.entries) entries.push(await read.timelineEntry(parts, headOf));
  const prior = before ? await read.timelineEntry(before, headOf) : null;
  if (!prior && entries.length === 0) return null;
  return { before: prior, entries, after: positionAfter(prior ? [prior, ...entries] : entries) };
}
