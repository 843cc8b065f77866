import { paginateScan, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { allStatedAttributes, statedFields } from '../../../functions/store/dynamodb/event-item-fields';
import { forEachConcurrently } from '../../../functions/store/dynamodb/put-items';
import type { Item } from '../../../functions/store/dynamodb/pending-items';
import { GENESIS_SK, PENDING_PK_PREFIX, TTL_ATTRIBUTE } from '../../../functions/store/layout';
import type { MigrationStep } from '../step';

/** Items rewritten at once. */
const CONCURRENCY = 16;

/**
 * Integrated events' items as the layout before kept them (the raw event, and a TTL 30 days after
 * the sequencer settled them) become what the sequencer writes today: the claim of the event's
 * identity, kept for good, every field the raw event stated an attribute of its own
 * (functions/store/dynamodb/pending-items.ts eventItem). Found by a Scan (one read of the whole
 * table); each rewritten by a conditional UpdateItem that changes only an integrated event still
 * holding its raw event, so a run again, or after one that stopped, changes nothing else. A claim
 * TTL deleted before the migration ran is gone: the sequencer's own guard still keeps the same
 * event integrated once (docs/ingress.md#exactly-once-per-event).
 */
export const integratedClaims: MigrationStep = async ({ client, table }) => {
  const found: Item[] = [];
  const pages = paginateScan(
    { client },
    {
      TableName: table,
      // An event's item (layout.ts eventPk), not a delivery's.
      FilterExpression: 'begins_with(pk, :pending) AND contains(pk, :event) AND sequencing = :sequenced AND attribute_exists(event)',
      ExpressionAttributeValues: { ':pending': { S: PENDING_PK_PREFIX }, ':event': { S: '#event:' }, ':sequenced': { S: 'SEQUENCED' } },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) found.push(...(page.Items ?? []));
  let moved = 0;
  await forEachConcurrently(found, CONCURRENCY, async (item) => {
    const stated = allStatedAttributes(statedFields(item));
    const names = Object.keys(stated);
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: { pk: item.pk!, sk: { S: GENESIS_SK } },
          UpdateExpression: `SET ${names.map((_, i) => `#s${i} = :s${i}`).join(', ')} REMOVE #event, #ttl`,
          ConditionExpression: 'sequencing = :sequenced AND attribute_exists(#event)',
          ExpressionAttributeNames: { '#event': 'event', '#ttl': TTL_ATTRIBUTE, ...Object.fromEntries(names.map((name, i) => [`#s${i}`, name])) },
          ExpressionAttributeValues: { ':sequenced': { S: 'SEQUENCED' }, ...Object.fromEntries(names.map((name, i) => [`:s${i}`, stated[name]])) },
        }),
      );
      moved++;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  });
  return moved;
};
