import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_KEYS } from '../../functions/store/write';

export interface RecordTableProps {
  deletionProtection: boolean;
}

/**
 * The one record table (layout in functions/store/layout.ts). Pay-per-request, point-in-time
 * recovery, retained when the stack goes: records and their ledger evidence outlive deployments.
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
    });
  }
}
