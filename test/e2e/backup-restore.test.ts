import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { LOCAL_TABLE, localClient, type LocalService } from '../../lib/local/service';
import { PROJECT_ROOT } from '../../lib/stack/trust-service-stack';
import { CREDENTIAL_CHANGED, emit, STATE_CHANGED } from '../support/ingress';
import { getJson, startTestService } from '../support/local';
import { scanTable } from '../support/embedded-table';

/**
 * Backups restored end to end, locally: the demo loaded, an event sent and integrated, a monitor's
 * state saved, the conformance reads' answers recorded; `npm run backup` writes the table in
 * DynamoDB's export format beside the tile log; the table is deleted; `npm run backup -- --restore`
 * brings it back. Every item is back as it was, every conformance read answers as before (apart
 * from the instant it answered at and the ages measured from it), `npm run verify` accepts the
 * evidence, the monitor holding the pre-loss state passes, and the log goes on growing from where
 * it was (no fork). A lost tile log is put back from the same backup.
 */

const run = promisify(execFile);
const tsx = path.join(PROJECT_ROOT, 'node_modules/.bin/tsx');
const cli = (script: string, ...args: string[]) =>
  run(tsx, [path.join(PROJECT_ROOT, script), ...args], { cwd: PROJECT_ROOT, env: { ...process.env } }).then(
    (out) => ({ code: 0, ...out }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

let service: LocalService;
let client: DynamoDBClient;
let work: string;

beforeAll(async () => {
  service = await startTestService(new Date());
  client = localClient(service.storeEndpoint);
  work = mkdtempSync(path.join(tmpdir(), 'backup-restore-'));
}, 120_000);

afterAll(async () => {
  client?.destroy();
  await service?.close();
  rmSync(work, { recursive: true, force: true });
});

async function everyItem(): Promise<string[]> {
  const items = await scanTable(client, LOCAL_TABLE);
  return items.map((item) => JSON.stringify(Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b))))).sort();
}

const objectUrl = () => `${service.url}/v1/objects/${DEMO_OBJECTS.current}`;

/**
 * The reads a relying party makes: every demo object, commercial proof and credential
 * verification, the trust receipt of each, the ledger and a consistency proof from half its size.
 */
function conformanceReads(treeSize: number): string[] {
  const references = { objects: Object.values(DEMO_OBJECTS), commercialProofs: Object.values(DEMO_PROOFS), credentials: Object.values(DEMO_CREDENTIALS) };
  return [
    ...references.objects.map((r) => `/v1/objects/${r}`),
    ...references.commercialProofs.map((r) => `/v1/commercial-proofs/${r}`),
    ...references.credentials.map((r) => `/v1/credentials/verify/${r}`),
    ...[...references.objects, ...references.commercialProofs, ...references.credentials].map((r) => `/trust-receipt/${r}`),
    '/v1/ledger',
    `/v1/ledger/consistency?from=${Math.floor(treeSize / 2)}&to=${treeSize}`,
  ];
}

/** Fields that say when an answer was made, or how old something was then: never the same twice. */
const ANSWER_TIME_FIELDS = new Set(['evaluatedAt']);
const AGE_FIELDS = new Set(['ageSeconds', 'lagSeconds']);

/** Ages people read ("confirmed 10 minutes ago"), measured from the instant of answering. */
const withoutAges = (text: string) => text.replace(/\b\d+ (second|minute|hour|day)s? ago\b/g, '<age> ago');

/** An answer as status, media type and body, without the instant it was made (and what was measured from it). */
function answerWithoutItsTime(status: number, type: string | null, text: string): string {
  return withoutAges(answerWithoutItsInstant(status, type, text));
}

function answerWithoutItsInstant(status: number, type: string | null, text: string): string {
  if (!type?.startsWith('application/json')) {
    // A page says when it was made in its "as of" line and its "Evaluated at" entry.
    const made = [...text.matchAll(/(?:as of |<dt>Evaluated at<\/dt><dd>)<time datetime="([^"]+)">/g)].map((m) => m[1]);
    let page = text;
    for (const instant of made) page = page.replace(new RegExp(`<time datetime="${instant.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}">[^<]*</time>`, 'g'), '<answered-at>');
    return `${status} ${type}\n${page}`;
  }
  const instants = new Set<string>();
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => {
        if (ANSWER_TIME_FIELDS.has(key) && typeof value === 'string') {
          instants.add(value);
          return [key, '<answered-at>'];
        }
        return [key, AGE_FIELDS.has(key) ? '<age>' : strip(value)];
      }),
    );
  };
  let body = JSON.stringify(strip(JSON.parse(text)), null, 1);
  // Reasons that compare with the evaluation instant name it.
  for (const instant of instants) body = body.split(instant).join('<answered-at>');
  return `${status} ${type}\n${body}`;
}

async function conformanceAnswers(urls: readonly string[]): Promise<Record<string, string>> {
  const answers: Record<string, string> = {};
  for (const url of urls) {
    const res = await fetch(`${service.url}${url}`);
    answers[url] = answerWithoutItsTime(res.status, res.headers.get('content-type'), await res.text());
  }
  return answers;
}

test('demo loaded, an event integrated, backed up, the table lost, restored: nothing lost, and monitors and verifiers pass across it', async () => {
  const sent = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' });
  expect(sent.status).toBe(202);
  await service.sequencer!.drain();
  const state = path.join(work, 'monitor-state.json');
  expect((await cli('bin/monitor.ts', service.url, '--state', state)).code).toBe(0);
  const before = { items: await everyItem(), object: (await getJson(objectUrl())).body, ledger: (await getJson(`${service.url}/v1/ledger`)).body.latestCheckpoint };
  expect([before.object.current.state, before.object.current.evidenceIntegrityConfirmed]).toEqual(['RETURNED', true]);
  const reads = conformanceReads(before.ledger.treeSize);
  const answeredBefore = await conformanceAnswers(reads);
  expect(Object.values(answeredBefore).filter((a) => !a.startsWith('200 '))).toEqual([]);

  const backup = path.join(work, 'backup');
  const made = await cli('bin/backup.ts', '--table', LOCAL_TABLE, '--out', backup, '--endpoint', service.storeEndpoint, '--tiles-dir', service.tilesDir);
  expect([made.code, made.stderr]).toEqual([0, expect.stringContaining(`${before.items.length} items`)]);
  // DynamoDB's export layout: the summary, the files manifest, gzip DynamoDB JSON data files.
  const summary = JSON.parse(readFileSync(path.join(backup, 'table', 'manifest-summary.json'), 'utf8'));
  expect([summary.exportFormat, summary.itemCount]).toEqual(['DYNAMODB_JSON', before.items.length]);
  expect(readdirSync(path.join(backup, 'table', 'data')).every((f) => f.endsWith('.json.gz'))).toBe(true);

  await client.send(new DeleteTableCommand({ TableName: LOCAL_TABLE }));
  expect((await getJson(objectUrl())).status).not.toBe(200);
  expect((await getJson(`${service.url}/health`)).body).toMatchObject({ status: 'DEGRADED', readiness: { persistence: 'TABLE_NOT_FOUND' } });

  const restored = await cli('bin/backup.ts', '--restore', backup, '--table', LOCAL_TABLE, '--endpoint', service.storeEndpoint, '--tiles-dir', service.tilesDir);
  expect([restored.code, restored.stderr]).toEqual([0, expect.stringContaining(`${before.items.length} items restored`)]);
  expect(await everyItem()).toEqual(before.items);
  expect((await getJson(`${service.url}/health`)).body).toMatchObject({ status: 'OK', readiness: { persistence: 'READY' } });
  // Every conformance read answers as it did before the loss.
  const answeredAfter = await conformanceAnswers(reads);
  expect(reads.filter((url) => answeredAfter[url] !== answeredBefore[url])).toEqual([]);
  const object = (await getJson(objectUrl())).body;
  // Everything but the instant it was evaluated at.
  expect({ ...object.current, evaluatedAt: undefined }).toEqual({ ...before.object.current, evaluatedAt: undefined });
  expect((await getJson(`${service.url}/v1/ledger`)).body.latestCheckpoint).toEqual(before.ledger);

  const verified = await cli('bin/verify.ts', objectUrl(), '--key', process.env.LEDGER_VERIFIER_KEYS!);
  expect([verified.code, verified.stdout]).toEqual([0, expect.stringMatching(/verified/i)]);
  expect((await cli('bin/monitor.ts', service.url, '--state', state)).code).toBe(0);

  // The log goes on from where it was: a later event is integrated, and the same monitor sees it only grow.
  expect((await emit(service.url, CREDENTIAL_CHANGED, DEMO_CREDENTIALS.active, { previousStatus: 'ACTIVE', status: 'SUSPENDED' })).status).toBe(202);
  await service.sequencer!.drain();
  const grown = await cli('bin/monitor.ts', service.url, '--state', state);
  expect([grown.code, grown.stdout]).toEqual([0, expect.stringContaining('the log only grew')]);
}, 180_000);

test('a lost tile log is put back from the backup; a restore into a table that holds items is refused', async () => {
  const backup = path.join(work, 'backup');
  const state = path.join(work, 'monitor-state.json');
  const checkpoint = readFileSync(path.join(service.tilesDir, 'checkpoint'));
  const taken = readdirSync(path.join(backup, 'tiles'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  expect(taken.length).toBeGreaterThan(3);
  // Lose the tile objects the backup holds (the newer ones, written after it, stay: a versioned bucket's own restore).
  for (const e of taken) {
    const key = path.relative(path.join(backup, 'tiles'), path.join(e.parentPath, e.name));
    if (key !== 'checkpoint') rmSync(path.join(service.tilesDir, key));
  }
  const refused = await cli('bin/backup.ts', '--restore', backup, '--table', LOCAL_TABLE, '--endpoint', service.storeEndpoint);
  expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining('is not empty')]);
  const { copyTileLog, directoryTileLog } = await import('../../lib/backup/tile-log');
  expect(await copyTileLog(directoryTileLog(path.join(backup, 'tiles')), directoryTileLog(service.tilesDir))).toBeGreaterThan(0);
  // The newer checkpoint is kept: putting the backup's back would look like a rollback to every monitor.
  expect(readFileSync(path.join(service.tilesDir, 'checkpoint'))).toEqual(checkpoint);
  expect((await cli('bin/monitor.ts', service.url, '--state', state)).code).toBe(0);
}, 120_000);
