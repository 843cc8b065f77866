import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { AccountRootPrincipal, ArnPrincipal, PolicyStatement, Role, type IPrincipal } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { LedgerSigningKey } from './sequencer';

export interface LoaderAccessProps {
  table: ITable;
  /** The bucket holding the ledger's tile log, and the log's key prefix in it. */
  tileBucket?: IBucket;
  tileKeyPrefix?: string;
  /** The keys in that bucket a load publishes (the ingress examples derived from the records it loaded): written, never read. */
  publishedKeys?: readonly string[];
  /** The ledger's checkpoint key in KMS: the loader signs its batches with it, as the sequencer does. */
  signingKey: LedgerSigningKey;
  /** The one principal (a role or user ARN) that may assume the role; empty: the account's principals allowed by their own policies. */
  principalArn: string;
  /** Whether assuming it needs a session signed in with MFA (aws:MultiFactorAuthPresent). */
  requireMfa: boolean;
}

/**
 * Who may assume the loader role: the named principal only (context loaderPrincipalArn), else the
 * account's principals whose own policies allow it; with MFA unless an operator turns it off (a
 * pipeline's role has no MFA: loaderMfa=false). The role holds table-wide writes and kms:Sign on the
 * ledger key, so a stolen access key alone must not be enough to forge the log.
 */
export function loaderTrust(principalArn: string, requireMfa: boolean): IPrincipal {
  const principal = principalArn ? new ArnPrincipal(principalArn) : new AccountRootPrincipal();
  return requireMfa ? principal.withConditions({ Bool: { 'aws:MultiFactorAuthPresent': 'true' } }) : principal;
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
      assumedBy: loaderTrust(props.principalArn, props.requireMfa),
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

    if (props.tileBucket && props.publishedKeys && props.publishedKeys.length > 0) {
      // The documents a completed load derives from the records it loaded (lib/publish/loaded-examples.ts): those keys, nothing else of the catalogue.
      this.role.addToPolicy(new PolicyStatement({ actions: ['s3:PutObject'], resources: props.publishedKeys.map((key) => props.tileBucket!.arnForObjects(key)) }));
    }

    props.signingKey.grantSigning(this.role);
  }
}
