import { BatchGetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { StoreUnavailable } from './errors';

type Item = Record<string, AttributeValue>;

/** BatchGetItem takes at most this many keys per request. */
export const BATCH_GET_KEYS = 100;

export interface BatchGetOptions {
  consistentRead: boolean;
  projection?: { expression: string; names?: Record<string, string> };
  /** Requests per chunk before giving up on keys DynamoDB keeps leaving unprocessed. */
  maxAttempts: number;
  /** Wait before asking again for unprocessed keys (doubling each time); 0: ask at once (the read path, which must answer fast). */
  backoffMs: number;
}

/**
 * The items under `keys`, 100 keys per request, asking again for what DynamoDB leaves
 * unprocessed (throttling) until `maxAttempts`, then StoreUnavailable. Missing items are absent.
 */
export async function batchGetItems(client: DynamoDBClient, table: string, keys: readonly Item[], options: BatchGetOptions): Promise<Item[]> {
  const chunks: Item[][] = [];
  for (let at = 0; at < keys.length; at += BATCH_GET_KEYS) chunks.push(keys.slice(at, at + BATCH_GET_KEYS));
  // Every chunk at once: a writer's reads of a few hundred keys take one round trip, not one per hundred.
  return (await Promise.all(chunks.map((chunk) => batchGetChunk(client, table, chunk, options)))).flat();
}

async function batchGetChunk(client: DynamoDBClient, table: string, keys: Item[], options: BatchGetOptions): Promise<Item[]> {
  const items: Item[] = [];
  let request = keys;
  for (let attempt = 0; request.length > 0; attempt++) {
    if (attempt === options.maxAttempts) throw new StoreUnavailable(`BatchGetItem left keys unprocessed ${options.maxAttempts} times`);
    if (attempt > 0 && options.backoffMs > 0) await new Promise((r) => setTimeout(r, options.backoffMs * 2 ** attempt));
    const out = await client.send(
      new BatchGetItemCommand({
        RequestItems: {
          [table]: {
            Keys: request,
            ConsistentRead: options.consistentRead,
            ...(options.projection ? { ProjectionExpression: options.projection.expression, ExpressionAttributeNames: options.projection.names } : {}),
          },
        },
      }),
    );
    items.push(...(out.Responses?.[table] ?? []));
    request = out.UnprocessedKeys?.[table]?.Keys ?? [];
  }
  return items;
}

/** What the writers use: strongly consistent, patient with throttling. */
export const WRITER_READ: BatchGetOptions = { consistentRead: true, maxAttempts: 9, backoffMs: 50 };
