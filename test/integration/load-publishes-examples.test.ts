import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { demoDocument } from '../../fixtures/demo';
import { generateSignerKey } from '../../functions/ledger-writer/signer';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { DOCUMENT_CACHE_CONTROL } from '../../lib/local/documents';
import { validateRecords } from '../../lib/loader/load';
import { buildIngressExamples } from '../../lib/publish/ingress-examples';
import { loadedDocuments } from '../../lib/publish/loaded-examples';
import { buildSite } from '../../lib/publish/site';
import { canonicalSources } from '../../lib/publish/sources';

/**
 * `npm run load -- FILE --tiles-bucket <CatalogueBucketName>`, the real bin/load.ts, against a local
 * table (dynalite) and a local catalogue bucket (s3rver): a completed load puts the ingress examples
 * derived from the records it loaded where the deployment serves them, over the templates the
 * stack's creation deployed, and the release evidence the build deployed stays true.
 */

const ROOT = path.resolve(__dirname, '../..');
const ANCHOR = new Date('2026-11-01T12:00:00Z');
const BUCKET = 'catalogue-load-test';
const EXAMPLES = 'developers/sandbox/examples.json';
const EVIDENCE = 'developers/release-evidence/example.json';
const run = promisify(execFile);

let work: string;
let store: EmbeddedStore;
let s3Server: S3rver;
let s3Endpoint: string;
let s3: S3Client;

const cli = (args: string[]) =>
  run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/load.ts'), ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      // The loader's S3 client as an operator's, pointed at the local bucket the way the SDK allows.
      AWS_ENDPOINT_URL_S3: s3Endpoint,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
  }).then(
    (out) => ({ code: 0, ...out }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

async function object(key: string) {
  const out = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return { body: await out.Body!.transformToString(), contentType: out.ContentType, cacheControl: out.CacheControl };
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'load-publishes-'));
  store = await startEmbeddedStore();
  s3Server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(work, 's3'), configureBuckets: [{ name: BUCKET }] });
  const { port } = await s3Server.run();
  s3Endpoint = `http://127.0.0.1:${port}`;
  s3 = new S3Client({ endpoint: s3Endpoint, region: 'eu-central-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await writeFile(path.join(work, 'records.json'), JSON.stringify(demoDocument(ANCHOR)));
  await writeFile(path.join(work, 'ledger.key'), generateSignerKey('load-publishes.example/ledger'));
}, 30_000);

afterAll(async () => {
  s3.destroy();
  await s3Server.close();
  await store.close();
  await rm(work, { recursive: true, force: true });
});

const loadArgs = (table: string) => [
  path.join(work, 'records.json'),
  '--endpoint', store.endpoint, '--table', table, '--create-table',
  '--signing-key-file', path.join(work, 'ledger.key'),
  '--tiles-bucket', BUCKET,
];

test('a completed load puts the examples derived from its records over the deployed templates, with the documents\' media type and cache policy', async () => {
  // What the stack's creation deployed: the build's documents, the examples as templates.
  const built = buildSite(canonicalSources());
  for (const key of [EXAMPLES, EVIDENCE]) await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: built.get(key), ContentType: 'application/json' }));
  expect(JSON.parse(built.get(EXAMPLES)!).ingress.examples.every((e: { fill?: unknown }) => e.fill)).toBe(true);

  const out = await cli(loadArgs('records-published'));
  expect(out.stderr).not.toContain('load failed');
  expect(out.code).toBe(0);
  expect(out.stdout).toContain(`published ${EXAMPLES} into ${BUCKET}`);

  const published = await object(EXAMPLES);
  expect({ contentType: published.contentType, cacheControl: published.cacheControl }).toEqual({ contentType: 'application/json', cacheControl: DOCUMENT_CACHE_CONTROL });
  const records = validateRecords(demoDocument(ANCHOR));
  // Byte for byte what the build makes from those records; every example derived (no template left), each about a record loaded.
  expect(published.body).toBe(loadedDocuments(records).get(EXAMPLES));
  const { examples } = JSON.parse(published.body).ingress;
  expect(examples).toEqual(buildIngressExamples({ records }));
  for (const e of examples) {
    expect(e.fill).toBeUndefined();
    expect(e.title).not.toMatch(/^Template:/);
    expect(records.map((r) => r.reference)).toContain(e.expect.reference);
  }

  // The release evidence the deployment holds is left as it is, and stays true: it digests the examples' template form.
  expect((await object(EVIDENCE)).body).toBe(built.get(EVIDENCE));
  const subject = JSON.parse(built.get(EVIDENCE)!).provenance.subject.find((s: { name: string }) => s.name === EXAMPLES);
  expect(subject.digest.sha256).toBe(createHash('sha256').update(built.get(EXAMPLES)!).digest('hex'));
  expect(buildSite({ ...canonicalSources(), ingressRecords: records }).get(EVIDENCE)).toBe(built.get(EVIDENCE));
}, 120_000);

test('loaded again, it changes nothing stored and publishes the same examples', async () => {
  const before = (await object(EXAMPLES)).body;
  const again = await cli(loadArgs('records-published'));
  expect(again.code).toBe(0);
  expect(again.stdout).toMatch(/already stored as the file describes them/);
  expect((await object(EXAMPLES)).body).toBe(before);

}, 120_000);
