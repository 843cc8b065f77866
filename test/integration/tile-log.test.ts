import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetItemCommand, ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import S3rver from 's3rver';
import { LEDGER_PK } from '../../functions/store/layout';
import { demoDocument } from '../../fixtures/demo';
import { LEDGER_LOG } from '../../functions/contract/site-paths';
import { decodeEntryBundle } from '#verify/node/tlog-tiles';
import { logResourceHeaders } from '../../functions/domain/ledger/tiles';
import { storeClient } from '../../functions/store/client';
import { parseVerifierKey } from '../../functions/domain/ledger/node-crypto';
import { LedgerIntegrityError } from '../../functions/ledger-writer/log';
import { runMonitor } from '#verify/node/monitor';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { bucketTileStore, directoryTileStore, type TileStore } from '../../functions/ledger-writer/tile-store';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';


const ANCHOR = new Date('2026-11-01T12:00:00Z');
const LATER = new Date('2026-11-09T08:30:00Z');
const BUCKET = 'catalogue-test';
const signer = signerFromKey(generateSignerKey('tiles-test.example/ledger'));

let store: EmbeddedStore;
let client: DynamoDBClient;
let s3Server: { close(): Promise<void> };
let s3: S3Client;
let work: string;

async function filesBelow(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const full = path.join(dir, name);
    const key = prefix ? `${prefix}/${name}` : name;
    if ((await stat(full)).isDirectory()) out.push(...(await filesBelow(full, key)));
    else out.push(key);
  }
  return out;
}

async function bucketKeys(): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: LEDGER_LOG.keyPrefix, ContinuationToken: token }));
    keys.push(...(out.Contents ?? []).map((o) => o.Key!));
    token = out.NextContinuationToken;
  } while (token);
  return keys.sort();
}

const load = (table: string, tiles: TileStore, anchor: Date) => loadDocument(demoDocument(anchor), { client, table, createTable: true, signer, tiles });

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'tile-log-'));
  store = await startEmbeddedStore();
  configureLocalEnvironment(store.endpoint, 'unused');
  client = localClient(store.endpoint);
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(work, 's3'), configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  s3Server = server;
  s3 = new S3Client({ endpoint: `http://127.0.0.1:${port}`, region: 'eu-central-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
}, 30_000);

afterAll(async () => {
  client.destroy();
  storeClient().destroy();
  s3.destroy();
  await s3Server.close();
  await store.close();
  await rm(work, { recursive: true, force: true });
});

describe('the tile log the loader writes', () => {
  const dir = () => path.join(work, 'tiles');

  it('is the same, byte for byte and header for header, in a folder and in the bucket (two loads each)', async () => {
    const folder = directoryTileStore(dir());
    const bucket = bucketTileStore(s3, BUCKET, LEDGER_LOG.keyPrefix);
    for (const anchor of [ANCHOR, LATER]) {
      const a = await load('tiles-folder', folder, anchor);
      const b = await load('tiles-bucket', bucket, anchor);
      expect(b.ledger!.checkpoint).toBe(a.ledger!.checkpoint);
    }
    const files = await filesBelow(dir());
    const keys = await bucketKeys();
    expect(keys).toEqual(files.map((f) => `${LEDGER_LOG.keyPrefix}${f}`));
    // Two loads: the first load's partial tiles stay, the second's are added, and two checkpoints are in the history.
    expect(files.filter((f) => f.startsWith('checkpoints/'))).toHaveLength(2);
    expect(files.filter((f) => f.startsWith('tile/entries/')).length).toBeGreaterThanOrEqual(2);
    for (const file of files) {
      const local = await readFile(path.join(dir(), ...file.split('/')));
      const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${LEDGER_LOG.keyPrefix}${file}` }));
      const remote = Buffer.from(await object.Body!.transformToByteArray());
      expect([file, remote.equals(local)]).toEqual([file, true]);
      const headers = logResourceHeaders(file);
      expect([file, object.ContentType, object.CacheControl]).toEqual([file, headers.contentType, headers.cacheControl]);
    }
  });

  it('holds the canonical JSON of every logged record version, and a monitor verifies it from the folder and from the bucket', async () => {
    const folder = directoryTileStore(dir());
    const bucket = bucketTileStore(s3, BUCKET, LEDGER_LOG.keyPrefix);
    const checkpoint = (await folder.read('checkpoint'))!.toString();
    const size = Number(checkpoint.split('\n')[1]);
    const bundle = (await filesBelow(dir())).find((f) => f === `tile/entries/000.p/${size}`)!;
    const entries = decodeEntryBundle((await folder.read(bundle))!);
    expect(entries).toHaveLength(size);
    for (const e of entries) expect(() => JSON.parse(e.toString('utf8'))).not.toThrow();
    for (const source of [folder, bucket]) {
      const report = await runMonitor({ fetch: (p) => source.read(p), logKeys: [parseVerifierKey(signer.verifierKey)], state: null, leaves: [] });
      expect([source.location, report.problem]).toEqual([source.location, null]);
      expect(report.treeSize).toBe(size);
    }
  });

  it('a load stops when the tile log does not hold the entries the table says were logged', async () => {
    const bundle = (await filesBelow(dir())).filter((f) => f.startsWith('tile/entries/')).at(-1)!;
    const original = await readFile(path.join(dir(), ...bundle.split('/')));
    const altered = Buffer.from(original);
    altered[altered.length - 3] ^= 0x01;
    await writeFile(path.join(dir(), ...bundle.split('/')), altered);
    try {
      await expect(load('tiles-folder', directoryTileStore(dir()), new Date('2026-11-20T00:00:00Z'))).rejects.toThrow(LedgerIntegrityError);
    } finally {
      await writeFile(path.join(dir(), ...bundle.split('/')), original);
    }
    await expect(load('tiles-folder', directoryTileStore(path.join(work, 'empty')), new Date('2026-11-20T00:00:00Z'))).rejects.toThrow(/has no tile\/entries/);
    // Refused before anything was written: no leaf beyond the published size, and the lock released.
    const head = await client.send(new GetItemCommand({ TableName: 'tiles-folder', Key: { pk: { S: LEDGER_PK }, sk: { S: '#' } } }));
    // The leaves are the level-0 tiles' hashes: none beyond the published size.
    const tiles = await client.send(new ScanCommand({ TableName: 'tiles-folder', FilterExpression: 'begins_with(pk, :tile)', ExpressionAttributeValues: { ':tile': { S: 'L#T#00#' } } }));
    expect((tiles.Items ?? []).reduce((n, tile) => n + tile.hashes.B!.length / 32, 0)).toBe(Number(head.Item!.treeSize.N));
    expect(head.Item!.lockId).toBeUndefined();
    const grown = await load('tiles-folder', directoryTileStore(dir()), new Date('2026-11-20T00:00:00Z'));
    expect(grown.ledger!.appended).toBeGreaterThan(0);
  });
});
