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

/**
 * Provisioned capacity (context tableCapacity=provisioned, docs/deploy.md#the-tables-capacity):
 * the table and its pending index start at the range's minimum, and auto scaling's target tracking
 * keeps each one's reads and writes at the target utilization between min and max.
 */
describe('the record table with provisioned capacity (context tableCapacity)', () => {
  const targets = (json: { Resources: Record<string, { Type: string; Properties?: any }> }) =>
    Object.values(json.Resources).filter((r) => r.Type === 'AWS::ApplicationAutoScaling::ScalableTarget').map((r) => r.Properties);
  const policies = (json: { Resources: Record<string, { Type: string; Properties?: any }> }) =>
    Object.values(json.Resources).filter((r) => r.Type === 'AWS::ApplicationAutoScaling::ScalingPolicy').map((r) => r.Properties);

  it('on demand by default: no capacity in the template and nothing scaled', () => {
    expect(resources[tableId].Properties.ProvisionedThroughput).toBeUndefined();
    expect(targets(synthesized().json)).toEqual([]);
  });

  it('provisioned: the table and its index from the minimum, each of their reads and writes auto scaled to the target utilization', () => {
    const { json } = synthesized({ tableCapacity: 'provisioned', tableReadUnits: '10-2000', tableWriteUnits: '20-30000', tableTargetUtilization: '60' });
    const [table] = Object.values(json.Resources).filter((r) => r.Type === 'AWS::DynamoDB::Table');
    // No BillingMode is PROVISIONED, CloudFormation's default (CDK leaves it out).
    expect(table.Properties.BillingMode ?? 'PROVISIONED').toBe('PROVISIONED');
    expect(table.Properties.ProvisionedThroughput).toEqual({ ReadCapacityUnits: 10, WriteCapacityUnits: 20 });
    expect(table.Properties.GlobalSecondaryIndexes).toEqual([expect.objectContaining({ IndexName: PENDING_INDEX.name, ProvisionedThroughput: { ReadCapacityUnits: 10, WriteCapacityUnits: 20 } })]);
    const dimensions = targets(json).map((t) => [t.ScalableDimension, t.MinCapacity, t.MaxCapacity, JSON.stringify(t.ResourceId).includes(`/index/${PENDING_INDEX.name}`)]);
    expect(dimensions.sort()).toEqual(
      [
        ['dynamodb:index:ReadCapacityUnits', 10, 2000, true],
        ['dynamodb:index:WriteCapacityUnits', 20, 30000, true],
        ['dynamodb:table:ReadCapacityUnits', 10, 2000, false],
        ['dynamodb:table:WriteCapacityUnits', 20, 30000, false],
      ].sort(),
    );
    const tracked = policies(json).map((p) => [p.TargetTrackingScalingPolicyConfiguration.PredefinedMetricSpecification.PredefinedMetricType, p.TargetTrackingScalingPolicyConfiguration.TargetValue]);
    expect(tracked.sort()).toEqual(
      [
        ['DynamoDBReadCapacityUtilization', 60],
        ['DynamoDBReadCapacityUtilization', 60],
        ['DynamoDBWriteCapacityUtilization', 60],
        ['DynamoDBWriteCapacityUtilization', 60],
      ].sort(),
    );
  });

  it('provisioned with the defaults: 5 to 40,000 units a second, 70% in use', () => {
    const { json } = synthesized({ tableCapacity: 'provisioned' });
    expect(targets(json).map((t) => [t.MinCapacity, t.MaxCapacity])).toEqual(Array(4).fill([5, 40000]));
    expect(policies(json).map((p) => p.TargetTrackingScalingPolicyConfiguration.TargetValue)).toEqual([70, 70, 70, 70]);
  });

  it('cdk-nag finds nothing with provisioned capacity (synth validates the app)', () => {
    expect(() => synthesized({ tableCapacity: 'provisioned' }).app.synth({ force: true })).not.toThrow();
  });

  it('a wrong capacity setting stops the synth and names the key', () => {
    expect(() => synthesize({ tableCapacity: 'reserved' })).toThrow("context 'tableCapacity' must be one of on-demand, provisioned");
    expect(() => synthesize({ tableWriteUnits: '5-100' })).toThrow("context 'tableWriteUnits' sets provisioned capacity: it goes with tableCapacity=provisioned");
    for (const range of ['100', '0-10', '50-10', 'a-b']) expect(() => synthesize({ tableCapacity: 'provisioned', tableReadUnits: range })).toThrow("context 'tableReadUnits' must be min-max");
    for (const target of ['5', '95', '70.5']) expect(() => synthesize({ tableCapacity: 'provisioned', tableTargetUtilization: target })).toThrow("context 'tableTargetUtilization' must be a whole percent from 10 to 90");
  });
});
