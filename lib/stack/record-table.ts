import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { PENDING_INDEX, TABLE_KEYS } from '../../functions/store/write';

export interface RecordTableProps {
  deletionProtection: boolean;
}

/**
 * The one record table (layout in functions/store/layout.ts). Pay-per-request, point-in-time
 * recovery, retained when the stack goes: records and their ledger evidence outlive deployments.
 * Its stream (new images) triggers the sequencer when a pending delivery is stored, and the sparse
 * `pending` index lists the deliveries still waiting, oldest first, for the sequencer's schedule.
 */
export class RecordTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: RecordTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection,
      removalPolicy: RemovalPolicy.RETAIN,
      // The sequencer's trigger reads only the new item (its key, for the filter); old images are never needed.
      stream: StreamViewType.NEW_IMAGE,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: PENDING_INDEX.name,
      partitionKey: { name: PENDING_INDEX.partitionKey, type: AttributeType.STRING },
      sortKey: { name: PENDING_INDEX.sortKey, type: AttributeType.STRING },
      // The sequencer reads the items themselves (BatchGetItem); the index only says which, in order.
      projectionType: ProjectionType.KEYS_ONLY,
    });
  }
}
