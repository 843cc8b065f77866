import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DescribeTableCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { entrySk, GENESIS_SK, recordPk, TABLE_META_PK, TABLE_SCHEMA_VERSION, canonicalInstant } from './layout';

type Item = Record<string, AttributeValue>;

/** A record ready to store: its kind and its entries, each with what was in force at its instant. */
export interface RecordToStore {
  reference: string;
  kind: string;
  entries: { at: string; entry: unknown; view: unknown; head: unknown }[];
}

export function recordItems(record: RecordToStore): Item[] {
  const pk = { S: recordPk(record.reference) };
  const items: Item[] = [{ pk, sk: { S: GENESIS_SK }, kind: { S: record.kind }, reference: { S: record.reference } }];
  record.entries.forEach((e, seq) => {
    items.push({
      pk,
      sk: { S: entrySk(e.at, seq) },
      at: { S: canonicalInstant(e.at) },
      entry: { S: JSON.stringify(e.entry) },
      view: { S: JSON.stringify(e.view) },
      head: { S: JSON.stringify(e.head) },
    });
  });
  return items;
}

/** Writes items 25 at a time, re-sending whatever DynamoDB leaves unprocessed. */
export async function putItems(client: DynamoDBClient, table: string, items: Item[], onProgress?: (written: number) => void): Promise<void> {
  let written = 0;
  for (let i = 0; i < items.length; i += 25) {
    let pending: Item[] = items.slice(i, i + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('the table kept refusing writes (throttled); try again later');
      const out = await client.send(
        new BatchWriteItemCommand({ RequestItems: { [table]: pending.map((Item) => ({ PutRequest: { Item } })) } }),
      );
      pending = (out.UnprocessedItems?.[table] ?? []).map((r) => r.PutRequest!.Item!);
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    }
    written += Math.min(25, items.length - i);
    onProgress?.(written);
  }
}

/** The key schema every deployment uses (the CDK stack declares the same two keys). */
export const TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
} as const;

/**
 * The sparse index of deliveries waiting for the sequencer: only pending items carry `queue`, so
 * the index holds exactly those, oldest first by `receivedAt` (the CDK stack declares it).
 */
export const PENDING_INDEX = { name: 'pending', partitionKey: 'queue', sortKey: 'receivedAt' } as const;

/** Creates the table when it does not exist (local stores; the stack creates it in AWS). */
export async function ensureTable(client: DynamoDBClient, table: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: table }));
    return;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
        { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
    }),
  );
  for (let i = 0; i < 100; i++) {
    const out = await client.send(new DescribeTableCommand({ TableName: table }));
    if (out.Table?.TableStatus === 'ACTIVE') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`table ${table} did not become active`);
}

/** The table's metadata item (its schema version), written with the records. */
export function tableMetaItem(): Item {
  return { pk: { S: TABLE_META_PK }, sk: { S: GENESIS_SK }, schemaVersion: { S: TABLE_SCHEMA_VERSION } };
}
