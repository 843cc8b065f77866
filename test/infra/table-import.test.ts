import { Match } from 'aws-cdk-lib/assertions';
import { PENDING_INDEX, TABLE_KEYS } from '../../functions/store/write';
import { synthesize } from './support';

/**
 * The record table made from a DynamoDB import of `npm run load -- FILE --export DIR` files
 * (CDK context importFrom, through the Table's import source): the format and compression the
 * exporter writes, the folder given, and the same keys and pending index as an empty table.
 */
describe('the record table from an import (context importFrom)', () => {
  const tables = (context: Record<string, unknown>) => Object.values(synthesize(context).json.Resources).filter((r) => r.Type === 'AWS::DynamoDB::Table');

  it('imports gzip-compressed DynamoDB JSON from the prefix given, into the table the stack always declares', () => {
    const { template } = synthesize({ importFrom: 's3://trust-exports-123/exports/2026-11' });
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
