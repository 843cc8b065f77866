import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { SERVICE_NAME } from '../contract/service';
import { logger } from '../logging/logger';
import { kmsCheckpointSigner } from '../ledger-writer/kms-signer';
import { oldestPendingAge, PENDING_AGE_METRIC } from '../ledger-writer/pending-age';
import { sequencePending } from '../ledger-writer/sequencer';
import type { CheckpointSigner } from '../ledger-writer/signer';
import { bucketTileStore } from '../ledger-writer/tile-store';
import { LedgerLockedError } from '../store/ledger';

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
/** Written to stdout in CloudWatch embedded metric format after every run; the stack alarms on it (docs/deploy.md#operating). */
const metrics = new Metrics({ namespace: PENDING_AGE_METRIC.namespace, serviceName: SERVICE_NAME });

/** A batch must be able to finish inside the invocation: none is started with less time left. */
const TIME_FOR_A_BATCH_MS = 20_000;

/** A DynamoDB stream batch (new pending deliveries) or a scheduled event (no records). */
export interface SequencerEvent {
  Records?: Array<{ eventName?: string; dynamodb?: { Keys?: { pk?: { S?: string } } } }>;
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

let signer: Promise<CheckpointSigner> | undefined;
let clients: { dynamodb: DynamoDBClient; s3: S3Client } | undefined;

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the sequencer cannot run (docs/ingress.md#the-sequencer-on-aws)`);
  return value;
}

async function sequence(event: SequencerEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SequencerSummary> {
  // Every setting is read before anything is asked of AWS: a missing one fails the run at once, naming it.
  const table = setting('TABLE_NAME');
  const keyId = setting('LEDGER_KMS_KEY_ARN');
  const origin = setting('LEDGER_ORIGIN');
  const bucket = setting('LEDGER_TILES_BUCKET');
  // The key is asked for its public half once per execution environment; a failure is asked again next time.
  signer ??= kmsCheckpointSigner({ keyId, origin }).catch((error: unknown) => {
    signer = undefined;
    throw error;
  });
  // Writes are batches of items with proofs: more patient than the read path's client.
  clients ??= { dynamodb: new DynamoDBClient({ maxAttempts: 4 }), s3: new S3Client({}) };
  const tiles = bucketTileStore(clients.s3, bucket, process.env.LEDGER_TILES_PREFIX ?? 'ledger/');
  const waiting = (event.Records ?? []).flatMap((r) => (r.eventName === 'INSERT' && r.dynamodb?.Keys?.pk?.S ? [r.dynamodb.Keys.pk.S] : []));
  const summary: SequencerSummary = { batches: 0, deliveries: 0, sequenced: 0, setAside: 0, appended: 0, treeSize: null };
  let nothingWaits = false;
  try {
    // Awaited here, whether or not a batch runs: a key that cannot be read is logged as this run's failure.
    const checkpointSigner = await signer;
    while (!context || context.getRemainingTimeInMillis() > TIME_FOR_A_BATCH_MS) {
      const run = await sequencePending({ client: clients.dynamodb, table, signer: checkpointSigner, tiles, waiting: summary.batches === 0 ? waiting : [] });
      if (!run) {
        nothingWaits = true;
        break;
      }
      summary.batches++;
      summary.deliveries += run.deliveries;
      summary.sequenced += run.sequenced;
      summary.setAside += run.setAside;
      summary.appended += run.appended;
      summary.treeSize = run.treeSize ?? summary.treeSize;
      for (const [key, reason] of Object.entries(run.reasons)) logger.warn('delivery set aside', { delivery: key, reason });
      if (run.deliveries === 0) break;
    }
  } catch (error) {
    if (error instanceof LedgerLockedError) {
      // A load holds the ledger: the deliveries stay pending, and the next run (at most a minute away) takes them.
      logger.info('ledger held by another writer; deliveries stay pending', { since: error.since, until: error.until });
      return summary;
    }
    logger.error('sequencer run failed; deliveries stay pending', { error: error as Error, ...summary });
    throw error;
  } finally {
    await publishPendingAge(table, nothingWaits);
  }
  logger.info('sequenced', { ...summary, trigger: event.Records ? 'stream' : 'schedule' });
  return summary;
}

/**
 * The age of the oldest delivery still waiting, as the metric the stuck-sequencer alarm reads,
 * whatever the run's outcome. Never fails the run: a figure that cannot be measured is not
 * published (five minutes without a figure raise the alarm too).
 */
async function publishPendingAge(table: string, nothingWaits: boolean): Promise<void> {
  try {
    const age = await oldestPendingAge({ client: clients!.dynamodb, table, nothingWaits });
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
