import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import middy from '@middy/core';
import { withoutSdkLogLines } from '../aws/sdk-log-lines';
import { answerToJson, invocationFromJson, onPartInvocation, type PartInvocation, type PartStores } from '../ledger-writer/parts';
import { bucketTileStore } from '../ledger-writer/tile-store';
import { logger } from '../logging/logger';
import { dynamoJournalChunks } from '../store/dynamodb/journal';
import { dynamoPendingStore } from '../store/dynamodb/pending';
import { dynamoRecordStore } from '../store/dynamodb/records';

/**
 * A part writer (docs/ingress.md#one-log-many-writers): the sequencer invokes it synchronously to
 * plan a part of a large batch (the events of some references: their records read and integrated,
 * the part's writes as journal chunks, its new versions' leaves) and, once the batch's head is
 * published, to write that part with its new versions' evidence (functions/ledger-writer/parts.ts).
 * It also stores tiles and entry bundles of the tile log it is handed before the batch's head is
 * published (never its checkpoint). It reads and writes the records and the events, writes tiles:
 * never the ledger's head, never the key; only the sequencer may invoke it (lib/stack/sequencer.ts).
 *
 * Its clients take region, credentials and endpoint from the SDK's defaults (AWS_ENDPOINT_URL_DYNAMODB,
 * AWS_ENDPOINT_URL_S3 outside AWS). Bytes travel as base64 (parts.ts invocationFromJson, answerToJson).
 */
const MAX_SOCKETS = 64;

let stores: PartStores | undefined;

function storesFromSettings(): PartStores {
  const table = process.env.TABLE_NAME;
  if (!table) throw new Error('TABLE_NAME is not set: the part writer cannot run (docs/ingress.md#one-log-many-writers)');
  if (!stores) {
    const client = withoutSdkLogLines(new DynamoDBClient({ maxAttempts: 4, requestHandler: { httpAgent: { maxSockets: MAX_SOCKETS }, httpsAgent: { maxSockets: MAX_SOCKETS } } }));
    // The tile log, when the stack names it: the sequencer hands its part writers tiles to store (parts.ts storeTiles).
    const bucket = process.env.LEDGER_TILES_BUCKET;
    const tiles = bucket ? bucketTileStore(withoutSdkLogLines(new S3Client({})), bucket, process.env.LEDGER_TILES_PREFIX ?? 'ledger/') : undefined;
    stores = { records: dynamoRecordStore(client, table), pending: dynamoPendingStore(client, table), journal: dynamoJournalChunks(client, table), tiles };
  }
  return stores;
}

/** One log line's worth of what an invocation did: counts, never an event. */
function whatWasDone(invocation: PartInvocation, answer: unknown): Record<string, unknown> {
  if ('plan' in invocation) return { planned: { events: invocation.plan.keys.length + invocation.plan.events.length, leaves: (answer as { leaves: unknown[] }).leaves.length } };
  if ('store' in invocation) return { stored: { tiles: invocation.store.resources.length } };
  if ('route' in invocation) return { routed: { keys: invocation.route.keys.length, waiting: (answer as { routes: unknown[] }).routes.length } };
  return { written: { chunks: invocation.write.stored?.count ?? invocation.write.chunks.length, from: invocation.write.placement.start } };
}

/** One invocation: a part planned or written, tiles stored, or keys routed. Its event holds authorities' event bodies, so it is never logged. */
async function sequencePart(event: unknown): Promise<unknown> {
  const invocation = invocationFromJson(event);
  const answer = await onPartInvocation(storesFromSettings(), invocation);
  logger.info('part done', whatWasDone(invocation, answer));
  return answerToJson(answer);
}

export const handler = middy(sequencePart).use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }));
