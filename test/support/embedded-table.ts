import { ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { tableStores } from '../../functions/store/dynamodb';
import { memoryStores } from '../../functions/store/memory';
import { ensureTable } from '../../functions/store/write';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { localClient } from '../../lib/local/service';
import type { Stores } from './store-contracts';

type Item = Record<string, AttributeValue>;

/** Every item of a table, read strongly consistent, page after page. */
export async function scanTable(client: DynamoDBClient, table: string): Promise<Item[]> {
  const items: Item[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const out = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey, ConsistentRead: true }));
    items.push(...(out.Items ?? []));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** An embedded store (dynalite) started for the file: registers its beforeAll and afterAll; `client()` is the store's client, `endpoint()` its address (for a client of a test's own). */
export function embeddedStoreForFile(): { client: () => DynamoDBClient; endpoint: () => string } {
  let store: EmbeddedStore;
  let client: DynamoDBClient;
  beforeAll(async () => {
    store = await startEmbeddedStore();
    client = localClient(store.endpoint);
  });
  afterAll(async () => {
    client?.destroy();
    await store?.close();
  });
  return { client: () => client, endpoint: () => store.endpoint };
}

/**
 * The two implementations every storage port's contract suite runs against: in memory, and the
 * DynamoDB one on an embedded store (dynalite) started for the file, a new table each time (named
 * `<prefix>-<n>`). Registers the file's beforeAll and afterAll; `client()` is the store's client.
 */
export function storeImplementations(prefix: string): { implementations: [string, () => Promise<Stores>][]; client: () => DynamoDBClient } {
  const { client } = embeddedStoreForFile();
  let tables = 0;
  const onTable = async () => {
    const table = `${prefix}-${tables++}`;
    await ensureTable(client(), table);
    return tableStores(client(), table);
  };
  return { implementations: [['in memory', async () => memoryStores()], ['DynamoDB (dynalite)', onTable]], client };
}
