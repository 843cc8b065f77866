/**
 * The table itself: its keys, its index, its creation on a local store, and its schema mark. What
 * goes in it is the ports' (functions/store/ports/, implemented in functions/store/dynamodb/).
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTableCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { GENESIS_SK, PENDING_INDEX, TABLE_META_PK, TABLE_SCHEMA_VERSION } from './layout';

type Item = Record<string, AttributeValue>;

/** The key schema every deployment uses (the CDK stack declares the same two keys). */
export const TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
} as const;

export { PENDING_INDEX } from './layout';
export { TTL_ATTRIBUTE } from './layout';

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
