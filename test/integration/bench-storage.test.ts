import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { NOTHING_STORED, storedBytes, tally } from '../../bench/lib/cost/storage';
import type { Item } from '../../bench/lib/capacity/units';
import { ensureTable } from '../../functions/store/write';
import { embeddedStoreForFile } from '../support/embedded-table';

/**
 * The cost bench's storage reading against the real SDK, dynalite and s3rver: a Scan of the whole
 * table over more than one page (DynamoDB answers at most 1 MB a page) and a listing of the tile
 * log's prefix alone, tallied item by item as the pure tally does.
 */
const TABLE = 'storage-test';
const BUCKET = 'storage-test-bucket';
const { client } = embeddedStoreForFile();
let s3server: S3rver;
let s3: S3Client;
let work: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'bench-storage-'));
  await ensureTable(client(), TABLE);
  s3server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(work, 's3'), configureBuckets: [{ name: BUCKET }] });
  const { port } = await s3server.run();
  s3 = new S3Client({ endpoint: `http://127.0.0.1:${port}`, region: 'eu-central-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
});

afterAll(async () => {
  s3.destroy();
  await s3server.close();
  await rm(work, { recursive: true, force: true });
});

test('every item of the table, over several pages, and every object below the log prefix alone', async () => {
  const now = Math.floor(Date.now() / 1000);
  // Six items of about 300 KB: the Scan needs more than one page.
  const big: Item[] = Array.from({ length: 6 }, (_, i) => ({ pk: { S: `R#BIG-${i}` }, sk: { S: 'T#' }, body: { S: 'x'.repeat(300_000) } }));
  const small: Item[] = [
    { pk: { S: 'P#source#event:abc' }, sk: { S: '#' }, claim: { S: 'y'.repeat(500) } },
    { pk: { S: 'P#source#webhook-1' }, sk: { S: '#' }, expiresAt: { N: String(now + 7 * 86_400) } },
    { pk: { S: 'L#J#000000000001#000000' }, sk: { S: '#' }, chunk: { S: 'z'.repeat(100) }, expiresAt: { N: String(now + 14 * 86_400) } },
  ];
  for (const item of [...big, ...small]) await client().send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: [{ PutRequest: { Item: item as never } }] } }));
  for (const [key, bytes] of [['log/tile/0/000', 8192], ['log/checkpoint', 200], ['elsewhere/catalogue.json', 5000]] as const) {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: Buffer.alloc(bytes, 1) }));
  }

  const stored = await storedBytes(client(), TABLE, s3, BUCKET, 'log/');
  const expected = [...big, ...small].reduce((t, item) => tally(t, item, now), NOTHING_STORED);
  expect(stored.items).toBe(big.length + small.length);
  expect(stored.forGood).toBe(expected.forGood);
  expect(stored.forGoodByClass).toEqual(expected.forGoodByClass);
  expect(stored.expiring).toBe(expected.expiring);
  expect(stored.journal).toBe(expected.journal);
  // The seconds left are read from the clock of the reading: at most a few seconds apart.
  expect(Math.abs(stored.expiringByteSeconds - expected.expiringByteSeconds)).toBeLessThanOrEqual(expected.expiring * 5);
  expect(stored).toMatchObject({ log: 8192 + 200, logObjects: 2, index: 0 });
}, 60_000);
