import {
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { storeClient, tableName } from './client';
import { StoreNotConfigured, StoreUnavailable } from './errors';
import { GENESIS_SK, PENDING_INDEX, pendingPk } from './layout';
import { batchGetItems, WRITER_READ } from './batch-get';

/** The `queue` value of every delivery waiting for the sequencer. */
const PENDING_QUEUE = 'PENDING';

/**
 * Received events (one item per delivery, see layout.ts): pk = "P#" + sourceId + "#" + webhookId, sk = "#".
 *   sourceId, webhookId    who sent it, and its idempotency key
 *   status, answer         the status and body the delivery was answered with (a retry gets the same)
 *   bodySha256             digest of the raw verified body (a reused webhook-id with another body is told apart)
 *   event                  the raw verified body, as received (only when accepted)
 *   eventType, reference, eventAt, effect
 *   receivedAt             the service clock when it was stored
 *   sequencing             PENDING (accepted, waiting for the sequencer), REFUSED (answered 4xx, never
 *                          sequenced), then SEQUENCED or SET_ASIDE once the sequencer has integrated it
 *   queue                  "PENDING" while it waits: the key of the sparse `pending` index the
 *                          sequencer drains (PENDING_INDEX); removed when the sequencer is done with it
 *   sequencedAt, outcome   when the sequencer was done with it, and what it did (version, or why set aside)
 * Written once by a receiver, with one conditional PutItem (attribute_not_exists): of any number of
 * concurrent copies exactly one write succeeds; the others read the stored answer. Rewritten once
 * by the sequencer (under the ledger lease), which is its only other writer.
 */
type Item = Record<string, AttributeValue>;

export interface PendingDelivery {
  sourceId: string;
  webhookId: string;
  status: number;
  answer: unknown;
  bodySha256: string;
  receivedAt: string;
  sequencing: 'PENDING' | 'REFUSED';
  event?: { raw: string; type: string; reference: string; at: string; effect: string };
}

export interface StoredDelivery {
  status: number;
  answer: unknown;
  bodySha256: string;
  /** Where the sequencer is with it (PENDING, REFUSED, SEQUENCED, SET_ASIDE), when it was done, and what it did. */
  sequencing: string;
  sequencedAt: string | null;
  outcome: SequencingOutcome | null;
}

function itemOf(d: PendingDelivery): Item {
  const item: Item = {
    pk: { S: pendingPk(d.sourceId, d.webhookId) },
    sk: { S: GENESIS_SK },
    sourceId: { S: d.sourceId },
    webhookId: { S: d.webhookId },
    status: { N: String(d.status) },
    answer: { S: JSON.stringify(d.answer) },
    bodySha256: { S: d.bodySha256 },
    receivedAt: { S: d.receivedAt },
    sequencing: { S: d.sequencing },
  };
  if (d.sequencing === 'PENDING') item[PENDING_INDEX.partitionKey] = { S: PENDING_QUEUE };
  if (d.event) {
    item.event = { S: d.event.raw };
    item.eventType = { S: d.event.type };
    item.reference = { S: d.event.reference };
    item.eventAt = { S: d.event.at };
    item.effect = { S: d.event.effect };
  }
  return item;
}

function storedOf(item: Item): StoredDelivery {
  return {
    status: Number(item.status!.N),
    answer: JSON.parse(item.answer!.S!),
    bodySha256: item.bodySha256!.S!,
    sequencing: item.sequencing?.S ?? 'PENDING',
    sequencedAt: item.sequencedAt?.S ?? null,
    outcome: item.outcome?.S ? (JSON.parse(item.outcome.S) as SequencingOutcome) : null,
  };
}

/**
 * Stores a delivery's outcome once. Returns `{ stored: true }` when this call wrote it, else the
 * outcome stored by an earlier (or concurrent) copy of the same delivery.
 */
export async function storeDeliveryOnce(delivery: PendingDelivery): Promise<{ stored: true } | { stored: false; earlier: StoredDelivery }> {
  const table = tableName();
  if (!table) throw new StoreNotConfigured();
  try {
    await storeClient().send(
      new PutItemCommand({
        TableName: table,
        Item: itemOf(delivery),
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { stored: true };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException') {
      const old = (error as ConditionalCheckFailedException).Item;
      return { stored: false, earlier: old?.status ? storedOf(old) : await readDelivery(table, delivery.sourceId, delivery.webhookId) };
    }
    throw new StoreUnavailable('PutItem pending event', { cause: error });
  }
}

async function readDelivery(table: string, sourceId: string, webhookId: string): Promise<StoredDelivery> {
  let item: Item | undefined;
  try {
    const out = await storeClient().send(
      new GetItemCommand({ TableName: table, Key: { pk: { S: pendingPk(sourceId, webhookId) }, sk: { S: GENESIS_SK } }, ConsistentRead: true }),
    );
    item = out.Item;
  } catch (error) {
    throw new StoreUnavailable('GetItem pending event', { cause: error });
  }
  // The condition failed, so the item exists; a strongly consistent read sees it.
  if (!item) throw new StoreUnavailable('GetItem pending event (not visible yet)');
  return storedOf(item);
}

/** An accepted delivery as the sequencer reads it back. */
export interface WaitingDelivery {
  key: string;
  receivedAt: string;
  sequencing: string;
  /** The verified body as received (a CloudEvent), and what the receiver read from it. */
  event: { raw: string; type: string; reference: string; at: string } | null;
  item: Item;
}

/** The index entries (keys and `receivedAt`) of up to `limit` deliveries waiting, oldest first (eventually consistent). */
async function queryWaiting(client: DynamoDBClient, table: string, limit: number): Promise<Item[]> {
  const out = await client.send(
    new QueryCommand({
      TableName: table,
      IndexName: PENDING_INDEX.name,
      KeyConditionExpression: '#queue = :queue',
      ExpressionAttributeNames: { '#queue': PENDING_INDEX.partitionKey },
      ExpressionAttributeValues: { ':queue': { S: PENDING_QUEUE } },
      Limit: limit,
    }),
  );
  return out.Items ?? [];
}

/** The keys of up to `limit` deliveries waiting for the sequencer, oldest first (the sparse index; eventually consistent). */
export async function listWaitingDeliveries(client: DynamoDBClient, table: string, limit: number): Promise<string[]> {
  return (await queryWaiting(client, table, limit)).map((item) => item.pk!.S!);
}

/**
 * When the delivery that has waited longest was received, or null when none waits: the first
 * entry of the index, whose sort key is `receivedAt` (one Query of one key-only entry).
 */
export async function oldestWaitingSince(client: DynamoDBClient, table: string): Promise<string | null> {
  const [oldest] = await queryWaiting(client, table, 1);
  return oldest?.[PENDING_INDEX.sortKey]?.S ?? null;
}

/** The deliveries under `keys` as they stand (one strongly consistent BatchGetItem per 100 keys). */
export async function readDeliveries(client: DynamoDBClient, table: string, keys: readonly string[]): Promise<WaitingDelivery[]> {
  const items = await batchGetItems(client, table, keys.map((pk) => ({ pk: { S: pk }, sk: { S: GENESIS_SK } })), WRITER_READ);
  return items.map((item) => ({
    key: item.pk!.S!,
    receivedAt: item.receivedAt!.S!,
    sequencing: item.sequencing!.S!,
    event: item.event?.S ? { raw: item.event.S, type: item.eventType!.S!, reference: item.reference!.S!, at: item.eventAt!.S! } : null,
    item,
  }));
}

export type SequencingOutcome = { sequenced: true; version: number | null } | { sequenced: false; reason: string };

/** The delivery once the sequencer is done with it: out of the pending index, with what was done. */
export function settledDeliveryItem(delivery: WaitingDelivery, outcome: SequencingOutcome, at: string): Item {
  const item: Item = { ...delivery.item };
  delete item[PENDING_INDEX.partitionKey];
  item.sequencing = { S: outcome.sequenced ? 'SEQUENCED' : 'SET_ASIDE' };
  item.sequencedAt = { S: at };
  item.outcome = { S: JSON.stringify(outcome) };
  return item;
}
