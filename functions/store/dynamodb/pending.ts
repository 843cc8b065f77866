import { QueryCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { batchGetItems, WRITER_READ } from '../batch-get';
import { GENESIS_SK, PENDING_INDEX, PENDING_PK_PREFIX, PENDING_SHARDS, pendingQueues } from '../layout';
import type { PendingStore } from '../ports/pending';
import { statedFields } from './event-item-fields';
import { settledItem, waitingOf, type Item } from './pending-items';
import { putItems } from './put-items';
import { dynamoReceivedEvents } from './received-events';

export { settledItem } from './pending-items';

/**
 * Items settled together: a batch's settlements in BatchWriteItems of 25, this many at once: a full
 * sequencer batch (DEFAULT_BATCH_SIZE, functions/ledger-writer/sequencer.ts) in one round trip.
 */
const SETTLE_CONCURRENCY = 20;

/**
 * The pending store in the table (pending-items.ts): the receivers' part (received-events.ts), and
 * the sequencer's: the sparse index `pending` lists what waits (keys only, oldest received first
 * in each of its shards, eventually consistent), one Query per shard, all at once; the events
 * themselves are read strongly consistent, 100 keys a BatchGetItem, and settled by writing each
 * again whole, 25 to a BatchWriteItem, many at once.
 */
export function dynamoPendingStore(client: DynamoDBClient, table: string): PendingStore {
  const queryShard = async (queue: string, limit: number): Promise<Item[]> => {
    const out = await client.send(
      new QueryCommand({
        TableName: table,
        IndexName: PENDING_INDEX.name,
        KeyConditionExpression: '#queue = :queue',
        ExpressionAttributeNames: { '#queue': PENDING_INDEX.partitionKey },
        ExpressionAttributeValues: { ':queue': { S: queue } },
        Limit: limit,
      }),
    );
    return out.Items ?? [];
  };
  /**
   * The oldest `limit` of what every shard lists, oldest received first. Events hash evenly, but a
   * hundred of them over 64 shards put six or more in some shard in about 29% of batches (Poisson,
   * 1.56 a shard): each shard is asked for four times its share and a few more (11 for a batch of
   * 100; twelve or more in some shard about once in 150,000 batches), so a batch takes every event
   * that waits, and an event left over is at the head of its shard for the next. The
   * index holds keys only, so 11 entries are well under the 4 KB a Query's first read unit covers.
   */
  const queryWaiting = async (limit: number): Promise<Item[]> => {
    const perShard = Math.min(limit, Math.ceil((4 * limit) / PENDING_SHARDS) + 4);
    const shards = await Promise.all(pendingQueues().map((queue) => queryShard(queue, perShard)));
    const receivedAt = (item: Item) => item[PENDING_INDEX.sortKey]?.S ?? '';
    return shards
      .flat()
      .sort((a, b) => (receivedAt(a) < receivedAt(b) ? -1 : receivedAt(a) > receivedAt(b) ? 1 : 0))
      .slice(0, limit);
  };

  return {
    ...dynamoReceivedEvents(client, table),
    async listWaiting(limit) {
      return (await queryWaiting(limit)).map((item) => item.pk!.S!);
    },
    async oldestWaitingSince() {
      const [oldest] = await queryWaiting(1);
      return oldest?.[PENDING_INDEX.sortKey]?.S ?? null;
    },
    async readEvents(keys) {
      const items = await batchGetItems(client, table, keys.map((pk) => ({ pk: { S: pk }, sk: { S: GENESIS_SK } })), WRITER_READ);
      // BatchGetItem answers in no set order: in the order asked.
      // An integrated event is only its identity's claim (pending-items.ts eventItem): not read as one that may still be integrated.
      const byKey = new Map(items.filter((item) => (item.contentSha256?.S || item.contentSha256?.B) && item.event?.S && item.sequencing?.S !== 'SEQUENCED').map((item) => [item.pk!.S!, waitingOf(item)] as const));
      return keys.flatMap((key) => (byKey.has(key) ? [byKey.get(key)!] : []));
    },
    async settle(settlements) {
      await putItems(client, table, settlements.map(settledItem), undefined, { concurrency: SETTLE_CONCURRENCY });
    },
  };
}

/** A DynamoDB stream record as Lambda hands it over (what the sequencer reads of it). */
export interface StreamRecord {
  eventName?: string;
  dynamodb?: { Keys?: Record<string, { S?: string }>; NewImage?: Record<string, unknown>; ApproximateCreationDateTime?: number };
}

/**
 * The references a stream batch's new events name, from their images (NEW_IMAGE): the sequencer
 * reads those records' geneses together with the events. Only a hint: an image it cannot read
 * names nothing, and the batch reads what the events themselves name.
 */
export const namedOfStream = (records: readonly StreamRecord[]): string[] => namedBy(referencesOfStream(records));

/** The references named in `references` (referencesOfStream), each once: for a run that keeps the map too, without reading the images again. */
export const namedBy = (references: ReadonlyMap<string, string>): string[] => [...new Set(references.values())];

/** The reference each event of a stream batch names, by its key, as its image says (the parts of a batch are cut by reference: functions/ledger-writer/parts.ts). */
export function referencesOfStream(records: readonly StreamRecord[]): Map<string, string> {
  const references = new Map<string, string>();
  for (const r of records) {
    const image = r.dynamodb?.NewImage;
    const key = r.dynamodb?.Keys?.pk?.S;
    if (r.eventName !== 'INSERT' || !image || !key) continue;
    try {
      // Its reference alone (stored, or stated by its raw event): the rest is read with the event.
      const { reference } = statedFields(image as Item);
      if (typeof reference === 'string' && reference !== '') references.set(key, reference);
    } catch {
      // Not an event's whole image: no hint.
    }
  }
  return references;
}

/**
 * The keys of the events a DynamoDB stream batch brings (the table's stream, NEW_IMAGE, filtered to
 * INSERTs of what waits: lib/stack/sequencer.ts): what the sequencer takes before asking the index.
 */
export function waitingKeysOfStream(records: readonly StreamRecord[]): string[] {
  return records.flatMap((r) => {
    const key = r.dynamodb?.Keys?.pk?.S;
    return r.eventName === 'INSERT' && key?.startsWith(PENDING_PK_PREFIX) ? [key] : [];
  });
}
