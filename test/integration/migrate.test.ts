import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { signerFromKey } from '../../functions/ledger-writer/signer';
import { tableStores } from '../../functions/store/dynamodb';
import { putItems } from '../../functions/store/dynamodb/put-items';
import { LEDGER_PK } from '../../functions/store/layout';
import { ensureTable } from '../../functions/store/write';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { localClient } from '../../lib/local/service';
import { leavesOf, wholeRecord } from '../support/stores';
import { scanTable } from '../support/embedded-table';

type Item = Record<string, AttributeValue>;

/**
 * A table written by the layout before the pending index was sharded and the ledger's items spread
 * (every ledger item under L#LOG, waiting events under queue = PENDING): the demo loaded, two events
 * integrated and two more waiting, made with that layout's own loader, receivers and sequencer and
 * scanned whole (test/fixtures/legacy-table.json.gz, binary values as base64).
 */
const LEGACY = JSON.parse(gunzipSync(readFileSync(path.join(__dirname, '../fixtures/legacy-table.json.gz'))).toString('utf8'), (_key, value) =>
  value && typeof value === 'object' && typeof value.base64 === 'string' ? Buffer.from(value.base64, 'base64') : value,
) as { signingKey: string; waiting: string[]; items: Item[] };
const TABLE = 'legacy';
const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

let store: EmbeddedStore;
let client: DynamoDBClient;

const scan = () => scanTable(client, TABLE);

const migrate = async () =>
  (await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/migrate.ts'), '--endpoint', store.endpoint, '--table', TABLE], { cwd: ROOT, env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } })).stdout;

beforeAll(async () => {
  store = await startEmbeddedStore();
  client = localClient(store.endpoint);
  await ensureTable(client, TABLE);
  await putItems(client, TABLE, LEGACY.items, undefined, { concurrency: 8 });
}, 60_000);
afterAll(async () => {
  client?.destroy();
  await store?.close();
});

test('npm run migrate moves a table of the earlier layout: then everything reads, the sequencer continues the log, and a second run moves nothing', async () => {
  const legacyLeaves = LEGACY.items.filter((i) => i.pk.S === LEDGER_PK && i.sk.S!.startsWith('E#')).sort((a, b) => a.sk.S!.localeCompare(b.sk.S!)).map((i) => Buffer.from(i.leafHash.B!));
  const references = [...new Set(LEGACY.items.filter((i) => i.pk.S!.startsWith('R#')).map((i) => i.pk.S!.slice(2)))];
  // Every record as the stores read it in the layout before (they read both): the answers the migration must keep.
  const recordsBefore = JSON.stringify(await Promise.all(references.map((reference) => wholeRecord(tableStores(client, TABLE).records, reference))));
  expect(legacyLeaves.length).toBeGreaterThan(0);
  expect(LEGACY.items.filter((i) => i.queue?.S === 'PENDING')).toHaveLength(2);

  const first = await migrate();
  expect(first).toMatch(/pending-shards: 2 items moved/);
  expect(first).toMatch(/ledger-keys: [1-9]\d* items moved/);
  expect(first).toMatch(/lean-records: [1-9]\d* items moved/);
  // The two events integrated before: their items now the claims of their identities, kept for good.
  expect(first).toMatch(/integrated-claims: 2 items moved/);
  // The lean entries it writes hold their events' identities already: no mark item to fold.
  expect(first).toMatch(/inline-marks: 0 items moved/);
  // The heads lean-records writes are in their records' heads partitions already.
  expect(first).toMatch(/heads-apart: 0 items moved/);

  const items = await scan();
  // Only the head stays under L#LOG; no waiting event in the old partition; no entry carries its version's head any more.
  expect(items.filter((i) => i.pk.S === LEDGER_PK).map((i) => i.sk.S)).toEqual(['#']);
  expect(items.filter((i) => i.queue?.S === 'PENDING')).toEqual([]);
  expect(items.filter((i) => i.queue?.S?.startsWith('PENDING#')).map((i) => i.pk.S).sort()).toEqual([...LEGACY.waiting].sort());
  expect(items.filter((i) => i.pk.S!.startsWith('R#') && i.sk.S!.startsWith('T#') && i.head !== undefined)).toEqual([]);
  // Every record reads as it did: the same entries, views, heads and evidence.
  expect(JSON.stringify(await Promise.all(references.map((reference) => wholeRecord(tableStores(client, TABLE).records, reference))))).toBe(recordsBefore);

  // The log reads as before: every leaf from the level-0 tiles, the head and its tiles on the read path.
  const stores = tableStores(client, TABLE);
  const head = (await stores.ledger.lock.read())!;
  expect(head.lock).toBeNull();
  expect((await leavesOf(stores.ledger.leaves, head.treeSize)).map((l) => l.toString('base64'))).toEqual(legacyLeaves.map((l) => l.toString('base64')));
  expect((await stores.ledger.published.headWithTiles([{ level: 0, index: 0 }])).tiles.size).toBe(1);
  expect(await stores.pending.listWaiting(10)).toEqual(LEGACY.waiting);

  // The sequencer continues: the two waiting events integrated, new leaves appended, the newest evidence verifies.
  const signer = signerFromKey(LEGACY.signingKey);
  const runs = await sequenceAll({ ...stores, signer });
  expect(runs.reduce((n, r) => n + r.sequenced, 0)).toBe(2);
  const after = (await stores.ledger.lock.read())!;
  expect(after.treeSize).toBeGreaterThan(head.treeSize);
  const entries = (await wholeRecord(stores.records, DEMO_OBJECTS.current))!;
  const newest = entries[entries.length - 1];
  expect(newest.eventKey).toBe(LEGACY.waiting[1]);
  expect(verifyEvidence(newest.head.content, newest.head.evidence! as never, [signer.verifierKey]).ok).toBe(true);

  // Idempotent: nothing left to move, nothing changed (but the count of leases on the log's head: the migration takes one).
  const tableItems = async () => JSON.stringify((await scan()).map(({ leasesTaken, ...item }) => JSON.stringify(item)).sort());
  const leases = async () => Number((await scan()).find((i) => i.leasesTaken)!.leasesTaken.N);
  const [settled, leasesBefore] = [await tableItems(), await leases()];
  const second = await migrate();
  expect(second).toMatch(/pending-shards: 0 items moved/);
  expect(second).toMatch(/ledger-keys: 0 items moved/);
  expect(second).toMatch(/lean-records: 0 items moved/);
  expect(second).toMatch(/integrated-claims: 0 items moved/);
  expect(second).toMatch(/heads-apart: 0 items moved/);
  expect(await tableItems()).toBe(settled);
  expect(await leases()).toBe(leasesBefore + 1);
}, 120_000);
