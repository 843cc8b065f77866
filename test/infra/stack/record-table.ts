import { Match } from 'aws-cdk-lib/assertions';
import { PENDING_INDEX, TABLE_KEYS, TTL_ATTRIBUTE } from '../../../functions/store/write';
import { synthesize } from '../support';
import { ofType, resources, synthesized, tableId } from './template';

/** lib/stack/record-table.ts: the single table of records, pending events and the ledger. */

describe('record table', () => {
  test('pk/sk strings, pay-per-request, point-in-time recovery, deletion protection, retained', () => {
    const [, table] = ofType('AWS::DynamoDB::Table')[0];
    expect(ofType('AWS::DynamoDB::Table')).toHaveLength(1);
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: expect.arrayContaining([
        { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
        { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
      ]),
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
  });

  test('a development stack can turn deletion protection off (context deletionProtection=false)', () => {
    const dev = synthesized({ deletionProtection: 'false' });
    dev.template.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } });
  });

  test('the table streams new images, and has the sparse pending index (keys only)', () => {
    const table = resources[tableId].Properties;
    expect(table.StreamSpecification).toEqual({ StreamViewType: 'NEW_IMAGE' });
    // Bookkeeping items carry the TTL attribute; DynamoDB deletes them after it (functions/store/dynamodb/pending-items.ts).
    expect(table.TimeToLiveSpecification).toEqual({ AttributeName: TTL_ATTRIBUTE, Enabled: true });
    expect(table.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: PENDING_INDEX.name,
        KeySchema: [
          { AttributeName: PENDING_INDEX.partitionKey, KeyType: 'HASH' },
          { AttributeName: PENDING_INDEX.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
    expect(table.AttributeDefinitions).toEqual(
      expect.arrayContaining([
        { AttributeName: PENDING_INDEX.partitionKey, AttributeType: 'S' },
        { AttributeName: PENDING_INDEX.sortKey, AttributeType: 'S' },
      ]),
    );
    expect(PENDING_INDEX).toEqual({ name: 'pending', partitionKey: 'queue', sortKey: 'receivedAt' });
  });
});

/**
 * The record table made from a DynamoDB import of `npm run load -- FILE --export DIR` files
 * (CDK context importFrom, through the Table's import source): the format and compression the
 * exporter writes, the folder given, and the same keys and pending index as an empty table.
 */
describe('the record table from an import (context importFrom)', () => {
  const tables = (context: Record<string, unknown>) => Object.values(synthesized(context).json.Resources).filter((r) => r.Type === 'AWS::DynamoDB::Table');

  it('imports gzip-compressed DynamoDB JSON from the prefix given, into the table the stack always declares', () => {
    const { template } = synthesized({ importFrom: 's3://trust-exports-123/exports/2026-11' });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      ImportSourceSpecification: {
        InputFormat: 'DYNAMODB_JSON',
        InputCompressionType: 'GZIP',
        S3BucketSource: { S3Bucket: 'trust-exports-123', S3KeyPrefix: 'exports/2026-11/' },
      },
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [Match.objectLike({ IndexName: PENDING_INDEX.name })],
      BillingMode: 'PAY_PER_REQUEST',
    });
    expect(tables({ importFrom: 's3://trust-exports-123/' })[0].Properties.ImportSourceSpecification.S3BucketSource).toEqual({ S3Bucket: 'trust-exports-123', S3KeyPrefix: '' });
  });

  it('is an empty table without it, and refuses a value that is not an S3 folder', () => {
    const [table] = tables({});
    expect(table.Properties.ImportSourceSpecification).toBeUndefined();
    for (const bad of ['https://bucket/prefix', 's3://', 's3://UPPER/x', 'bucket/prefix']) {
      expect(() => synthesize({ importFrom: bad })).toThrow(/context 'importFrom' must be s3:\/\/<bucket>\/<prefix>\//);
    }
  });
});
