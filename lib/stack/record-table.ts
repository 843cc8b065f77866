import { Annotations, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, InputCompressionType, InputFormat, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { PENDING_INDEX, TABLE_KEYS, TTL_ATTRIBUTE } from '../../functions/store/write';
import type { TableCapacity } from './table-capacity';

export interface RecordTableProps {
  deletionProtection: boolean;
  /** Create the table from DynamoDB's import of these files (lib/loader/export.ts), not empty. */
  importFrom?: { bucket: string; keyPrefix: string } | null;
  /** On demand (the default) or provisioned with auto scaling, the table and its index alike (table-capacity.ts). */
  capacity?: TableCapacity;
}

/**
 * The one record table (layout in functions/store/layout.ts). On demand unless the deployment
 * chooses provisioned capacity (auto scaled, docs/deploy.md#the-tables-capacity); point-in-time
 * recovery, retained when the stack goes: records and their ledger evidence outlive deployments.
 * Its stream (new images) triggers the sequencer when a pending delivery is stored, and the sparse
 * `pending` index lists the deliveries still waiting, oldest first, for the sequencer's schedule.
 * With `importFrom`, DynamoDB creates it from an export of records (gzip-compressed DynamoDB
 * JSON) instead of empty: tens of millions of items without a single write request.
 */
export class RecordTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: RecordTableProps) {
    super(scope, id);
    const capacity = props.capacity ?? { mode: 'on-demand' };
    // Provisioned: the table and its index start at the range's minimum; auto scaling moves them from there (below).
    const provisioned = capacity.mode === 'provisioned' ? { readCapacity: capacity.read.min, writeCapacity: capacity.write.min } : null;
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
      billingMode: provisioned ? BillingMode.PROVISIONED : BillingMode.PAY_PER_REQUEST,
      ...provisioned,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection,
      removalPolicy: RemovalPolicy.RETAIN,
      // The sequencer's trigger reads only the new item (its key, for the filter); old images are never needed.
      stream: StreamViewType.NEW_IMAGE,
      // Bookkeeping only carries it: delivery answers, integrated events, finished journal chunks (docs/deploy.md#what-is-kept-and-for-how-long).
      timeToLiveAttribute: TTL_ATTRIBUTE,
      ...(props.importFrom
        ? {
            importSource: {
              bucket: Bucket.fromBucketName(this, 'ImportBucket', props.importFrom.bucket),
              keyPrefix: props.importFrom.keyPrefix,
              inputFormat: InputFormat.dynamoDBJson(),
              compressionType: InputCompressionType.GZIP,
            },
          }
        : {}),
    });
    if (props.importFrom) {
      Annotations.of(this).addInfo(
        `the record table is created from the import at s3://${props.importFrom.bucket}/${props.importFrom.keyPrefix}: keep importFrom as it is for the life of the table; changing or removing it replaces the table (the old one is retained)`,
      );
    }
    this.table.addGlobalSecondaryIndex({
      indexName: PENDING_INDEX.name,
      partitionKey: { name: PENDING_INDEX.partitionKey, type: AttributeType.STRING },
      sortKey: { name: PENDING_INDEX.sortKey, type: AttributeType.STRING },
      // The sequencer reads the items themselves (BatchGetItem); the index only says which, in order.
      projectionType: ProjectionType.KEYS_ONLY,
      ...provisioned,
    });
    if (capacity.mode === 'provisioned') {
      const utilization = { targetUtilizationPercent: capacity.targetUtilizationPercent };
      const read = { minCapacity: capacity.read.min, maxCapacity: capacity.read.max };
      const write = { minCapacity: capacity.write.min, maxCapacity: capacity.write.max };
      this.table.autoScaleReadCapacity(read).scaleOnUtilization(utilization);
      this.table.autoScaleWriteCapacity(write).scaleOnUtilization(utilization);
      // The index has capacity of its own (two of an event's write units land there: put and removed).
      this.table.autoScaleGlobalSecondaryIndexReadCapacity(PENDING_INDEX.name, read).scaleOnUtilization(utilization);
      this.table.autoScaleGlobalSecondaryIndexWriteCapacity(PENDING_INDEX.name, write).scaleOnUtilization(utilization);
    }
  }
}
