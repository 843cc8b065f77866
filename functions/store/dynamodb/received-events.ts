import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { StoreUnavailable } from '../errors';
import { eventPk, GENESIS_SK, pendingPk } from '../layout';
import type { ReceivedEvents } from '../ports/pending';
import { answerItem, deliveryOf, eventItem, eventOf, type Item } from './pending-items';

const NEW = { expression: 'attribute_not_exists(pk)' };

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
      const earlier = old?.status ? old : await get(item.pk!.S!, what);
      if (!earlier) throw new StoreUnavailable(`GetItem ${what} (not visible yet)`);
      return earlier;
    }
  };
  return {
    async lookUp(delivery, identityDigest) {
      const [event, noted] = await Promise.all([get(eventPk(delivery.sourceId, identityDigest), 'event'), get(pendingPk(delivery.sourceId, delivery.webhookId), 'pending delivery')]);
      const stored = noted ? deliveryOf(noted) : null;
      // The delivery names an event the first read did not see yet (stored between the two reads): read it too.
      if (stored?.eventKey) stored.event = event && event.pk!.S === stored.eventKey ? eventOf(event) : await get(stored.eventKey, 'event').then((i) => (i ? eventOf(i) : null));
      return { event: event ? eventOf(event) : null, delivery: stored };
    },
    async claim(event) {
      const key = eventPk(event.sourceId, event.identity.digest);
      const earlier = await putUnless(eventItem(event, key), NEW, 'event');
      return earlier ? { claimed: false, stored: eventOf(earlier) } : { claimed: true, key };
    },
    async noteDelivery(delivery, eventKey) {
      await putUnless({ ...answerItem(delivery), eventKey: { S: eventKey } }, {
        expression: 'attribute_not_exists(pk) OR (bodySha256 = :body AND #status <> :accepted)',
        names: { '#status': 'status' },
        values: { ':body': { S: delivery.bodySha256 }, ':accepted': { N: '202' } },
      }, 'pending delivery');
    },
    async refuse(delivery) {
      const earlier = await putUnless({ ...answerItem(delivery), sequencing: { S: 'REFUSED' } }, NEW, 'pending delivery');
      return earlier ? { stored: false, earlier: deliveryOf(earlier) } : { stored: true };
    },
  };
}
