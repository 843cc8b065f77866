import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { AccountRootPrincipal, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { LedgerSigningKey } from './sequencer';

export interface LoaderAccessProps {
  table: ITable;
  /** The bucket holding the ledger's tile log, and the log's key prefix in it. */
  tileBucket?: IBucket;
  tileKeyPrefix?: string;
  /** The ledger's checkpoint key in KMS: the loader signs its batches with it, as the sequencer does. */
  signingKey: LedgerSigningKey;
}

/**
 * The loader's identity: a role that `npm run load` assumes in AWS. It may write the record table
 * and the tile log, and sign with the ledger's KMS key (kms:Sign and kms:GetPublicKey only); the
 * key's policy refuses signing to everyone but this role and the sequencer, so no read function
 * can sign even by a mistaken grant.
 */
export class LoaderAccess extends Construct {
  readonly role: Role;

  constructor(scope: Construct, id: string, props: LoaderAccessProps) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      // Principals of this account that are allowed (by their own policies) to assume it.
      assumedBy: new AccountRootPrincipal(),
      description: 'Loads records into the record table (npm run load) and signs ledger checkpoints.',
    });
    this.role.addToPolicy(
      new PolicyStatement({
        // What lib/loader and the ledger's store code call: reads (BatchGetItem: which records events changed), item writes and the ledger head's conditional updates (its lease).
        actions: ['dynamodb:DescribeTable', 'dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem', 'dynamodb:UpdateItem'],
        resources: [props.table.tableArn],
      }),
    );

    if (props.tileBucket && props.tileKeyPrefix) {
      // The tile log: the loader reads the last partial entry bundle back and writes tiles, bundles and checkpoints, below the prefix only.
      this.role.addToPolicy(new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [props.tileBucket.arnForObjects(`${props.tileKeyPrefix}*`)] }));
    }

    props.signingKey.grantSigning(this.role);
  }
}
