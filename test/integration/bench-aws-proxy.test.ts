import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  CreateTableCommand,
  waitUntilTableExists,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { EMPTY_READ, proxyControl, startAwsProxy, type AwsProxy } from '../../bench/lib/capacity/aws-proxy';

/**
 * The capacity bench's accounting proxy in front of dynalite, driven by the stock SDK client: each
 * request is priced by the items it really read and wrote (a projection or a filter reduces
 * nothing, an update pays the larger of before and after, a sparse index's entries are written and
 * removed), attributed to the paying partition, compared with dynalite's own ConsumedCapacity; the
 * client sees dynalite's answer unchanged; the delay is added to every call.
 */
let store: EmbeddedStore;
let proxy: AwsProxy;
let client: DynamoDBClient;
const TABLE = 'proxy-test';
const KB = 1024;

beforeAll(async () => {
  store = await startEmbeddedStore();
  proxy = await startAwsProxy({ dynamodb: store.endpoint });
  client = new DynamoDBClient({ endpoint: proxy.dynamodb, region: 'eu-central-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ['pk', 'sk', 'queue', 'receivedAt'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const })),
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'pending',
          KeySchema: [
            { AttributeName: 'queue', KeyType: 'HASH' },
            { AttributeName: 'receivedAt', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        },
      ],
    }),
  );
  // ACTIVE a moment after CreateTable answers: waited for past the proxy (nothing it counts).
  const direct = new DynamoDBClient({ endpoint: store.endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  await waitUntilTableExists({ client: direct, maxWaitTime: 30, minDelay: 0.1, maxDelay: 0.5 }, { TableName: TABLE });
  direct.destroy();
});

afterAll(async () => {
  client?.destroy();
  await proxy?.close();
  await store?.close();
});

beforeEach(() => proxy.reset());

const partition = (key: string, index?: string) => proxy.snapshot().partitions.find((p) => p.partitionKey === key && p.index === index);
const body = (bytes: number) => ({ S: 'x'.repeat(bytes) });

test('a pending item: its PutItem pays its size on the table and one write on the index partition; a failed claim of the same key one unit; removing it from the index one more', async () => {
  const item = { pk: { S: 'P#src#one' }, sk: { S: '#' }, queue: { S: 'PENDING' }, receivedAt: { S: '2026-01-01T00:00:00.000Z' }, event: body(2 * KB) };
  await client.send(new PutItemCommand({ TableName: TABLE, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
  expect(partition('P#src#one')).toMatchObject({ writeUnits: 3, readUnits: 0 });
  expect(partition('PENDING', 'pending')).toMatchObject({ writeUnits: 1 });

  const error = await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...item, event: body(10) }, ConditionExpression: 'attribute_not_exists(pk)' })).catch((e) => e);
  // dynalite's error, as it gave it.
  expect(error).toBeInstanceOf(ConditionalCheckFailedException);
  expect(partition('P#src#one')).toMatchObject({ writeUnits: 3 + 1 });

  await client.send(new UpdateItemCommand({ TableName: TABLE, Key: { pk: item.pk, sk: item.sk }, UpdateExpression: 'REMOVE #q SET #s = :s', ExpressionAttributeNames: { '#q': 'queue', '#s': 'sequencing' }, ExpressionAttributeValues: { ':s': { S: 'SEQUENCED' } } }));
  // The larger of before (2 KB and keys) and after: 3 units; the index entry removed: 1.
  expect(partition('P#src#one')).toMatchObject({ writeUnits: 4 + 3 });
  expect(partition('PENDING', 'pending')).toMatchObject({ writeUnits: 2 });
  expect(proxy.snapshot().totals).toMatchObject({ requests: 3, indexWriteUnits: 2 });
});

test('a Query pays what it read whole, whatever it returns: a projection and a filter reduce nothing; the answer is what dynalite gave', async () => {
  await client.send(
    new BatchWriteItemCommand({ RequestItems: { [TABLE]: [1, 2, 3, 4].map((i) => ({ PutRequest: { Item: { pk: { S: 'R#busy' }, sk: { S: `T#${i}` }, n: { N: String(i) }, head: body(3 * KB) } } })) } }),
  );
  expect(partition('R#busy')).toMatchObject({ writeUnits: 4 * 4 });
  proxy.reset();
  const projected = await client.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: '#pk = :pk',
      FilterExpression: '#n = :two',
      ProjectionExpression: '#sk',
      ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#n': 'n' },
      ExpressionAttributeValues: { ':pk': { S: 'R#busy' }, ':two': { N: '2' } },
    }),
  );
  expect(projected.Items).toEqual([{ sk: { S: 'T#2' } }]);
  expect(projected.ConsumedCapacity).toBeUndefined();
  // Four items of about 3 KB: 12 KB and more, rounded to 16 KB, eventually consistent: 2 units.
  expect(partition('R#busy')).toMatchObject({ readUnits: 2 });

  await client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'R#busy' } }, Limit: 1, ConsistentRead: true }));
  expect(partition('R#busy')).toMatchObject({ readUnits: 2 + 1 });
  const asked = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'R#busy' }, sk: { S: 'T#1' } }, ProjectionExpression: 'sk', ReturnConsumedCapacity: 'TOTAL' }));
  // A client that asks for ConsumedCapacity gets dynalite's.
  expect(asked.ConsumedCapacity?.CapacityUnits).toBe(0.5);
  expect(partition('R#busy')).toMatchObject({ readUnits: 3.5 });
});

test('BatchGetItem pays each key, found or not; a Query that finds nothing pays the minimum, where dynalite charges nothing', async () => {
  await client.send(new BatchGetItemCommand({ RequestItems: { [TABLE]: { Keys: [{ pk: { S: 'R#busy' }, sk: { S: 'T#1' } }, { pk: { S: 'R#none' }, sk: { S: '#' } }], ConsistentRead: true } } }));
  expect(partition('R#busy')).toMatchObject({ readUnits: 1 });
  expect(partition('R#none')).toMatchObject({ readUnits: 1 });
  await client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'R#empty' } } }));
  expect(partition('R#empty')).toMatchObject({ readUnits: 0.5 });
  const { dynalite } = proxy.snapshot();
  expect(dynalite).toMatchObject({ compared: 2, agreed: 1, explained: { [EMPTY_READ]: 1 }, disagreements: [] });
});

test('a put, an update, a query of the index and a delete are priced as dynalite prices them (the table\'s units; it prices no index writes)', async () => {
  await client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'R#x' }, sk: { S: '#' }, v: body(5000), queue: { S: 'PENDING' }, receivedAt: { S: '2026' } } }));
  await client.send(new UpdateItemCommand({ TableName: TABLE, Key: { pk: { S: 'R#x' }, sk: { S: '#' } }, UpdateExpression: 'SET v = :v', ExpressionAttributeValues: { ':v': body(10) } }));
  await client.send(new QueryCommand({ TableName: TABLE, IndexName: 'pending', KeyConditionExpression: '#q = :q', ExpressionAttributeNames: { '#q': 'queue' }, ExpressionAttributeValues: { ':q': { S: 'PENDING' } } }));
  await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: 'R#x' }, sk: { S: '#' } } }));
  const { dynalite, operations } = proxy.snapshot();
  expect(dynalite).toMatchObject({ compared: 4, agreed: 4, disagreements: [] });
  // Each with its index write: the put inserts the entry, the update leaves it, the delete removes it.
  expect(operations).toMatchObject({ PutItem: { writeUnits: 5 + 1 }, UpdateItem: { writeUnits: 5 }, Query: { readUnits: 0.5 }, DeleteItem: { writeUnits: 1 + 1 } });
});

test('the delay is added to every call, and set, read and reset over HTTP', async () => {
  const control = proxyControl(proxy.dynamodb);
  await control.configure({ delayMs: 60 });
  try {
    const started = performance.now();
    await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'R#busy' }, sk: { S: 'T#1' } } }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(60);
  } finally {
    await control.configure({ delayMs: 0 });
  }
  expect((await control.snapshot()).totals.requests).toBe(1);
  await control.reset();
  expect((await control.snapshot()).totals.requests).toBe(0);
});

test('told a filter, it keeps the stream as an event source mapping with that filter hands it over: the INSERTs it admits, accounting on or off, until taken', async () => {
  const control = proxyControl(proxy.dynamodb);
  await control.configure({ stream: { partitionKeyPrefix: 'P#', attribute: 'queue', attributePrefix: 'PENDING#' } });
  try {
    const waiting = (n: number) => ({ pk: { S: `P#stream#${n}` }, sk: { S: '#' }, queue: { S: `PENDING#${n}` }, receivedAt: { S: `2026-01-01T00:00:0${n}.000Z` } });
    await client.send(new PutItemCommand({ TableName: TABLE, Item: waiting(1), ConditionExpression: 'attribute_not_exists(pk)' }));
    // Not admitted: another partition key, no `queue`, a put over an item that was there (MODIFY), a claim refused.
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...waiting(2), pk: { S: 'R#stream' } } }));
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'P#stream#note' }, sk: { S: '#' } } }));
    await client.send(new PutItemCommand({ TableName: TABLE, Item: waiting(1) }));
    await client.send(new PutItemCommand({ TableName: TABLE, Item: waiting(1), ConditionExpression: 'attribute_not_exists(pk)' })).catch(() => undefined);
    await control.configure({ accounting: false });
    await client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: [{ PutRequest: { Item: waiting(3) } }, { PutRequest: { Item: waiting(1) } }] } }));
    const taken = await control.takeStream();
    expect(taken).toEqual([1, 3].map((n) => ({ eventName: 'INSERT', eventSource: 'aws:dynamodb', dynamodb: { Keys: { pk: waiting(n).pk, sk: waiting(n).sk }, NewImage: waiting(n), StreamViewType: 'NEW_IMAGE' } })));
    expect(await control.takeStream()).toEqual([]);
  } finally {
    await control.configure({ accounting: true, stream: null });
  }
});
