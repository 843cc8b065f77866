import { BatchWriteItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

type Item = Record<string, AttributeValue>;

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

type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Item } };

/**
 * Sends the requests 25 to a BatchWriteItem (its limit), re-sending whatever DynamoDB leaves
 * unprocessed with a growing pause; `concurrency` requests at once. `what` names the writes in the
 * error of a table that kept refusing them.
 */
async function writeBatches(client: DynamoDBClient, table: string, requests: WriteRequest[], concurrency: number, what: string, onBatch?: (size: number) => void): Promise<void> {
  const batches: WriteRequest[][] = [];
  for (let start = 0; start < requests.length; start += 25) batches.push(requests.slice(start, start + 25));
  await forEachConcurrently(batches, concurrency, async (batch) => {
    let pending = batch;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error(`the table kept refusing ${what} (throttled); try again later`);
      const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: pending } }));
      pending = (out.UnprocessedItems?.[table] ?? []) as WriteRequest[];
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    }
    onBatch?.(batch.length);
  });
}

/**
 * Writes items 25 at a time (BatchWriteItem's limit), re-sending whatever DynamoDB leaves
 * unprocessed; `concurrency` requests at once (default 1: in order, for writers whose order matters).
 */
export async function putItems(client: DynamoDBClient, table: string, items: Item[], onProgress?: (written: number) => void, options: { concurrency?: number } = {}): Promise<void> {
  let written = 0;
  const requests = items.map((Item) => ({ PutRequest: { Item } }));
  await writeBatches(client, table, requests, options.concurrency ?? 1, 'writes', (size) => onProgress?.((written += size)));
}

/**
 * Writes every item of a stream (a restore's, an import's), 500 held at a time and 4 requests in
 * flight; the number written.
 */
export async function putStream(client: DynamoDBClient, table: string, items: AsyncIterable<Item>): Promise<number> {
  let batch: Item[] = [];
  let count = 0;
  for await (const item of items) {
    batch.push(item);
    count++;
    if (batch.length === 500) {
      await putItems(client, table, batch, undefined, { concurrency: 4 });
      batch = [];
    }
  }
  await putItems(client, table, batch, undefined, { concurrency: 4 });
  return count;
}

/** Deletes the items under `keys`, 25 to a BatchWriteItem, `concurrency` requests at once; an item already gone is no error. */
export async function deleteItems(client: DynamoDBClient, table: string, keys: Item[], concurrency: number): Promise<void> {
  await writeBatches(client, table, keys.map((Key) => ({ DeleteRequest: { Key } })), concurrency, 'deletes');
}
