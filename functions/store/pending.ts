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
import { eventPk, GENESIS_SK, PENDING_INDEX, PENDING_QUEUE, pendingPk } from './layout';
import { batchGetItems, WRITER_READ } from './batch-get';

/**
 * What the receivers store (layout.ts), two kinds of items, each written once with a conditional
 * PutItem, so that of any number of concurrent writers exactly one succeeds and the others read
 * what it wrote (docs/ingress.md#exactly-once-per-event):
 *
 * The event, pk = "P#" + sourceId + "#event:" + identity digest, sk = "#": one per accepted event,
 * whatever number of deliveries carried it. Its conditional write is the claim of the event's
 * identity, and it is what the sequencer integrates.
 *   sourceId, eventSource, eventId   who sent it and its CloudEvents identity (source, id)
 *   contentSha256          digest of the event's canonical JSON (tells a replay from a reused id)
 *   webhookId, bodySha256  its first delivery
 *   status, answer         202 and the receipt its first delivery was answered (every later one gets the same)
 *   event                  the raw verified body of its first delivery, as received
 *   eventType, reference, eventAt, effect
 *   receivedAt             the service clock when it was stored
 *   sequencing             PENDING, then SEQUENCED or SET_ASIDE once the sequencer has integrated it
 *   queue                  "PENDING" while it waits: the key of the sparse `pending` index the
 *                          sequencer drains (PENDING_INDEX); removed when the sequencer is done with it
 *   sequencedAt, outcome   when the sequencer was done with it, and what it did (version, or why set aside)
 *
 * The delivery, pk = "P#" + sourceId + "#" + webhookId, sk = "#": one per verified delivery, the
 * answer it was given (its webhook-id is answered once per source).
 *   sourceId, webhookId, status, answer, bodySha256, receivedAt
 *   eventKey               the event it carried, when that event is stored (its answer and sequencing are the event's)
 *   sequencing             REFUSED for a refusal (404, 409, 422)
 *
 * An item of the delivery kind that carries `event` and `queue` itself (how accepted events were
 * stored before events had items of their own) is integrated all the same.
 * Rewritten once by the sequencer (under the ledger lease), which is its only other writer.
 */
type Item = Record<string, AttributeValue>;

export interface PendingDelivery {
  sourceId: string;
  webhookId: string;
  status: number;
  answer: unknown;
  bodySha256: string;
  receivedAt: string;
  /** REFUSED: answered 4xx, never sequenced. PENDING: carries the event for the sequencer. ACCEPTED: carried the event stored under `eventKey`. */
  sequencing: 'PENDING' | 'REFUSED' | 'ACCEPTED';
  event?: { raw: string; type: string; reference: string; at: string; effect: string };
  /** The key of the stored event this delivery carried (ACCEPTED). */
  eventKey?: string;
}

/** An accepted event, stored once under its identity (the first delivery's details with it). */
export interface AcceptedEvent extends Omit<PendingDelivery, 'sequencing' | 'eventKey' | 'event'> {
  identity: { source: string; id: string; digest: string; contentSha256: string };
  event: NonNullable<PendingDelivery['event']>;
}

export interface StoredDelivery {
  /** The item's key. */
  key: string;
  status: number;
  answer: unknown;
  bodySha256: string;
  /** Where the sequencer is with it (PENDING, REFUSED, SEQUENCED, SET_ASIDE), when it was done, and what it did; null on a delivery whose event is stored apart. */
  sequencing: string | null;
  sequencedAt: string | null;
  outcome: SequencingOutcome | null;
  /** An event item: the digest of the event's canonical JSON. */
  contentSha256: string | null;
  /** A delivery item: the key of the event it carried. */
  eventKey: string | null;
}

function itemOf(d: PendingDelivery, pk: string): Item {
  const item: Item = {
    pk: { S: pk },
    sk: { S: GENESIS_SK },
    sourceId: { S: d.sourceId },
    webhookId: { S: d.webhookId },
    status: { N: String(d.status) },
    answer: { S: JSON.stringify(d.answer) },
    bodySha256: { S: d.bodySha256 },
    receivedAt: { S: d.receivedAt },
  };
  if (d.sequencing !== 'ACCEPTED') item.sequencing = { S: d.sequencing };
  if (d.eventKey) item.eventKey = { S: d.eventKey };
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
    key: item.pk!.S!,
    status: Number(item.status!.N),
    answer: JSON.parse(item.answer!.S!),
    bodySha256: item.bodySha256!.S!,
    sequencing: item.sequencing?.S ?? null,
    sequencedAt: item.sequencedAt?.S ?? null,
    outcome: item.outcome?.S ? (JSON.parse(item.outcome.S) as SequencingOutcome) : null,
    contentSha256: item.contentSha256?.S ?? null,
    eventKey: item.eventKey?.S ?? null,
  };
}

type Written = { stored: true } | { stored: false; earlier: StoredDelivery };

/** One conditional PutItem; when the condition fails, what is stored under the key instead. */
async function putUnless(item: Item, condition: { expression: string; names?: Record<string, string>; values?: Item }, what: string): Promise<Written> {
  const table = tableName();
  if (!table) throw new StoreNotConfigured();
  try {
    await storeClient().send(
      new PutItemCommand({
        TableName: table,
        Item: item,
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: condition.names,
        ExpressionAttributeValues: condition.values,
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { stored: true };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException') {
      const old = (error as ConditionalCheckFailedException).Item;
      const earlier = old?.status ? old : await getItem(table, item.pk!.S!, what);
      // The condition failed, so the item exists; a strongly consistent read sees it.
      if (!earlier) throw new StoreUnavailable(`GetItem ${what} (not visible yet)`);
      return { stored: false, earlier: storedOf(earlier) };
    }
    throw new StoreUnavailable(`PutItem ${what}`, { cause: error });
  }
}

const NEW = { expression: 'attribute_not_exists(pk)' };

/**
 * Stores a delivery's outcome once. Returns `{ stored: true }` when this call wrote it, else the
 * outcome stored by an earlier (or concurrent) copy of the same delivery.
 */
export async function storeDeliveryOnce(delivery: PendingDelivery): Promise<Written> {
  return putUnless(itemOf(delivery, pendingPk(delivery.sourceId, delivery.webhookId)), NEW, 'pending delivery');
}

/**
 * Notes that a delivery carried a stored event: written unless its webhook-id already answered
 * another body or already points to an event. A refusal stored by a concurrent copy of the same
 * delivery (the rules read the record at another instant) is replaced: the event is stored, so
 * that is the answer its webhook-id keeps.
 */
export async function storeDeliveryOfEvent(delivery: Omit<PendingDelivery, 'sequencing' | 'event'> & { eventKey: string }): Promise<Written> {
  return putUnless(itemOf({ ...delivery, sequencing: 'ACCEPTED' }, pendingPk(delivery.sourceId, delivery.webhookId)), {
    expression: 'attribute_not_exists(pk) OR (bodySha256 = :body AND #status <> :accepted)',
    names: { '#status': 'status' },
    values: { ':body': { S: delivery.bodySha256 }, ':accepted': { N: '202' } },
  }, 'pending delivery');
}

/**
 * Claims an event's identity: stores the accepted event under it, waiting for the sequencer, unless
 * it is already stored. Returns `{ stored: true }` when this call claimed it, else the event stored
 * by the delivery that did (the same event, or another one reusing its identity: compare `contentSha256`).
 */
export async function claimEvent(event: AcceptedEvent): Promise<Written> {
  const item = itemOf({ ...event, sequencing: 'PENDING' }, eventPk(event.sourceId, event.identity.digest));
  item.eventSource = { S: event.identity.source };
  item.eventId = { S: event.identity.id };
  item.contentSha256 = { S: event.identity.contentSha256 };
  return putUnless(item, NEW, 'event');
}

async function getItem(table: string, pk: string, what: string): Promise<Item | undefined> {
  try {
    return (await storeClient().send(new GetItemCommand({ TableName: table, Key: { pk: { S: pk }, sk: { S: GENESIS_SK } }, ConsistentRead: true }))).Item;
  } catch (error) {
    throw new StoreUnavailable(`GetItem ${what}`, { cause: error });
  }
}

async function readStored(pk: string, what: string): Promise<StoredDelivery | null> {
  const table = tableName();
  if (!table) throw new StoreNotConfigured();
  const item = await getItem(table, pk, what);
  return item ? storedOf(item) : null;
}

/** The delivery stored under a webhook-id, if any (strongly consistent). */
export const readDelivery = (sourceId: string, webhookId: string): Promise<StoredDelivery | null> => readStored(pendingPk(sourceId, webhookId), 'pending delivery');

/** The event stored under an identity digest, if any (strongly consistent). */
export const readEvent = (sourceId: string, identityDigest: string): Promise<StoredDelivery | null> => readStored(eventPk(sourceId, identityDigest), 'event');

/** The event stored under its key (a delivery's `eventKey`), strongly consistent. */
export const readEventAt = (key: string): Promise<StoredDelivery | null> => readStored(key, 'event');

/** An accepted delivery as the sequencer reads it back. */
export interface WaitingDelivery {
  key: string;
  /** The source whose key verified it. */
  sourceId: string;
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
    sourceId: item.sourceId!.S!,
    receivedAt: item.receivedAt!.S!,
    // A delivery whose event is stored apart has no sequencing of its own (nothing to integrate).
    sequencing: item.sequencing?.S ?? '',
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
