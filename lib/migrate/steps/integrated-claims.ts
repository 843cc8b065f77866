import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { allStatedAttributes, statedFields } from '../../../functions/store/dynamodb/event-item-fields';
import { GENESIS_SK, PENDING_PK_PREFIX, TTL_ATTRIBUTE } from '../../../functions/store/layout';
import { rewriteEach, scanWhere, type MigrationStep } from '../step';

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
export const integratedClaims: MigrationStep = async (context) => {
  const found = await scanWhere(context, {
    // An event's item (layout.ts eventPk), not a delivery's.
    FilterExpression: 'begins_with(pk, :pending) AND contains(pk, :event) AND sequencing = :sequenced AND attribute_exists(event)',
    ExpressionAttributeValues: { ':pending': { S: PENDING_PK_PREFIX }, ':event': { S: '#event:' }, ':sequenced': { S: 'SEQUENCED' } },
  });
  return rewriteEach(found, async (item) => {
    const stated = allStatedAttributes(statedFields(item));
    const names = Object.keys(stated);
    await context.client.send(
      new UpdateItemCommand({
        TableName: context.table,
        Key: { pk: item.pk!, sk: { S: GENESIS_SK } },
        UpdateExpression: `SET ${names.map((_, i) => `#s${i} = :s${i}`).join(', ')} REMOVE #event, #ttl`,
        ConditionExpression: 'sequencing = :sequenced AND attribute_exists(#event)',
        ExpressionAttributeNames: { '#event': 'event', '#ttl': TTL_ATTRIBUTE, ...Object.fromEntries(names.map((name, i) => [`#s${i}`, name])) },
        ExpressionAttributeValues: { ':sequenced': { S: 'SEQUENCED' }, ...Object.fromEntries(names.map((name, i) => [`:s${i}`, stated[name]])) },
      }),
    );
  });
};
