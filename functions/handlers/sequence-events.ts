import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { SERVICE_NAME } from '../contract/service';
import { logger } from '../logging/logger';
import { kmsCheckpointSigner } from '../ledger-writer/kms-signer';
import { oldestPendingAge, PENDING_AGE_METRIC, PendingLooks, streamBehind } from '../ledger-writer/pending-age';
import { EVENTS_PER_PART, lambdaParts } from '../ledger-writer/lambda-parts';
import type { PartWriters } from '../ledger-writer/parts';
import { DEFAULT_BATCH_SIZE, sequencePending } from '../ledger-writer/sequencer';
import type { CheckpointSigner } from '../ledger-writer/signer';
import { bucketTileStore, type TileStore } from '../ledger-writer/tile-store';
import { withoutSdkLogLines } from '../aws/sdk-log-lines';
import { tableStores, type TableStores } from '../store/dynamodb';
import { RecordTails } from '../store/dynamodb/record-tails';
import { namedBy, referencesOfStream, waitingKeysOfStream } from '../store/dynamodb/pending';
import { LedgerLockedError } from '../store/errors';

/**
 * The sequencer Lambda (docs/ingress.md#the-sequencer-on-aws): woken by the table's stream when a
 * delivery is stored, and every minute by a schedule. Either way it integrates what waits, batch
 * after batch, while the invocation has time for another; the stream's keys are taken first.
 * Reserved concurrency 1 and the ledger lease keep it the only writer.
 *
 * Its clients take everything from the SDK's defaults (region, credentials, endpoints), so outside
 * AWS the SDK's own per-service endpoint variables point them elsewhere: AWS_ENDPOINT_URL_DYNAMODB,
 * AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL_KMS (test/integration/sequencer-lambda.test.ts runs it so
 * against dynalite, s3rver and a KMS stand-in). There is no path-style setting of its own: the
 * SDK's S3 endpoint rules already address the bucket by path when the endpoint is an IP address
 * (http://127.0.0.1:PORT), and SDK v3 reads no environment variable for forcePathStyle (there is no
 * AWS_S3_FORCE_PATH_STYLE). Give a local S3 by IP address: behind a host name (localhost) the SDK
 * asks for <bucket>.localhost.
 */
/** Written to stdout in CloudWatch embedded metric format after every run but one the stream woke that asked the index nothing; the stack alarms on it (docs/deploy.md#operating). */
const metrics = new Metrics({ namespace: PENDING_AGE_METRIC.namespace, serviceName: SERVICE_NAME });

/** Requests to one service in flight at once (a batch of a few hundred records reads each one's timeline at once). */
const MAX_SOCKETS = 256;

/** A batch must be able to finish inside the invocation: none is started with less time left. */
const TIME_FOR_A_BATCH_MS = 20_000;

/** A DynamoDB stream batch (new waiting events) or a scheduled event (no records). */
export interface SequencerEvent {
  Records?: Parameters<typeof waitingKeysOfStream>[0];
  source?: string;
}

export interface SequencerSummary {
  batches: number;
  deliveries: number;
  sequenced: number;
  setAside: number;
  appended: number;
  treeSize: number | null;
}

/** What a run integrates with: the table's stores (records, events, the ledger's head, leaves and journal), its tile log and its key. */
export interface SequencerEnvironment {
  /** The table's name: the dimension of the pending-age metric. */
  table: string;
  stores: Pick<TableStores, 'records' | 'pending' | 'ledger'>;
  tiles: TileStore;
  /** The checkpoint key (asked for at most once a run; a key that cannot be read fails the run). */
  signer: () => Promise<CheckpointSigner>;
  /** When this execution environment last asked the pending index what waits. */
  looks: PendingLooks;
  /** Who plans and writes the parts of a large batch (none: every batch in this function). */
  parts?: PartWriters;
}

/**
 * What a run can say of what still waits, for the age figure: nothing (its last look at the index
 * found no more than it took), to be asked (it stopped with events left, or failed), or nothing it
 * knows (woken by the stream, it took the stream's keys without looking: no figure).
 */
type WhatWaits = 'nothing' | 'ask' | 'unknown';

let signer: Promise<CheckpointSigner> | undefined;
/** The execution environment's clients and stores, made once: its table (the records, the events, the ledger's head) and its tile log. */
let made: { stores: TableStores; tiles: TileStore; looks: PendingLooks; parts?: PartWriters } | undefined;

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the sequencer cannot run (docs/ingress.md#the-sequencer-on-aws)`);
  return value;
}

/** The environment as the stack sets it: every setting read before anything is asked of AWS, so a missing one fails the run at once, naming it. */
function environmentFromSettings(): SequencerEnvironment {
  const table = setting('TABLE_NAME');
  const keyId = setting('LEDGER_KMS_KEY_ARN');
  const origin = setting('LEDGER_ORIGIN');
  const bucket = setting('LEDGER_TILES_BUCKET');
  // Writes are batches of items with proofs: more patient than the read path's client.
  // A batch sends its reads and writes together (hundreds at once): more sockets than the SDK's 50.
  const requestHandler = { httpAgent: { maxSockets: MAX_SOCKETS }, httpsAgent: { maxSockets: MAX_SOCKETS } };
  // A batch sends hundreds of requests, and a CPU profile puts about 40% of its CPU time in the SDK's
  // work per request (docs/capacity.md#one-logs-speed): `cacheMiddleware`, the SDK's option, resolves
  // the middleware stack once per command class instead of per request (nothing changes this
  // client's stack after its first request).
  // The newest items of the records it wrote are kept between runs (record-tails.ts): an event newer than its record's last needs no Query.
  made ??= {
    stores: tableStores(withoutSdkLogLines(new DynamoDBClient({ maxAttempts: 4, requestHandler, cacheMiddleware: true })), table, undefined, new RecordTails()),
    tiles: bucketTileStore(withoutSdkLogLines(new S3Client({})), bucket, process.env.LEDGER_TILES_PREFIX ?? 'ledger/'),
    looks: new PendingLooks(),
    parts: partWritersFromSettings(),
  };
  return {
    table,
    ...made,
    // The key is asked for its public half once per execution environment; a failure is asked again next time.
    signer: () =>
      (signer ??= kmsCheckpointSigner({ keyId, origin }).catch((error: unknown) => {
        signer = undefined;
        throw error;
      })),
  };
}

/**
 * The part writers the stack names (SEQUENCER_PART_FUNCTION, at most SEQUENCER_PARTS of them a
 * batch, SEQUENCER_EVENTS_PER_PART events a part, EVENTS_PER_PART unless set:
 * docs/ingress.md#one-log-many-writers); none when it names none, or allows one part.
 */
function partWritersFromSettings(): PartWriters | undefined {
  const name = process.env.SEQUENCER_PART_FUNCTION;
  const most = Number(process.env.SEQUENCER_PARTS ?? 0);
  const eventsPerPart = Number(process.env.SEQUENCER_EVENTS_PER_PART || EVENTS_PER_PART);
  if (!name || !(most > 1)) return undefined;
  if (!(Number.isInteger(eventsPerPart) && eventsPerPart > 0)) throw new Error(`SEQUENCER_EVENTS_PER_PART must be a whole number above 0, not ${process.env.SEQUENCER_EVENTS_PER_PART}`);
  return lambdaParts(name, { maxParts: Math.floor(most), eventsPerPart });
}

/**
 * One run: what waits is integrated, batch after batch, while the invocation has time for another
 * (the stream's keys first), and the age of what still waits is published whatever the outcome.
 * A run woken by the stream takes the stream's keys alone unless no look at the index was made for
 * LOOK_AT_LEAST_EVERY_MS, or its records waited more than STREAM_BEHIND_MS (pending-age.ts) and
 * are under half a full batch; a tick, or a run that looked, drains the index.
 */
export async function runSequencer(environment: SequencerEnvironment, event: SequencerEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SequencerSummary> {
  const { stores, tiles, looks } = environment;
  // The stream's keys first; then, batch after batch, what the batch before listed and did not take.
  let waiting = waitingKeysOfStream(event.Records ?? []);
  // The records the stream's events name (their images): the first batch reads their geneses with the events.
  // And by each event's key, so a batch in parts sends each to its part unread.
  let references: Map<string, string> | undefined = referencesOfStream(event.Records ?? []);
  let named: string[] | undefined = namedBy(references);
  // A tick looks; a stream run when no look was made for a while, or when its records waited
  // behind other runs and are under half a full batch: a backlog the stream hands over a shard at
  // a time, which a run that drains the index takes in full batches (a stream batch already about
  // full is taken as it is: a drain costs a look and a round of invocations to route the keys it
  // lists, docs/capacity.md).
  const look = !event.Records || looks.due || (streamBehind(event.Records) && waiting.length < batchSizeOf(environment) / 2);
  const summary: SequencerSummary = { batches: 0, deliveries: 0, sequenced: 0, setAside: 0, appended: 0, treeSize: null };
  let whatWaits: WhatWaits = 'ask';
  try {
    // Awaited here, whether or not a batch runs: a key that cannot be read is logged as this run's failure.
    const checkpointSigner = await environment.signer();
    while (!context || context.getRemainingTimeInMillis() > TIME_FOR_A_BATCH_MS) {
      // Not looking and nothing known left: the stream brings what arrives next.
      if (!look && waiting.length === 0) {
        whatWaits = 'unknown';
        break;
      }
      const run = await sequencePending({ ...stores, signer: checkpointSigner, tiles, waiting, look, named, references, parts: environment.parts });
      named = undefined;
      references = undefined;
      // Null: nothing known, so (looking) the index was asked and listed nothing.
      if (look && (run === null || run.looked)) looks.looked();
      if (!run) {
        whatWaits = look ? 'nothing' : 'unknown';
        break;
      }
      waiting = run.listedAfter;
      summary.batches++;
      summary.deliveries += run.deliveries;
      summary.sequenced += run.sequenced;
      summary.setAside += run.setAside;
      summary.appended += run.appended;
      summary.treeSize = run.treeSize ?? summary.treeSize;
      for (const [key, reason] of Object.entries(run.reasons)) logger.warn('delivery set aside', { delivery: key, reason });
      // A batch that looked and was not full took everything listed: what arrives now wakes the sequencer through the stream (or the schedule).
      if (run.looked && run.deliveries < batchSizeOf(environment)) {
        whatWaits = run.deliveries > 0 ? 'nothing' : 'ask';
        break;
      }
    }
  } catch (error) {
    if (error instanceof LedgerLockedError) {
      // A load holds the ledger: the events stay pending, and the next run (at most a minute away) takes them.
      logger.info('ledger held by another writer; deliveries stay pending', { since: error.since, until: error.until });
      return summary;
    }
    logger.error('sequencer run failed; deliveries stay pending', { error: error as Error, ...summary });
    throw error;
  } finally {
    await publishPendingAge(environment.table, stores, whatWaits);
  }
  logger.info('sequenced', { ...summary, trigger: event.Records ? 'stream' : 'schedule' });
  return summary;
}

/** The events a batch takes at most: a full part for each part writer, or DEFAULT_BATCH_SIZE. */
const batchSizeOf = (environment: SequencerEnvironment): number => environment.parts?.batchSize ?? DEFAULT_BATCH_SIZE;

const sequence = (event: SequencerEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>) => runSequencer(environmentFromSettings(), event, context);

/**
 * The age of the oldest delivery still waiting, as the metric the stuck-sequencer alarm reads,
 * whatever the run's outcome, unless the run knows nothing of what waits beyond the stream's keys
 * (the next look says it). Never fails the run: a figure that cannot be measured is not published
 * (five minutes without a figure raise the alarm too).
 */
async function publishPendingAge(table: string, stores: SequencerEnvironment['stores'], whatWaits: WhatWaits): Promise<void> {
  if (whatWaits === 'unknown') return;
  try {
    const age = await oldestPendingAge({ pending: stores.pending, nothingWaits: whatWaits === 'nothing' });
    metrics.addDimension(PENDING_AGE_METRIC.tableDimension, table);
    metrics.addMetric(PENDING_AGE_METRIC.name, MetricUnit.Seconds, age);
    metrics.publishStoredMetrics();
  } catch (error) {
    logger.warn('oldest pending event age not measured', { error: error as Error });
  }
}

/**
 * The Lambda entry: a middy handler with the Powertools Logger's Lambda context on every line. The
 * stream records hold the stored deliveries (NEW_IMAGE), authorities' event bodies among them, so
 * the event is never logged, whatever POWERTOOLS_LOGGER_LOG_EVENT says.
 */
export const handler = middy(sequence).use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }));
