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

/**
 * Writes items 25 at a time (BatchWriteItem's limit), re-sending whatever DynamoDB leaves
 * unprocessed; `concurrency` requests at once (default 1: in order, for writers whose order matters).
 */
export async function putItems(client: DynamoDBClient, table: string, items: Item[], onProgress?: (written: number) => void, options: { concurrency?: number } = {}): Promise<void> {
  const batches: Item[][] = [];
  for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
  let written = 0;
  await forEachConcurrently(batches, options.concurrency ?? 1, async (batch) => {
    let pending: Item[] = batch;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('the table kept refusing writes (throttled); try again later');
      const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: pending.map((Item) => ({ PutRequest: { Item } })) } }));
      pending = (out.UnprocessedItems?.[table] ?? []).map((r) => r.PutRequest!.Item!);
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    }
    written += batch.length;
    onProgress?.(written);
  });
}

/** Deletes the items under `keys`, 25 to a BatchWriteItem, `concurrency` requests at once; an item already gone is no error. */
export async function deleteItems(client: DynamoDBClient, table: string, keys: Item[], concurrency: number): Promise<void> {
  const batches: Item[][] = [];
  for (let start = 0; start < keys.length; start += 25) batches.push(keys.slice(start, start + 25));
  await forEachConcurrently(batches, concurrency, async (batch) => {
    let pending: Item[] = batch;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 8) throw new Error('the table kept refusing deletes (throttled); try again later');
      const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: pending.map((Key) => ({ DeleteRequest: { Key } })) } }));
      pending = (out.UnprocessedItems?.[table] ?? []).map((r) => r.DeleteRequest!.Key!);
      if (pending.length > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    }
  });
}
