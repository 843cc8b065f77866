import { DeleteItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { EVENT_KEY, eventKeyAttribute } from '../../../functions/store/dynamodb/record-items';
import { ENTRY_SK_PREFIX, EVENT_MARK_SK_PREFIX, RECORD_PK_PREFIX } from '../../../functions/store/layout';
import { rewriteEach, scanWhere, type MigrationStep } from '../step';

/**
 * Event marks (`W#<position>`: the identity of the event that made an entry not beginning a
 * version, in an item of its own) folded into their entries' items (attribute `k`, as the writers
 * keep it now: functions/store/dynamodb/record-items.ts), each mark deleted once its entry holds
 * it. Found by a Scan (one read of the whole table). An entry that already holds an identity, or
 * that is not there, keeps its mark (nothing is lost); a run again, or after one that stopped,
 * finishes what is left and changes nothing else. The sequencer reads a record's identities with
 * its entries and heads, so until this has run it would not see a mark's identity on a record it
 * reads from an instant: the claim of the event's identity (kept for good) still refuses the event.
 */
export const inlineMarks: MigrationStep = async (context) => {
  const marks = await scanWhere(context, {
    FilterExpression: 'begins_with(pk, :record) AND begins_with(sk, :mark)',
    ExpressionAttributeValues: { ':record': { S: RECORD_PK_PREFIX }, ':mark': { S: EVENT_MARK_SK_PREFIX } },
  });
  return rewriteEach(marks, async (mark) => {
    const { client, table } = context;
    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { pk: mark.pk!, sk: { S: `${ENTRY_SK_PREFIX}${mark.sk!.S!.slice(EVENT_MARK_SK_PREFIX.length)}` } },
        UpdateExpression: 'SET #key = :key',
        // The entry is there, lean, and holds no identity or this one.
        ConditionExpression: 'attribute_exists(pk) AND attribute_exists(v) AND (attribute_not_exists(#key) OR #key = :key)',
        ExpressionAttributeNames: { '#key': EVENT_KEY },
        ExpressionAttributeValues: { ':key': eventKeyAttribute(mark.eventKey!.S!) },
      }),
    );
    await client.send(new DeleteItemCommand({ TableName: table, Key: { pk: mark.pk!, sk: mark.sk! } }));
  });
};
