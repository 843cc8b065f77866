import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BATCH_GET_KEYS, batchGetItems } from '../batch-get';
import { StoreUnavailable } from '../errors';
import { eventPk, GENESIS_SK, pendingPk } from '../layout';
import type { DeliveryAnswer, ReceivedEvents } from '../ports/pending';
import { answerItem, deliveryOf, eventItem, eventOf, type Item } from './pending-items';

const NEW = { expression: 'attribute_not_exists(pk)' };

/** A receiver answers while its sender waits: unprocessed keys are asked for again soon, a few times. */
const RECEIVER_READ = { consistentRead: true, maxAttempts: 4, backoffMs: 10 };

/**
 * The receivers' part of the pending store in the table (pending-items.ts): every write one
 * conditional PutItem (`attribute_not_exists`), so of any number of concurrent writers exactly one
 * succeeds and the others read what it wrote (ReturnValuesOnConditionCheckFailure).
 */
export function dynamoReceivedEvents(client: DynamoDBClient, table: string): ReceivedEvents {
  const get = async (pk: string, what: string): Promise<Item | undefined> => {
    try {
      return (await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: pk }, sk: { S: GENESIS_SK } }, ConsistentRead: true }))).Item;
    } catch (error) {
      throw new StoreUnavailable(`GetItem ${what}`, { cause: error });
    }
  };
  /** One conditional PutItem; when the condition fails, the item stored under the key instead. */
  const putUnless = async (item: Item, condition: { expression: string; names?: Record<string, string>; values?: Item }, what: string): Promise<Item | null> => {
    try {
      await client.send(
        new PutItemCommand({
          TableName: table,
          Item: item,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: condition.names,
          ExpressionAttributeValues: condition.values,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return null;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException')) throw new StoreUnavailable(`PutItem ${what}`, { cause: error });
      const old = (error as ConditionalCheckFailedException).Item;
      // The condition failed, so the item exists; a strongly consistent read sees it.
      const earlier = old?.pk ? old : await get(item.pk!.S!, what);
      if (!earlier) throw new StoreUnavailable(`GetItem ${what} (not visible yet)`);
      return earlier;
    }
  };
  /** The note that a delivery carried the event under eventKey: unless its webhook-id answered another body or names an event (202), other than `unclaimed`. */
  const note = async (delivery: DeliveryAnswer, eventKey: string, unclaimed: string | null): Promise<void> => {
    await putUnless({ ...answerItem(delivery), eventKey: { S: eventKey } }, {
      expression: `attribute_not_exists(pk) OR (bodySha256 = :body AND #status <> :accepted)${unclaimed === null ? '' : ' OR eventKey = :unclaimed'}`,
      names: { '#status': 'status' },
      values: { ':body': { S: delivery.bodySha256 }, ':accepted': { N: '202' }, ...(unclaimed === null ? {} : { ':unclaimed': { S: unclaimed } }) },
    }, 'pending delivery');
  };
  /** Where an event's claim is: its source and its identity. */
  const claimKey = (event: Parameters<ReceivedEvents['claim']>[0]) => eventPk(event.sourceId, event.identity.digest);
  const claim: ReceivedEvents['claim'] = async (event) => {
    const key = claimKey(event);
    const earlier = await putUnless(eventItem(event, key), NEW, 'event');
    return earlier ? { claimed: false, stored: eventOf(earlier) } : { claimed: true, key };
  };
  const lookUpBatch: ReceivedEvents['lookUpBatch'] = async (delivery, identityDigests) => {
    // The delivery's key and every distinct identity's (BatchGetItem refuses a key twice), 100 keys a request, the requests sent together.
    const keys = [...new Set([pendingPk(delivery.sourceId, delivery.webhookId), ...identityDigests.map((d) => eventPk(delivery.sourceId, d))])];
    const chunks = Array.from({ length: Math.ceil(keys.length / BATCH_GET_KEYS) }, (_, i) => keys.slice(i * BATCH_GET_KEYS, (i + 1) * BATCH_GET_KEYS));
    let items: Item[];
    try {
      items = (await Promise.all(chunks.map((chunk) => batchGetItems(client, table, chunk.map((pk) => ({ pk: { S: pk }, sk: { S: GENESIS_SK } })), RECEIVER_READ)))).flat();
    } catch (error) {
      throw error instanceof StoreUnavailable ? error : new StoreUnavailable('BatchGetItem events', { cause: error });
    }
    const byKey = new Map(items.map((item) => [item.pk!.S!, item]));
    const noted = byKey.get(pendingPk(delivery.sourceId, delivery.webhookId));
    return {
      delivery: noted ? deliveryOf(noted) : null,
      events: identityDigests.map((d) => {
        const item = byKey.get(eventPk(delivery.sourceId, d));
        return item ? eventOf(item) : null;
      }),
    };
  };
  return {
    async lookUp(delivery, identityDigest) {
      // Both items in one BatchGetItem: a request less than two GetItems, the SDK's work per request being most of a receiver's CPU time.
      const { delivery: stored, events: [event] } = await lookUpBatch(delivery, [identityDigest]);
      // The delivery names another event (another body), or one the read did not see yet (stored since): read it too.
      if (stored?.eventKey) stored.event = event && event.key === stored.eventKey ? event : await get(stored.eventKey, 'event').then((i) => (i ? eventOf(i) : null));
      return { event, delivery: stored };
    },
    claim,
    noteDelivery: (delivery, eventKey) => note(delivery, eventKey, null),
    async claimNoted(event, unclaimed) {
      // Sent together: a note whose claim failed is answered 503 and read as unanswered (ports/pending.ts).
      const [claimed] = await Promise.all([claim(event), note(event, claimKey(event), unclaimed)]);
      return claimed;
    },
    async refuse(delivery) {
      const earlier = await putUnless({ ...answerItem(delivery), sequencing: { S: 'REFUSED' } }, NEW, 'pending delivery');
      return earlier ? { stored: false, earlier: deliveryOf(earlier) } : { stored: true };
    },
    lookUpBatch,
    async answerOnce(delivery) {
      const earlier = await putUnless(answerItem(delivery), NEW, 'pending delivery');
      return earlier ? { stored: false, earlier: deliveryOf(earlier) } : { stored: true };
    },
  };
}
