import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { entrySk, GENESIS_SK, PENDING_INDEX, recordPk, TABLE_META_PK, TABLE_SCHEMA_VERSION, canonicalInstant } from './layout';

type Item = Record<string, AttributeValue>;

/** A record ready to store: its kind and its entries, each with what was in force at its instant. */
export interface RecordToStore {
  reference: string;
  kind: string;
  entries: { at: string; entry: unknown; view: unknown; head: unknown }[];
}

/** One timeline entry item; `eventKey` names the pending delivery it came from (the sequencer's guard against integrating it twice). */
export function entryItem(reference: string, sk: string, e: { at: string; entry: unknown; view: unknown; head: unknown; eventKey?: string | null }): Item {
  const item: Item = {
    pk: { S: recordPk(reference) },
    sk: { S: sk },
    at: { S: canonicalInstant(e.at) },
    entry: { S: JSON.stringify(e.entry) },
    view: { S: JSON.stringify(e.view) },
    head: { S: JSON.stringify(e.head) },
  };
  if (e.eventKey) item.eventKey = { S: e.eventKey };
  return item;
}

/** The sequence number in an entry's sort key (entrySk), which keeps entries of the same instant apart. */
export function entrySeqOf(sk: string): number {
  return Number(sk.slice(sk.lastIndexOf('#') + 1));
}

/**
 * A record's genesis item (layout.ts): its kind and highest version; for a record the sequencer
 * has changed also `changedByEvents` (the loader then keeps it as it is: lib/loader/load.ts) and
 * the deliveries set aside for it, to try again with its next events (none: left out).
 */
export function genesisItem(reference: string, kind: string, highestVersion: number, events?: { setAside: readonly string[] }): Item {
  const item: Item = { pk: { S: recordPk(reference) }, sk: { S: GENESIS_SK }, kind: { S: kind }, reference: { S: reference }, highestVersion: { N: String(highestVersion) } };
  if (events) item.changedByEvents = { BOOL: true };
  if (events && events.setAside.length > 0) item.setAside = { S: JSON.stringify(events.setAside) };
  return item;
}

const highestVersionOf = (record: RecordToStore): number =>
  record.entries.reduce((highest, e) => Math.max(highest, (e.head as { version?: number }).version ?? 0), 0);

/** The record's timeline entry items (without its genesis item). */
export function recordEntryItems(record: RecordToStore): Item[] {
  return record.entries.map((e, seq) => entryItem(record.reference, entrySk(e.at, seq), e));
}

/**
 * The genesis item of a record as a load writes it, after its entries: `loadDigest` names exactly
 * what the load wrote (lib/loader/digest.ts), so a load run again finds the record complete and
 * up to date from this one item and leaves it alone. Readers ignore it.
 */
export function loadedGenesisItem(record: RecordToStore, loadDigest: string): Item {
  return { ...genesisItem(record.reference, record.kind, highestVersionOf(record)), loadDigest: { S: loadDigest } };
}

/**
 * Runs `fn` on every item, at most `limit` at once (at least 1; 1: in order), each worker taking
 * the next item as it finishes one; rejects with the first error.
 */
export async function forEachConcurrently<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await fn(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
}

/**
 * Writes items 25 at a time, re-sending whatever DynamoDB leaves unprocessed; `concurrency`
 * requests at once (default 1: in order, for writers whose order matters).
 */
export async function putItems(
  client: DynamoDBClient,
  table: string,
  items: Item[],
  onProgress?: (written: number) => void,
  options: { concurrency?: number } = {},
): Promise<void> {
  const batches: Item[][] = [];
  for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
  let written = 0;
  await forEachConcurrently(batches, options.concurrency ?? 1, async (batch) => {
    let pending: Item[] = batch;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('the table kept refusing writes (throttled); try again later');
      const out = await client.send(
        new BatchWriteItemCommand({ RequestItems: { [table]: pending.map((Item) => ({ PutRequest: { Item } })) } }),
      );
      pending = (out.UnprocessedItems?.[table] ?? []).map((r) => r.PutRequest!.Item!);
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    }
    written += batch.length;
    onProgress?.(written);
  });
}

/** The key schema every deployment uses (the CDK stack declares the same two keys). */
export const TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
} as const;

export { PENDING_INDEX } from './layout';

const PENDING_INDEX_DEFINITION = {
  IndexName: PENDING_INDEX.name,
  KeySchema: [
    { AttributeName: PENDING_INDEX.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: PENDING_INDEX.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'KEYS_ONLY' as const },
};
const PENDING_INDEX_ATTRIBUTES = [
  { AttributeName: PENDING_INDEX.partitionKey, AttributeType: 'S' as const },
  { AttributeName: PENDING_INDEX.sortKey, AttributeType: 'S' as const },
];

async function waitUntilActive(client: DynamoDBClient, table: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const out = await client.send(new DescribeTableCommand({ TableName: table }));
    const indexesActive = (out.Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
    if (out.Table?.TableStatus === 'ACTIVE' && indexesActive) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`table ${table} did not become active`);
}

/**
 * Creates the table with its pending index when it does not exist, and adds the index to a table
 * made before it existed (local stores; the stack declares both in AWS).
 */
export async function ensureTable(client: DynamoDBClient, table: string): Promise<void> {
  let existing;
  try {
    existing = (await client.send(new DescribeTableCommand({ TableName: table }))).Table;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  if (existing) {
    if ((existing.GlobalSecondaryIndexes ?? []).some((index) => index.IndexName === PENDING_INDEX.name)) return;
    await client.send(
      new UpdateTableCommand({
        TableName: table,
        AttributeDefinitions: PENDING_INDEX_ATTRIBUTES,
        GlobalSecondaryIndexUpdates: [{ Create: PENDING_INDEX_DEFINITION }],
      }),
    );
    await waitUntilActive(client, table);
    return;
  }
  await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
        { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
        ...PENDING_INDEX_ATTRIBUTES,
      ],
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [PENDING_INDEX_DEFINITION],
    }),
  );
  await waitUntilActive(client, table);
}

/** The table's metadata item (its schema version), written with the records. */
export function tableMetaItem(): Item {
  return { pk: { S: TABLE_META_PK }, sk: { S: GENESIS_SK }, schemaVersion: { S: TABLE_SCHEMA_VERSION } };
}
