import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { TILES_FOLDER } from '#verify/node/tlog-tiles';
import { EVENTS_PER_PART } from '../../functions/ledger-writer/lambda-parts';
import { PART_CHUNK_PK_PREFIX, PENDING_PK_PREFIX, RECORD_PK_PREFIX } from '../../functions/store/layout';
import { deployedFunction } from './bundling';
import { lambdaLogging, loggingEnvironment, ownLogGroupAndRole, type LogSettings } from './logging';

/** The part writer's handler, relative to the repository root. */
export const SEQUENCER_PART_ENTRY = 'functions/handlers/sequence-part.ts';

/**
 * A part writer's time limit. The sequencer invokes a part while it holds the log's lease, and a
 * part writer still running when its sequencer died must end before another sequencer may take the
 * lease and write the same records: a lease (SEQUENCER_LEASE_MS) outlasts a sequencer run
 * (SEQUENCER_TIMEOUT_SECONDS) and a part invoked at its last moment together
 * (test/infra/stack/sequencer.ts holds the sum below the lease). A part of EVENTS_PER_PART events
 * takes well under a second to plan or write.
 */
export const PART_WRITER_TIMEOUT_SECONDS = 25;

/** The events a stream invocation brings when a batch may be planned in `parts` parts: a full part for each (the stream's 6 MB payload cuts a batch of larger events shorter). */
export const streamBatchSizeFor = (parts: number, single: number): number => (parts > 1 ? Math.min(10_000, parts * EVENTS_PER_PART) : single);

export interface SequencerPartsProps {
  projectRoot: string;
  table: ITable;
  /** The catalogue bucket and the tile log's key prefix in it: the part writers store a batch's new tiles and bundles there. */
  tileBucket: IBucket;
  tileKeyPrefix: string;
  /** Part writers a batch may use at most: the function's reserved concurrency. */
  parts: number;
  logging: LogSettings;
  logRetention: RetentionDays;
}

/**
 * The part writers (docs/ingress.md#one-log-many-writers): one Lambda function the sequencer
 * invokes synchronously, once to plan a part of a large batch, once to store some of its new tiles
 * and bundles, and once to write it. Its role reads and writes the records and the events (items
 * whose partition key begins `R#` or `P#`) and its parts' journal chunks (`J#`: a writer finishing
 * a journal takes only records and events from them), and puts the tile log's tiles and bundles (below
 * `tile/`), and nothing else: never the ledger's items, the tile log's checkpoint or the key. Only
 * the sequencer's role may invoke it. Reserved concurrency: as many as a batch's parts, so a read
 * flood never takes the write path's.
 */
export class SequencerParts extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: SequencerPartsProps) {
    super(scope, id);
    ({ logGroup: this.logGroup, role: this.role } = ownLogGroupAndRole(this, {
      description: 'Runs a part writer: plans and writes the records and events of a part of a sequencer batch; never the ledger.',
      logRetention: props.logRetention,
    }));
    this.role.addToPolicy(
      new PolicyStatement({
        sid: 'PlanAndWriteRecordsAndEvents',
        // What functions/ledger-writer/parts.ts calls through the record and pending stores and the journal's chunks (a part's own, under J#).
        actions: ['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem', 'dynamodb:GetItem', 'dynamodb:Query'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RECORD_PK_PREFIX}*`, `${PENDING_PK_PREFIX}*`, `${PART_CHUNK_PK_PREFIX}*`] } },
      }),
    );
    // Tiles and entry bundles only (the first log's, and a successor's below logs/<id>/): the checkpoint is the sequencer's to write.
    this.role.addToPolicy(
      new PolicyStatement({
        sid: 'StoreTheTileLogsTiles',
        actions: ['s3:PutObject'],
        resources: [props.tileBucket.arnForObjects(`${props.tileKeyPrefix}${TILES_FOLDER}*`), props.tileBucket.arnForObjects(`${props.tileKeyPrefix}logs/*/${TILES_FOLDER}*`)],
      }),
    );
    this.function = new NodejsFunction(this, 'Function', {
      description: 'Plans and writes a part of a large sequencer batch: the records and events of some references (never the ledger).',
      ...deployedFunction(props.projectRoot, SEQUENCER_PART_ENTRY),
      // A whole vCPU, as the sequencer: a part's work is CPU (the SDK's requests, the rules, the items).
      memorySize: 1769,
      timeout: Duration.seconds(PART_WRITER_TIMEOUT_SECONDS),
      reservedConcurrentExecutions: props.parts,
      role: this.role,
      logGroup: this.logGroup,
      ...lambdaLogging(props.logging),
      environment: { ...loggingEnvironment(props.logging), TABLE_NAME: props.table.tableName, LEDGER_TILES_BUCKET: props.tileBucket.bucketName, LEDGER_TILES_PREFIX: props.tileKeyPrefix },
      // Invoked synchronously only: nothing to retry or to send to a queue.
      retryAttempts: 0,
    });
  }
}
