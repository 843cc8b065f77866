import { paginateQuery, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { LEGACY_PENDING_QUEUE, PENDING_INDEX, pendingQueue } from '../../../functions/store/layout';
import { rewriteEach, type MigrationStep } from '../step';

/**
 * Events waiting in the pending index's one partition (`queue = PENDING`) move to their shard
 * (`PENDING#<n>`, layout.ts pendingQueue), each by a conditional UpdateItem: an event the
 * sequencer settles meanwhile (its `queue` removed) is left as it is.
 */
export const pendingShards: MigrationStep = async ({ client, table }) => {
  const keys: string[] = [];
  const pages = paginateQuery(
    { client },
    {
      TableName: table,
      IndexName: PENDING_INDEX.name,
      KeyConditionExpression: '#queue = :legacy',
      ExpressionAttributeNames: { '#queue': PENDING_INDEX.partitionKey },
      ExpressionAttributeValues: { ':legacy': { S: LEGACY_PENDING_QUEUE } },
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) keys.push(item.pk!.S!);
  return rewriteEach(keys, async (pk) => {
    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { pk: { S: pk }, sk: { S: '#' } },
        UpdateExpression: 'SET #queue = :shard',
        ConditionExpression: '#queue = :legacy',
        ExpressionAttributeNames: { '#queue': PENDING_INDEX.partitionKey },
        ExpressionAttributeValues: { ':shard': { S: pendingQueue(pk) }, ':legacy': { S: LEGACY_PENDING_QUEUE } },
      }),
    );
  });
};
