import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { LogCache } from '../../functions/ledger-writer/held-ledger';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { tableStores, type TableStores } from '../../functions/store/dynamodb';
import { buildEvent } from '../../lib/ingress/emit';
import { localClient } from '../../lib/local/service';
import { startDemoTable, type DemoTable } from '../support/demo-table';
import { claimAccepted, wholeRecord } from '../support/stores';

/**
 * How a sequencer opens the log (functions/ledger-writer/held-ledger.ts): cold, from its right edge
 * (the partial hash tiles); warm, from the log its last batch published, reading nothing when the
 * head is still that one, and only the leaves another writer (a load) appended since.
 */
const TABLE = 'log-cache';
const signer = signerFromKey(formatSignerKey('log-cache.test/ledger', Buffer.alloc(32, 9)));
const REFERENCE = DEMO_OBJECTS.current;
const STATES = ['SHIPPED', 'DELIVERED', 'SHIPPED', 'DELIVERED'];

let demo: DemoTable;
let stores: TableStores;
let client: DynamoDBClient;
beforeAll(async () => {
  demo = await startDemoTable(TABLE, signer, [REFERENCE]);
  client = localClient(demo.store.endpoint);
  stores = tableStores(client, TABLE);
});
afterAll(async () => {
  client?.destroy();
  await demo?.close();
});

/** A client whose stores note what the log is read from: the leaves (the level-0 hash tiles, read in order) and the edge hash tiles. */
function countingClient(): { client: DynamoDBClient; reads: { leaves: number; tiles: number }; stores: TableStores } {
  const client = localClient(demo.store.endpoint);
  const reads = { leaves: 0, tiles: 0 };
  const stores = tableStores(client, TABLE);
  const { leaves } = stores.ledger;
  const forEachLeaf = leaves.forEachLeaf.bind(leaves);
  const readEdgeTiles = leaves.readEdgeTiles.bind(leaves);
  leaves.forEachLeaf = (...args) => {
    reads.leaves++;
    return forEachLeaf(...args);
  };
  leaves.readEdgeTiles = (...args) => {
    reads.tiles++;
    return readEdgeTiles(...args);
  };
  return { client, reads, stores };
}

let delivered = 0;
async function deliverChange(): Promise<void> {
  const i = delivered++;
  const at = new Date(Date.now() - 30_000 + i * 1000).toISOString();
  const raw = JSON.stringify(buildEvent('svc.living-object.state-changed.v1', REFERENCE, { state: STATES[i % STATES.length] }, at, `change-${i}`));
  await claimAccepted(stores.pending, { webhookId: `change-${i}`, raw });
}

async function newestVerifies(): Promise<boolean> {
  const entries = (await wholeRecord(stores.records, REFERENCE))!;
  const newest = entries[entries.length - 1];
  return verifyEvidence(newest.head.content, newest.head.evidence! as never, [signer.verifierKey]).ok;
}

test('cold: from the right edge (hash tiles, no leaf); warm: nothing; after a load: only the leaves it appended; another store: cold again', async () => {
  const cache = new LogCache();
  const a = countingClient();
  // The stores of one client, made once (as the sequencer's Lambda and the local host make them): the log is kept for them.
  const run = (counted: ReturnType<typeof countingClient>) => sequenceAll({ ...counted.stores, signer, tiles: directoryTileStore(demo.tiles), cache });

  await deliverChange();
  expect((await run(a)).map((r) => r.appended)).toEqual([1]);
  expect(a.reads).toEqual({ leaves: 0, tiles: 1 });
  expect(await newestVerifies()).toBe(true);

  await deliverChange();
  expect((await run(a)).map((r) => r.appended)).toEqual([1]);
  expect(a.reads).toEqual({ leaves: 0, tiles: 1 });
  expect(await newestVerifies()).toBe(true);

  // A load appends (a proof never loaded before) with its own client: the warm log reads what it appended.
  const before = (await stores.ledger.lock.read())!.treeSize;
  await demo.load(['PRF-2026-0101']);
  expect((await stores.ledger.lock.read())!.treeSize).toBeGreaterThan(before);
  await deliverChange();
  expect((await run(a)).map((r) => r.appended)).toEqual([1]);
  expect(a.reads).toEqual({ leaves: 1, tiles: 1 });
  expect(await newestVerifies()).toBe(true);

  // The kept log belongs to the stores it was kept for: another client's open cold.
  const b = countingClient();
  await deliverChange();
  expect((await run(b)).map((r) => r.appended)).toEqual([1]);
  expect(b.reads).toEqual({ leaves: 0, tiles: 1 });
  expect(await newestVerifies()).toBe(true);
  a.client.destroy();
  b.client.destroy();
});
