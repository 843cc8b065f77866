import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { storeClient, tableName } from './client';
import { StoreNotConfigured, StoreUnavailable } from './errors';
import { GENESIS_SK, pendingPk } from './layout';

/**
 * Received events (one item per delivery, see layout.ts): pk = "P#" + sourceId + "#" + webhookId, sk = "#".
 *   sourceId, webhookId    who sent it, and its idempotency key
 *   status, answer         the status and body the delivery was answered with (a retry gets the same)
 *   bodySha256             digest of the raw verified body (a reused webhook-id with another body is told apart)
 *   event                  the raw verified body, as received (only when accepted)
 *   eventType, reference, eventAt, effect
 *   receivedAt             the service clock when it was stored
 *   sequencing             PENDING (accepted, waiting for the sequencer) or REFUSED (answered 4xx, never sequenced)
 * Written once, with one conditional PutItem (attribute_not_exists): of any number of concurrent
 * copies exactly one write succeeds; the others read the stored answer.
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
  return { status: Number(item.status!.N), answer: JSON.parse(item.answer!.S!), bodySha256: item.bodySha256!.S! };
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
