import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import S3rver from 's3rver';
import { demoDocument } from '../../fixtures/demo';
import { LEDGER_LOG } from '../../functions/contract/site-paths';
import { kmsCheckpointSigner } from '../../functions/ledger-writer/kms-signer';
import { bucketTileStore, type TileStore } from '../../functions/ledger-writer/tile-store';
import { tableStores, type TableStores } from '../../functions/store/dynamodb';
import { GENESIS_SK } from '../../functions/store/layout';
import { loadDocument, type LoadSummary } from '../../lib/loader/load';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { startKmsStandIn, type KmsStandIn } from '../../lib/local/kms-stand-in';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';

/** Where the sequencer's tests run their Lambda functions: the table, its region, the account. */
export interface LambdaPlace {
  table: string;
  region: string;
}

const ACCOUNT = '111122223333';

/** A Lambda context for the function `name`, whose deadline is `remainingMs` from now. */
export function lambdaContext(place: LambdaPlace, name: string, options: { remainingMs?: number; memoryMb?: number } = {}): Context {
  const deadline = Date.now() + (options.remainingMs ?? 60_000);
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${place.region}:${ACCOUNT}:function:${name}`,
    memoryLimitInMB: String(options.memoryMb ?? 1024),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: '2026/12/07/[$LATEST]0123456789abcdef',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The stream batch Lambda hands the sequencer for these new pending items (NEW_IMAGE, after the INSERT filter). */
export async function streamEvent(client: DynamoDBClient, place: LambdaPlace, keys: readonly string[]): Promise<DynamoDBStreamEvent> {
  const records = [];
  for (const [i, key] of keys.entries()) {
    const item = (await client.send(new GetItemCommand({ TableName: place.table, Key: { pk: { S: key }, sk: { S: GENESIS_SK } }, ConsistentRead: true }))).Item!;
    records.push({
      eventID: randomUUID().replace(/-/g, ''),
      eventName: 'INSERT' as const,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: place.region,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys: { pk: { S: key }, sk: { S: GENESIS_SK } },
        NewImage: item as Record<string, never>,
        // Stream sequence numbers are decimal strings of up to 40 digits, rising along a shard.
        SequenceNumber: (4_000_000_000_000_000_000n + BigInt(i)).toString(),
        SizeBytes: JSON.stringify(item).length,
        StreamViewType: 'NEW_IMAGE' as const,
      },
      eventSourceARN: `arn:aws:dynamodb:${place.region}:${ACCOUNT}:table/${place.table}/stream/2026-11-20T12:00:00.000`,
    });
  }
  return { Records: records };
}

/** Where a sequencer's Lambda functions run in a test: dynalite (the table), s3rver (the tile log's bucket), the KMS stand-in (the checkpoint key). */
export interface SequencerStand {
  store: EmbeddedStore;
  kms: KmsStandIn;
  client: DynamoDBClient;
  stores: TableStores;
  s3: S3Client;
  /** The bucket's tile log, where the handlers write it. */
  tiles: TileStore;
  /** The handlers' environment as the stack sets it (the table, the key, the log's origin, the bucket), with the SDK's endpoint variables pointing at the local parts. */
  environment: Record<string, string>;
  /** Loads the demo document's `references` (generated at `anchor`) with the loader, signing with the KMS key: the log the handlers extend. */
  loadDemo(references: readonly string[], anchor: Date): Promise<LoadSummary>;
  close(): Promise<void>;
}

/** Starts a SequencerStand for `place`, its tile log in `bucket`, its log named `origin`; the loader's and the tests' own clients (configureLocalEnvironment) point at it too. */
export async function startSequencerStand(place: LambdaPlace & { bucket: string; origin: string }): Promise<SequencerStand> {
  const work = await mkdtemp(path.join(os.tmpdir(), `${place.table}-`));
  const store = await startEmbeddedStore();
  const kms = await startKmsStandIn();
  const s3Server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(work, 's3'), configureBuckets: [{ name: place.bucket }] });
  const { port } = await s3Server.run();
  const s3Endpoint = `http://127.0.0.1:${port}`;
  configureLocalEnvironment(store.endpoint, place.table, place.region);
  const client = localClient(store.endpoint, place.region);
  const s3 = new S3Client({ endpoint: s3Endpoint, region: place.region, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const tiles = bucketTileStore(s3, place.bucket, LEDGER_LOG.keyPrefix);
  return {
    store,
    kms,
    client,
    stores: tableStores(client, place.table),
    s3,
    tiles,
    environment: {
      TABLE_NAME: place.table,
      LEDGER_KMS_KEY_ARN: kms.keyId,
      LEDGER_ORIGIN: place.origin,
      LEDGER_TILES_BUCKET: place.bucket,
      LEDGER_TILES_PREFIX: LEDGER_LOG.keyPrefix,
      AWS_REGION: place.region,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_ENDPOINT_URL_DYNAMODB: store.endpoint,
      AWS_ENDPOINT_URL_S3: s3Endpoint,
      AWS_ENDPOINT_URL_KMS: kms.endpoint,
    },
    async loadDemo(references, anchor) {
      const document = demoDocument(anchor);
      document.records = (document.records as Array<{ reference: string }>).filter((r) => references.includes(r.reference));
      const signer = await kmsCheckpointSigner({ keyId: kms.keyId, origin: place.origin });
      return loadDocument(document, { client, table: place.table, createTable: true, signer, tiles });
    },
    async close() {
      client.destroy();
      s3.destroy();
      await s3Server.close();
      await kms.close();
      await store.close();
      await rm(work, { recursive: true, force: true });
    },
  };
}
