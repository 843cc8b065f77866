import { createHash } from 'node:crypto';
import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { PENDING_PK_PREFIX, RECORD_PK_PREFIX } from '../../functions/store/layout';
import { Construct } from 'constructs';
import type { Operation } from '../../functions/contract/operation';
import { originsOfPath, originUrl, type Origins } from '../contract/origins';
import { deployedFunction, FUNCTION_TIMEOUT_SECONDS } from './bundling';
import { lambdaLogging, loggingEnvironment, ownLogGroupAndRole, ROUTE_LOG_GROUP, type LogSettings } from './logging';

/** The contract table's rows that run as a Lambda function. */
export type LambdaOperation = Operation & { integration: Extract<Operation['integration'], { kind: 'lambda' }> };

export function lambdaOperations(operations: readonly Operation[]): LambdaOperation[] {
  return operations.filter((op): op is LambdaOperation => op.integration.kind === 'lambda');
}

export interface OperationFunctionsProps {
  operations: readonly Operation[];
  /** Repository root: operation entries are relative to it. */
  projectRoot: string;
  table: ITable;
  bucket: IBucket;
  ledgerVerifierKeys: string;
  /** The logs key changes ended, `<origin>=<final tree size>` (LEDGER_RETIRED_LOGS; empty: none). */
  ledgerRetiredLogs?: string;
  logging: LogSettings;
  logRetention: RetentionDays;
  releaseCommit: string;
  /** Concurrent executions reserved for each receiver (access `ingress-write`); 0: none. */
  receiverReservedConcurrency: number;
  /** Deployment settings by name; a function receives only those its operation declares. */
  activationSettings: Record<string, string>;
  /** The receivers' verification keys (docs/ingress.md#keys); read only by ingress-write functions. */
  ingressSecrets: ISecret;
}

/** Lambda's limit on a function name. */
const FUNCTION_NAME_LIMIT = 64;

/** `<stack>-<operationId>`, shortened with a digest of the whole when it would pass Lambda's 64 characters. */
export function operationFunctionName(stackName: string, operationId: string): string {
  const name = `${stackName}-${operationId}`;
  if (name.length <= FUNCTION_NAME_LIMIT) return name;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, FUNCTION_NAME_LIMIT - digest.length - 1)}-${digest}`;
}

/**
 * One function per Lambda operation of the contract table. Each has its own role and log group,
 * and its `access` decides everything it can reach:
 *   table-read  -> dynamodb:GetItem, BatchGetItem and Query on the record table (TABLE_NAME, LEDGER_VERIFIER_KEYS)
 *   bucket-read -> s3:GetObject on the catalogue bucket's objects (CATALOGUE_BUCKET)
 *   ingress-write -> dynamodb:PutItem, GetItem and BatchGetItem on pending-event items only (leading key "P#"),
 *                  dynamodb:Query on record partitions only (leading key "R#"), and
 *                  secretsmanager:GetSecretValue on the ingress secret (TABLE_NAME, INGRESS_SECRETS_ARN)
 *   none        -> nothing but its own logs (the sandbox: no resource is even named to it)
 */
export class OperationFunctions extends Construct {
  readonly byOperationId = new Map<string, NodejsFunction>();
  /** Each function's name, a literal fixed at synth (`<stack>-<operationId>`), which the API's import document names. */
  readonly nameByOperationId = new Map<string, string>();
  private readonly operations: LambdaOperation[];

  constructor(scope: Construct, id: string, props: OperationFunctionsProps) {
    super(scope, id);
    this.operations = lambdaOperations(props.operations);
    for (const op of this.operations) {
      this.nameByOperationId.set(op.operationId, operationFunctionName(Stack.of(this).stackName, op.operationId));
      this.byOperationId.set(op.operationId, this.operationFunction(op, props));
    }
  }

  /**
   * Absolute URLs in answers come from here, never from a request's Host: each function is given
   * the public origin its routes belong to (PUBLIC_BASE_URL, lib/contract/origins.ts), known only
   * once the distribution (or the API) that serves them exists.
   */
  usePublicOrigins(origins: Origins): void {
    for (const op of this.operations) {
      const [own] = originsOfPath(op.path);
      this.byOperationId.get(op.operationId)!.addEnvironment('PUBLIC_BASE_URL', originUrl(origins, own));
    }
  }

  private operationFunction(op: LambdaOperation, props: OperationFunctionsProps): NodejsFunction {
    const scope = new Construct(this, op.operationId);
    const { logGroup, role } = ownLogGroupAndRole(scope, {
      description: `Runs ${op.operationId} (${op.method} ${op.path}); access: ${op.integration.access}.`,
      logRetention: props.logRetention,
      ...ROUTE_LOG_GROUP,
    });

    const environment: Record<string, string> = {
      ...loggingEnvironment(props.logging),
      ...(props.releaseCommit ? { RELEASE_COMMIT: props.releaseCommit } : {}),
    };
    for (const name of op.integration.settings ?? []) {
      const value = props.activationSettings[name];
      if (value !== undefined) environment[name] = value;
    }
    switch (op.integration.access) {
      case 'table-read':
        environment.TABLE_NAME = props.table.tableName;
        environment.LEDGER_VERIFIER_KEYS = props.ledgerVerifierKeys;
        if (props.ledgerRetiredLogs) environment.LEDGER_RETIRED_LOGS = props.ledgerRetiredLogs;
        role.addToPolicy(new PolicyStatement({ actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'], resources: [props.table.tableArn] }));
        break;
      case 'bucket-read':
        environment.CATALOGUE_BUCKET = props.bucket.bucketName;
        role.addToPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [props.bucket.arnForObjects('*')] }));
        break;
      case 'ingress-write':
        environment.TABLE_NAME = props.table.tableName;
        environment.INGRESS_SECRETS_ARN = props.ingressSecrets.secretArn;
        role.addToPolicy(
          new PolicyStatement({
            sid: 'WritePendingEventsOnly',
            actions: ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'],
            resources: [props.table.tableArn],
            conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${PENDING_PK_PREFIX}*`] } },
          }),
        );
        role.addToPolicy(
          new PolicyStatement({
            sid: 'ReadRecordsForTheRules',
            actions: ['dynamodb:Query'],
            resources: [props.table.tableArn],
            conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RECORD_PK_PREFIX}*`] } },
          }),
        );
        props.ingressSecrets.grantRead(role);
        break;
      case 'none':
        break;
    }

    const receiver = op.integration.access === 'ingress-write';
    return new NodejsFunction(scope, 'Function', {
      functionName: this.nameByOperationId.get(op.operationId),
      description: `${op.method} ${op.path} (${op.operationId})`,
      // The write path keeps capacity of its own: a read flood cannot take the account's concurrency from it.
      ...(receiver && props.receiverReservedConcurrency > 0 ? { reservedConcurrentExecutions: props.receiverReservedConcurrency } : {}),
      ...deployedFunction(props.projectRoot, op.integration.entry),
      memorySize: 512,
      // Well above the store's worst case (about 2.5 s, functions/store/client.ts), well below API Gateway's 29 s.
      timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      role,
      logGroup,
      ...lambdaLogging(props.logging),
      environment,
    });
  }
}
