import { RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { AccountRootPrincipal, AnyPrincipal, Effect, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

export interface LoaderAccessProps {
  table: ITable;
  /** The bucket holding the ledger's tile log, and the log's key prefix in it. */
  tileBucket?: IBucket;
  tileKeyPrefix?: string;
}

/**
 * The only writer's identity: a role that `npm run load` assumes in AWS. It may write the record
 * table and read the ledger signing key; the key's own resource policy refuses it to everyone
 * else, so no read function can reach it even by a mistaken grant.
 */
export class LoaderAccess extends Construct {
  readonly role: Role;
  readonly signingKey: Secret;

  constructor(scope: Construct, id: string, props: LoaderAccessProps) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      // Principals of this account that are allowed (by their own policies) to assume it.
      assumedBy: new AccountRootPrincipal(),
      description: 'Loads records into the record table (npm run load) and signs ledger checkpoints.',
    });
    this.role.addToPolicy(
      new PolicyStatement({
        // What lib/loader and the ledger's store code call: reads, item writes and the ledger head's conditional updates (its lock).
        actions: ['dynamodb:DescribeTable', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem', 'dynamodb:UpdateItem'],
        resources: [props.table.tableArn],
      }),
    );

    if (props.tileBucket && props.tileKeyPrefix) {
      // The tile log: the loader reads the last partial entry bundle back and writes tiles, bundles and checkpoints, below the prefix only.
      this.role.addToPolicy(new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [props.tileBucket.arnForObjects(`${props.tileKeyPrefix}*`)] }));
    }

    this.signingKey = new Secret(this, 'LedgerSigningKey', {
      description: 'Ed25519 private key that signs ledger checkpoints. Set its value once (the loader reads it); the public half is published as ledgerVerifierKeys.',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.signingKey.grantRead(this.role);
    this.signingKey.addToResourcePolicy(
      new PolicyStatement({
        sid: 'OnlyTheLoaderReadsTheSigningKey',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['secretsmanager:GetSecretValue'],
        resources: ['*'],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': this.role.roleArn } },
      }),
    );
  }
}
