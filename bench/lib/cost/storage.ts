/**
 * What the service keeps, measured: every item of the record table (its size by DynamoDB's rules,
 * plus the storage overhead each item is billed for; its `pending` index entry likewise) and every
 * object of the tile log, by how long it stays: for good, or until its TTL attribute. The cost bench
 * reads it before and after the events it measures, so the difference is what those events left.
 */
import { paginateScan, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { PENDING_INDEX, TTL_ATTRIBUTE } from '../../../functions/store/layout';
import { TABLE_KEYS } from '../../../functions/store/write';
import { indexEntry, itemSize, type IndexSchema, type Item, type TableSchema } from '../capacity/units';

/**
 * Bytes of storage overhead DynamoDB bills for each item, for indexing ("DynamoDB item sizes and
 * formats": every item requires 100 bytes; global tables, transactions and Kinesis streaming add
 * more, none of which this table uses).
 */
export const ITEM_STORAGE_OVERHEAD_BYTES = 100;

/** The record table's keys and its one index, as lib/stack/record-table.ts declares them. */
export const RECORD_TABLE_SCHEMA: TableSchema = {
  name: 'records',
  partitionKey: TABLE_KEYS.partitionKey,
  sortKey: TABLE_KEYS.sortKey,
  indexes: [{ name: PENDING_INDEX.name, partitionKey: PENDING_INDEX.partitionKey, sortKey: PENDING_INDEX.sortKey, projection: { type: 'KEYS_ONLY' } } satisfies IndexSchema],
};

export interface StoredBytes {
  /** Billed bytes of the table's items kept for good (no TTL attribute). */
  forGood: number;
  /** The same by the class of the item's keys (itemClass). */
  forGoodByClass: Record<string, number>;
  /** Billed bytes of items that expire, each weighted by the seconds it has left: byte-seconds. */
  expiringByteSeconds: number;
  /** Billed bytes of the items that expire, unweighted. */
  expiring: number;
  /** Billed bytes of the batch journal's chunks: deleted by the writer's next batch (their TTL is for a writer that died). */
  journal: number;
  /** Billed bytes of the index's entries (the events waiting). */
  index: number;
  items: number;
  /** Bytes of the tile log's objects in the bucket (S3 bills no per-object overhead in S3 Standard). */
  log: number;
  logObjects: number;
}

export const NOTHING_STORED: StoredBytes = { forGood: 0, forGoodByClass: {}, expiringByteSeconds: 0, expiring: 0, journal: 0, index: 0, items: 0, log: 0, logObjects: 0 };

/** A chunk of a log's batch journal (functions/store/layout.ts, ledgerJournalChunkPk): the first log's keys or a successor's. */
export const isJournalChunk = (item: Item): boolean => /^L(?:#|@[0-9a-f]{16}#)J#/.test(item[TABLE_KEYS.partitionKey]?.S ?? '');

/**
 * What kind of item it is, by its keys (functions/store/layout.ts): the partition key's leading
 * characters up to its first '#' (and a record's heads' '#V' suffix), then the sort key's: `R# T#`
 * a timeline entry, `R#…#V V#` a version's head, `P# #` an event's claim, `L# #` the log's items.
 */
export function itemClass(item: Item): string {
  const pk = item[TABLE_KEYS.partitionKey]?.S ?? '';
  const sk = item[TABLE_KEYS.sortKey]?.S ?? '';
  const lead = (key: string) => (key.includes('#') ? key.slice(0, key.indexOf('#') + 1) : key);
  return `${lead(pk)}${pk.startsWith('R#') && pk.endsWith('#V') ? '…#V' : ''} ${lead(sk)}`;
}

/** One item's billed storage: its size and overhead, whether it expires and in how many seconds from `nowSeconds`, and its index entry's. */
export function itemStorage(item: Item, nowSeconds: number, schema: TableSchema = RECORD_TABLE_SCHEMA): { bytes: number; expiresInSeconds: number | null; indexBytes: number } {
  const ttl = item[TTL_ATTRIBUTE]?.N;
  const entries = schema.indexes.map((index) => indexEntry(item, index, schema)).filter((e): e is Item => e !== undefined);
  return {
    bytes: itemSize(item) + ITEM_STORAGE_OVERHEAD_BYTES,
    expiresInSeconds: ttl === undefined ? null : Math.max(0, Number(ttl) - nowSeconds),
    indexBytes: entries.reduce((n, e) => n + itemSize(e) + ITEM_STORAGE_OVERHEAD_BYTES, 0),
  };
}

/** Adds one item's storage to a tally. */
export function tally(into: StoredBytes, item: Item, nowSeconds: number): StoredBytes {
  const { bytes, expiresInSeconds, indexBytes } = itemStorage(item, nowSeconds);
  if (isJournalChunk(item)) return { ...into, journal: into.journal + bytes, index: into.index + indexBytes, items: into.items + 1 };
  const expiring = expiresInSeconds !== null;
  const kind = itemClass(item);
  return {
    ...into,
    forGood: into.forGood + (expiring ? 0 : bytes),
    forGoodByClass: expiring ? into.forGoodByClass : { ...into.forGoodByClass, [kind]: (into.forGoodByClass[kind] ?? 0) + bytes },
    expiring: into.expiring + (expiring ? bytes : 0),
    expiringByteSeconds: into.expiringByteSeconds + (expiring ? bytes * expiresInSeconds : 0),
    index: into.index + indexBytes,
    items: into.items + 1,
  };
}

/** What `after` holds beyond `before`. */
export function storedSince(after: StoredBytes, before: StoredBytes): StoredBytes {
  const classes = new Set([...Object.keys(after.forGoodByClass), ...Object.keys(before.forGoodByClass)]);
  const forGoodByClass = Object.fromEntries([...classes].map((c) => [c, (after.forGoodByClass[c] ?? 0) - (before.forGoodByClass[c] ?? 0)]));
  const { forGoodByClass: _a, ...counts } = after;
  const difference = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v - (before[k as keyof typeof counts] as number)]));
  return { ...(difference as Omit<StoredBytes, 'forGoodByClass'>), forGoodByClass };
}

/** Everything the table and the tile log hold now (a Scan of the whole table, a listing of the log's prefix). */
export async function storedBytes(dynamodb: DynamoDBClient, table: string, s3: S3Client, bucket: string, logPrefix: string): Promise<StoredBytes> {
  const now = Math.floor(Date.now() / 1000);
  let stored = NOTHING_STORED;
  for await (const page of paginateScan({ client: dynamodb }, { TableName: table })) {
    for (const item of page.Items ?? []) stored = tally(stored, item as Item, now);
  }
  for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket: bucket, Prefix: logPrefix })) {
    for (const object of page.Contents ?? []) stored = { ...stored, log: stored.log + (object.Size ?? 0), logObjects: stored.logObjects + 1 };
  }
  return stored;
}
