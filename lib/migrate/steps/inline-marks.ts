import { DeleteItemCommand, paginateScan, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { forEachConcurrently } from '../../../functions/store/dynamodb/put-items';
import { eventKeyAttribute, type Item } from '../../../functions/store/dynamodb/record-items';
import { ENTRY_SK_PREFIX, EVENT_MARK_SK_PREFIX, RECORD_PK_PREFIX } from '../../../functions/store/layout';
import type { MigrationStep } from '../step';

/** Marks folded at once. */
const CONCURRENCY = 16;

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
export const inlineMarks: MigrationStep = async ({ client, table }) => {
  const marks: Item[] = [];
  const pages = paginateScan(
    { client },
    {
      TableName: table,
      FilterExpression: 'begins_with(pk, :record) AND begins_with(sk, :mark)',
      ExpressionAttributeValues: { ':record': { S: RECORD_PK_PREFIX }, ':mark': { S: EVENT_MARK_SK_PREFIX } },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) marks.push(...(page.Items ?? []));
  let moved = 0;
  await forEachConcurrently(marks, CONCURRENCY, async (mark) => {
    const entry = `${ENTRY_SK_PREFIX}${mark.sk!.S!.slice(EVENT_MARK_SK_PREFIX.length)}`;
    const key = eventKeyAttribute(mark.eventKey!.S!);
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: { pk: mark.pk!, sk: { S: entry } },
          UpdateExpression: 'SET k = :key',
          // The entry is there, lean, and holds no identity or this one.
          ConditionExpression: 'attribute_exists(pk) AND attribute_exists(v) AND (attribute_not_exists(k) OR k = :key)',
          ExpressionAttributeValues: { ':key': key },
        }),
      );
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return;
      throw error;
    }
    await client.send(new DeleteItemCommand({ TableName: table, Key: { pk: mark.pk!, sk: mark.sk! } }));
    moved++;
  });
  return moved;
};
