import { DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { inHeadsPartition } from '../../../functions/store/dynamodb/record-items';
import { HEAD_SK_PREFIX, RECORD_PK_PREFIX } from '../../../functions/store/layout';
import { rewriteEach, scanWhere, type MigrationStep } from '../step';

/**
 * Versions' heads moved out of their record's entries' partition (`R#<reference>`, sort key `V#…`,
 * the layout before) into the record's heads partition (`R#<reference>#V`, the same sort key and
 * attributes), as the writers keep them now (functions/store/layout.ts): a state change then
 * writes one unit to each of two keys, not two to one. Found by a Scan (one read of the whole
 * table); each head put under its new key (inHeadsPartition, as a journal of the layout before is
 * finished) unless a different version is there already, then
 * deleted from the old one if it is still the same version. A run again, or after one that
 * stopped between the two writes, finishes what is left and changes nothing else. Readers find a
 * head in either place meanwhile (functions/store/dynamodb/record-windows.ts headOfVersion), at a
 * second round trip for a head not yet moved.
 */
export const headsApart: MigrationStep = async (context) => {
  const found = await scanWhere(context, {
    FilterExpression: 'begins_with(pk, :record) AND begins_with(sk, :head)',
    ExpressionAttributeValues: { ':record': { S: RECORD_PK_PREFIX }, ':head': { S: HEAD_SK_PREFIX } },
  });
  const toMove = found.map((head) => ({ head, moved: inHeadsPartition(head) })).filter(({ head, moved }) => moved !== head);
  return rewriteEach(toMove, async ({ head, moved }) => {
    const { client, table } = context;
    const sameVersion = { ':version': head.version! };
    await client.send(
      new PutItemCommand({
        TableName: table,
        Item: moved,
        ConditionExpression: 'attribute_not_exists(pk) OR version = :version',
        ExpressionAttributeValues: sameVersion,
      }),
    );
    await client.send(new DeleteItemCommand({ TableName: table, Key: { pk: head.pk!, sk: head.sk! }, ConditionExpression: 'version = :version', ExpressionAttributeValues: sameVersion }));
  });
};
