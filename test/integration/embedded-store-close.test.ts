import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BatchWriteItemCommand, CreateTableCommand, DynamoDBClient, QueryCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { ensureStoreFree, startEmbeddedStore } from '../../lib/local/embedded-store';

/**
 * The embedded store closed while it is still answering a request (a client that timed out, a
 * sequencer stopped mid-run, a test's afterAll). dynalite goes on with a request after its client
 * is gone; closing its database under that request once ended the whole process ("Database is not
 * open", thrown from a callback). close() now waits for what the store took, and still drops every
 * connection at once.
 */
const TABLE = 'close-test';
const ITEMS = 2000;
let dataDir: string;

const clientOf = (endpoint: string) => new DynamoDBClient({ endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
const query = (client: DynamoDBClient) => client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'R#busy' } }, ConsistentRead: true }));

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'store-close-'));
  const store = await startEmbeddedStore({ dataDir });
  const client = clientOf(store.endpoint);
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  // The store makes a table ACTIVE a moment after it answers CreateTable (later on a busy machine): written to only then.
  await waitUntilTableExists({ client, maxWaitTime: 30, minDelay: 0.1, maxDelay: 0.5 }, { TableName: TABLE });
  // One partition long enough that a Query of it takes the store a while.
  for (let i = 0; i < ITEMS; i += 25) {
    const items = Array.from({ length: 25 }, (_, j) => ({ PutRequest: { Item: { pk: { S: 'R#busy' }, sk: { S: `T#${String(i + j).padStart(6, '0')}` }, text: { S: 'x'.repeat(200) } } } }));
    await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: items } }));
  }
  client.destroy();
  await store.close();
}, 60_000);

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('closed while Queries are in flight: the process goes on, every request settles, the database is closed and opens again', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 4 }), async (delayMs, queries) => {
      const store = await startEmbeddedStore({ dataDir });
      const client = clientOf(store.endpoint);
      const sent = Array.from({ length: queries }, () => query(client).then(
        (out) => out.Count,
        (error: Error) => error.name,
      ));
      await new Promise((r) => setTimeout(r, delayMs));
      await store.close();
      // Each was answered whole or saw its connection go; none is left hanging.
      for (const outcome of await Promise.all(sent)) expect(outcome === ITEMS || typeof outcome === 'string').toBe(true);
      client.destroy();
      // The store let go of its folder: another can open it.
      await ensureStoreFree(dataDir);
    }),
    { seed: 20261127, numRuns: 25 },
  );
}, 120_000);

test('a store closed with nothing in flight closes, and a client then finds nobody there', async () => {
  const store = await startEmbeddedStore({ dataDir });
  const client = clientOf(store.endpoint);
  expect((await query(client)).Count).toBe(ITEMS);
  await store.close();
  await expect(query(client)).rejects.toThrow();
  client.destroy();
});
