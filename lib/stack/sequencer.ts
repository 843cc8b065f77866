import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { AccountRootPrincipal, AnyPrincipal, Effect, PolicyDocument, PolicyStatement, type IRole, type Role } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEFAULT_BATCH_SIZE } from '../../functions/ledger-writer/sequencer';
import { PENDING_PK_PREFIX, PENDING_QUEUE_PREFIX } from '../../functions/store/layout';
import { PENDING_INDEX, TABLE_KEYS } from '../../functions/store/write';
import { deployedFunction } from './bundling';
import { lambdaLogging, loggingEnvironment, ownLogGroupAndRole, type LogSettings } from './logging';
import { SequencerParts, streamBatchSizeFor } from './sequencer-parts';

/** The sequencer's handler, relative to the repository root. */
export const SEQUENCER_ENTRY = 'functions/handlers/sequence-events.ts';

/**
 * One run's time limit: a batch of up to STREAM_BATCH_SIZE events is about two thousand table writes
 * (about eighty BatchWriteItems, sent forty at a time), one KMS signature and a few tile objects: a
 * second or two; a run that is stopped leaves nothing half-published
 * (functions/ledger-writer/batch.ts) and the next run takes over once the lease has run out.
 */
export const SEQUENCER_TIMEOUT_SECONDS = 60;

/**
 * Events per stream invocation: a full batch of the sequencer's, which shares one checkpoint
 * signature and one tile write. Lambda hands a stream batch over in one call up to the 6 MB payload
 * of a synchronous invocation (BatchSize, Lambda's CreateEventSourceMapping reference; DynamoDB
 * Streams allow 10,000): 500 stream images of about 1 KB (an accepted event's item) are far below
 * it, and a run of larger events is only cut into smaller batches.
 */
export const STREAM_BATCH_SIZE = DEFAULT_BATCH_SIZE;

/**
 * A batch is cut by count (STREAM_BATCH_SIZE) or by time, whichever comes first: the stream
 * gathers new events for at most this long before it invokes the sequencer, so a quiet hour
 * still integrates each event within about a second and a busy one fills every batch.
 */
export const STREAM_BATCHING_WINDOW_SECONDS = 1;

/**
 * What of the table's stream wakes the sequencer: INSERTs whose partition key and whose new
 * image's `queue` begin so (an accepted event waiting for it). The event source mapping's filter
 * below, and the bench's stream (bench/lib/capacity/functions.ts).
 */
export const SEQUENCER_STREAM = { partitionKeyPrefix: PENDING_PK_PREFIX, attribute: PENDING_INDEX.partitionKey, attributePrefix: PENDING_QUEUE_PREFIX } as const;

/** How often the schedule drains the pending index (the safety net for stream batches that failed). */
export const SEQUENCER_SCHEDULE_MINUTES = 1;

/**
 * What the account may do with the key through IAM: administer it (describe, tag, enable, disable,
 * change its policy, schedule or cancel its deletion) and read its public half (kms:Get*), never
 * use it to sign. Signing is granted in the key policy to the two writers' roles by name
 * (restrictSigningTo), so no IAM policy anywhere in the account can add a signer: administration
 * and use are separate (AWS KMS developer guide, "Allows key administrators to administer the KMS key").
 */
export const KEY_ADMINISTRATION_ACTIONS = [
  'kms:Create*',
  'kms:Describe*',
  'kms:Enable*',
  'kms:List*',
  'kms:Put*',
  'kms:Update*',
  'kms:Revoke*',
  'kms:Disable*',
  'kms:Get*',
  'kms:Delete*',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
];

/**
 * The ledger's checkpoint key: an AWS KMS Ed25519 key (ECC_NIST_EDWARDS25519, sign and verify
 * only). The private key never leaves KMS, so no function, role or operator can copy it; the
 * signatures are ordinary Ed25519, so every verifier keeps working with its public half.
 */
export class LedgerSigningKey extends Construct {
  readonly key: Key;

  /** `generation`: the key's place among the ledger's keys (lib/stack/ledger-keys.ts); the first keeps its alias. */
  constructor(
    scope: Construct,
    id: string,
    private readonly generation = 1,
  ) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Signs the integrity ledger\'s checkpoints (Ed25519 C2SP signed notes). Only the sequencer and the loader role may sign; the public half is the published ledger verifier key.',
      keySpec: KeySpec.ECC_NIST_EDWARDS25519,
      keyUsage: KeyUsage.SIGN_VERIFY,
      // The log's key for its whole life: verifiers pin its public half, and a lost key ends the log.
      removalPolicy: RemovalPolicy.RETAIN,
      alias: `alias/${Stack.of(this).stackName}/ledger-checkpoints${generation === 1 ? '' : `-${generation}`}`,
      // Replaces CDK's default policy (which gives the account kms:*, signing included).
      policy: new PolicyDocument({
        statements: [new PolicyStatement({ sid: 'AccountAdministersTheKey', principals: [new AccountRootPrincipal()], actions: KEY_ADMINISTRATION_ACTIONS, resources: ['*'] })],
      }),
    });
  }

  /**
   * kms:Sign and kms:GetPublicKey on this key, nothing else of KMS. GetPublicKey reveals only the
   * public half: the signer needs it for its verifier key and the key id of its signature lines.
   */
  grantSigning(role: IRole): void {
    const sid = `SignLedgerCheckpoints${this.generation === 1 ? '' : this.generation}`;
    role.addToPrincipalPolicy(new PolicyStatement({ sid, actions: ['kms:GetPublicKey', 'kms:Sign'], resources: [this.key.keyArn] }));
  }

  /**
   * The key policy refuses kms:Sign to every principal but these roles, whatever IAM policies say
   * elsewhere in the account: a checkpoint signed by anyone else would be a forged log.
   */
  restrictSigningTo(roles: IRole[]): void {
    // The only kms:Sign the account may delegate, and only to these roles: each still needs its own IAM grant (two locks),
    // and no IAM policy in the account can make another principal a signer.
    const writers = roles.map((r) => r.roleArn);
    this.key.addToResourcePolicy(
      new PolicyStatement({ sid: 'TheLedgerWritersSign', principals: [new AccountRootPrincipal()], actions: ['kms:Sign'], resources: ['*'], conditions: { ArnEquals: { 'aws:PrincipalArn': writers } } }),
    );
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'OnlyTheLedgerWritersSign',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['kms:Sign'],
        resources: ['*'],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': roles.map((r) => r.roleArn) } },
      }),
    );
  }

  /** A retired key (docs/ledger.md#when-the-key-must-change): its key policy refuses kms:Sign to everyone, so its log can never grow again. */
  refuseSigning(): void {
    this.key.addToResourcePolicy(new PolicyStatement({ sid: 'RetiredKeySignsNothing', effect: Effect.DENY, principals: [new AnyPrincipal()], actions: ['kms:Sign'], resources: ['*'] }));
  }
}

export interface SequencerProps {
  /** Repository root: the entry is relative to it. */
  projectRoot: string;
  /** The record table, with its stream (NEW_IMAGE) and the pending index. */
  table: ITable;
  /** The catalogue bucket and the tile log's key prefix in it. */
  tileBucket: IBucket;
  tileKeyPrefix: string;
  signingKey: LedgerSigningKey;
  /** The log's origin (settings.ledgerOrigin); empty: the function refuses to sign until it is set. */
  ledgerOrigin: string;
  logging: LogSettings;
  logRetention: RetentionDays;
  /**
   * Part writers a large batch may use at most (settings.sequencerParts: docs/ingress.md#one-log-many-writers);
   * 0 or 1: every batch in the sequencer, no part writer.
   */
  parts: number;
}

/**
 * The sequencer: the one Lambda that integrates pending deliveries into the ledger and the records.
 *   - Triggered by the table's stream, filtered to INSERTs of pending items (pk "P#..."), in
 *     batches; a batch that keeps failing is split (bisect), retried a bounded number of times and
 *     then described in the dead-letter queue. Its events stay pending in the table.
 *   - And every minute by an EventBridge rule, which drains the `pending` index: whatever a failed
 *     stream batch left is integrated by the next tick.
 *   - Reserved concurrency 1: never two runs at once (the table's lease guards the loader too).
 *   - Asynchronous invocations (the schedule) that fail go to the same dead-letter queue.
 * Its role may read and write the table, query the pending index, read and write the tile log
 * below its prefix, and sign with the ledger key; nothing else. No API route reaches it.
 */
export class Sequencer extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  readonly deadLetterQueue: Queue;
  readonly schedule: Rule;
  /** The part writers it invokes for a large batch (none when settings.sequencerParts allows one part). */
  readonly parts?: SequencerParts;

  constructor(scope: Construct, id: string, props: SequencerProps) {
    super(scope, id);
    if (!props.table.tableStreamArn) throw new Error('the sequencer is triggered by the record table\'s stream: enable it (NEW_IMAGE)');

    ({ logGroup: this.logGroup, role: this.role } = ownLogGroupAndRole(this, {
      description: 'Runs the sequencer: integrates pending events into the ledger and the records, signs checkpoints with the ledger key.',
      logRetention: props.logRetention,
    }));
    this.role.addToPolicy(
      new PolicyStatement({
        sid: 'IntegrateIntoLedgerAndRecords',
        // What functions/ledger-writer and the store call: reads of records, pending items and the log's
        // leaves, item and batch writes, and the conditional updates of the log head (its lease).
        actions: ['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
        resources: [props.table.tableArn],
      }),
    );
    this.role.addToPolicy(
      new PolicyStatement({ sid: 'ReadThePendingQueue', actions: ['dynamodb:Query'], resources: [`${props.table.tableArn}/index/${PENDING_INDEX.name}`] }),
    );
    // The tile log grows (new tiles, bundles, checkpoints) and the last partial bundle is read back; below its prefix only.
    this.role.addToPolicy(
      new PolicyStatement({ sid: 'WriteTheTileLog', actions: ['s3:GetObject', 's3:PutObject'], resources: [props.tileBucket.arnForObjects(`${props.tileKeyPrefix}*`)] }),
    );
    props.signingKey.grantSigning(this.role);

    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // The longest SQS keeps a message: time for an operator to see why a batch failed.
      retentionPeriod: Duration.days(14),
    });

    const environment: Record<string, string> = {
      ...loggingEnvironment(props.logging),
      TABLE_NAME: props.table.tableName,
      LEDGER_KMS_KEY_ARN: props.signingKey.key.keyArn,
      LEDGER_ORIGIN: props.ledgerOrigin,
      LEDGER_TILES_BUCKET: props.tileBucket.bucketName,
      LEDGER_TILES_PREFIX: props.tileKeyPrefix,
    };
    if (props.parts > 1) this.parts = this.partWritersFor(props, environment);

    this.function = new NodejsFunction(this, 'Function', {
      description: 'Integrates pending lifecycle events and webhooks into the ledger and the records (the single writer).',
      ...deployedFunction(props.projectRoot, SEQUENCER_ENTRY),
      // A whole vCPU (Lambda gives CPU in proportion to memory, one vCPU at 1,769 MB): the one writer's
      // CPU time is the log's ceiling (docs/capacity.md#one-logs-speed), and CPU-bound work costs the
      // same GB-seconds at any size; Node runs the batch on one thread, so more would mostly go unused.
      memorySize: 1769,
      timeout: Duration.seconds(SEQUENCER_TIMEOUT_SECONDS),
      // One writer at a time; a second invocation waits (stream) or is retried (schedule).
      reservedConcurrentExecutions: 1,
      role: this.role,
      logGroup: this.logGroup,
      ...lambdaLogging(props.logging),
      environment,
      deadLetterQueue: this.deadLetterQueue,
      // A failed tick is not retried: the next one comes within a minute and does the same work. A tick
      // throttled behind a running batch waits up to this long, then is dropped (to the queue).
      retryAttempts: 0,
      maxEventAge: Duration.minutes(10),
    });

    this.function.addEventSource(
      new DynamoEventSource(props.table, {
        // From the oldest record the stream holds: nothing written while the mapping was being created is skipped.
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: streamBatchSizeFor(props.parts, STREAM_BATCH_SIZE),
        maxBatchingWindow: Duration.seconds(STREAM_BATCHING_WINDOW_SECONDS),
        bisectBatchOnError: true,
        retryAttempts: 3,
        // A record the stream could not hand over within an hour is left to the schedule (it is still pending in the table).
        maxRecordAge: Duration.hours(1),
        onFailure: new SqsDlq(this.deadLetterQueue),
        // Only new pending deliveries: record, ledger and metadata writes (the sequencer's own included) never invoke it.
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            // What waits for the sequencer (an accepted event), not what only notes a delivery of it.
            dynamodb: {
              Keys: { [TABLE_KEYS.partitionKey]: { S: FilterRule.beginsWith(SEQUENCER_STREAM.partitionKeyPrefix) } },
              NewImage: { [SEQUENCER_STREAM.attribute]: { S: FilterRule.beginsWith(SEQUENCER_STREAM.attributePrefix) } },
            },
          }),
        ],
      }),
    );

    this.schedule = new Rule(this, 'Schedule', {
      description: 'Runs the sequencer every minute: it integrates whatever is still in the pending index.',
      schedule: Schedule.rate(Duration.minutes(SEQUENCER_SCHEDULE_MINUTES)),
      targets: [new LambdaFunction(this.function)],
    });
  }

  /**
   * The part writers of a large batch (sequencer-parts.ts), invoked by this role alone (the
   * function itself, unqualified: the sequencer names no version or alias, and grantInvoke would
   * add `<arn>:*`), named to the sequencer in `environment`.
   */
  private partWritersFor(props: SequencerProps, environment: Record<string, string>): SequencerParts {
    const parts = new SequencerParts(this, 'Parts', {
      projectRoot: props.projectRoot,
      table: props.table,
      tileBucket: props.tileBucket,
      tileKeyPrefix: props.tileKeyPrefix,
      parts: props.parts,
      logging: props.logging,
      logRetention: props.logRetention,
    });
    this.role.addToPolicy(new PolicyStatement({ sid: 'InvokeThePartWriters', actions: ['lambda:InvokeFunction'], resources: [parts.function.functionArn] }));
    environment.SEQUENCER_PART_FUNCTION = parts.function.functionName;
    environment.SEQUENCER_PARTS = String(props.parts);
    return parts;
  }
}
