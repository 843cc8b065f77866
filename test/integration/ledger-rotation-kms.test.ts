import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { KMSClient } from '@aws-sdk/client-kms';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import S3rver from 's3rver';
import { demoDocument } from '../../fixtures/demo';
import { parseVerifierKey } from '#verify/index';
import { checkHandover } from '#verify/node/handover';
import { runMonitor, type MonitorReport } from '#verify/node/monitor';
import { kmsCheckpointSigner } from '../../functions/ledger-writer/kms-signer';
import { bucketTileStore } from '../../functions/ledger-writer/tile-store';
import { dynamoPublishedLedger } from '../../functions/store/dynamodb/ledger-head';
import { ensureTable } from '../../functions/store/write';
import { rotateLedger } from '../../lib/ledger/rotate';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { startKmsStandIn, type KmsStandIn } from '../../lib/local/kms-stand-in';
import { localClient } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';

/**
 * A key change as it runs on AWS: the old log signed by one KMS key, the new one by a second (both
 * the KMS stand-in the assembly runner serves its stack's keys with, through the real SDK client),
 * the table on dynalite and the tile log in a bucket (s3rver) under the prefix the API serves.
 */
const OLD_ORIGIN = 'verify.example.org/ledger';
const NEW_ORIGIN = 'verify.example.org/ledger/2';
const BUCKET = 'catalogue';
const TABLE = 'rotation';

let dir: string;
let store: EmbeddedStore;
let client: DynamoDBClient;
let s3: S3Client;
let s3Server: { close(): Promise<void> };
let oldKey: KmsStandIn;
let newKey: KmsStandIn;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rotation-kms-'));
  store = await startEmbeddedStore();
  client = localClient(store.endpoint);
  await ensureTable(client, TABLE);
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  s3Server = server;
  s3 = new S3Client({ endpoint: `http://127.0.0.1:${port}`, region: 'eu-central-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  oldKey = await startKmsStandIn('arn:aws:kms:eu-central-1:111122223333:key/ledger-old');
  newKey = await startKmsStandIn('arn:aws:kms:eu-central-1:111122223333:key/ledger-new');
}, 60_000);
afterAll(async () => {
  client?.destroy();
  s3?.destroy();
  await Promise.all([store?.close(), s3Server?.close(), oldKey?.close(), newKey?.close()]);
  await rm(dir, { recursive: true, force: true });
});

const signerOf = (key: KmsStandIn, origin: string) =>
  kmsCheckpointSigner({ keyId: key.keyId, origin, client: new KMSClient({ endpoint: key.endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }) });
const tiles = () => bucketTileStore(s3, BUCKET, 'ledger/');

async function monitor(prefix: string, keys: string[], from: { state: MonitorReport['state']; leaves: Buffer[] } = { state: null, leaves: [] }) {
  const leaves = [...from.leaves];
  const report = await runMonitor({
    fetch: (p) => tiles().read(`${prefix}${p}`),
    logKeys: await Promise.all(keys.map((k) => parseVerifierKey(k))),
    state: from.state,
    leaves: from.leaves,
    onLeaves: (added) => void leaves.push(...added),
  });
  return { report, leaves };
}

test('a key change between two KMS keys: the old log frozen by the old key, the new log begun by the new key binding it, the monitor across both', async () => {
  const oldSigner = await signerOf(oldKey, OLD_ORIGIN);
  const newSigner = await signerOf(newKey, NEW_ORIGIN);
  await loadDocument(demoDocument(new Date('2026-11-21T10:00:00Z')), { client, table: TABLE, signer: oldSigner, tiles: tiles() });
  const before = await monitor('', [oldKey.verifierKey(OLD_ORIGIN)]);
  expect(before.report.ok).toBe(true);

  const out = await rotateLedger({ client, table: TABLE, oldSigner, newSigner, tiles: tiles() });
  expect(out.retired.verifierKey).toBe(oldKey.verifierKey(OLD_ORIGIN));
  expect(out.current.verifierKey).toBe(newKey.verifierKey(NEW_ORIGIN));
  // The new log's tiles are objects below ledger/logs/<id>/, with the headers the API passes through.
  const served = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `ledger/${out.current.tilesDir}checkpoint` }));
  expect(served.ContentType).toBe('text/plain; charset=utf-8');
  const signs = (key: KmsStandIn) => key.requests.filter((r) => r.target.endsWith('.Sign')).length;
  const oldSigns = signs(oldKey);

  // After: the old key cannot write; the new one appends to the new log.
  await expect(loadDocument(demoDocument(new Date('2026-11-22T10:00:00Z')), { client, table: TABLE, signer: oldSigner, tiles: tiles() })).rejects.toThrow(/the table's log is verify.example.org\/ledger\/2/);
  await loadDocument(demoDocument(new Date('2026-11-22T10:00:00Z')), { client, table: TABLE, signer: newSigner, tiles: tiles() });
  expect(signs(oldKey)).toBe(oldSigns);
  expect(signs(newKey)).toBeGreaterThan(0);

  // The read path's head is the new log's, with the retired one before it.
  const head = await dynamoPublishedLedger(client, TABLE).head();
  expect(head).toMatchObject({ origin: NEW_ORIGIN, tilesDir: out.current.tilesDir, predecessors: [expect.objectContaining({ origin: OLD_ORIGIN, treeSize: out.retired.treeSize })] });

  // The monitor holding the pre-rotation state: the old log to its final checkpoint, the handover, the new log.
  const oldAfter = await monitor('', [oldKey.verifierKey(OLD_ORIGIN)], { state: before.report.state, leaves: before.leaves });
  expect([oldAfter.report.ok, oldAfter.report.treeSize, oldAfter.report.newEntries]).toEqual([true, out.retired.treeSize, 1]);
  const check = await checkHandover({
    oldFetch: (p) => tiles().read(p),
    newFetch: (p) => tiles().read(`${out.current.tilesDir}${p}`),
    oldState: oldAfter.report.state!,
    oldLeaves: oldAfter.leaves,
    oldKeys: [await parseVerifierKey(oldKey.verifierKey(OLD_ORIGIN))],
    newOrigin: NEW_ORIGIN,
    newSize: head!.treeSize,
  });
  expect(check.ok).toBe(true);
  const successor = await monitor(out.current.tilesDir, [check.ok ? check.successorKey.encoded : '']);
  expect([successor.report.ok, successor.report.treeSize]).toEqual([true, head!.treeSize]);
  expect(successor.leaves[0].equals(check.handoverLeaf!)).toBe(true);
}, 120_000);
