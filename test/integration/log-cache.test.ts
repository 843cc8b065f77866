import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { LogCache } from '../../functions/ledger-writer/table-ledger';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { readLedgerHead } from '../../functions/store/ledger';
import { storeDeliveryOnce } from '../../functions/store/pending';
import { readWholeRecord } from '../../functions/store/records';
import { buildEvent } from '../../lib/ingress/emit';
import { localClient } from '../../lib/local/service';
import { startDemoTable, type DemoTable } from '../support/demo-table';

/**
 * How a sequencer opens the log (functions/ledger-writer/table-ledger.ts): cold, from its right edge
 * (the partial hash tiles); warm, from the log its last batch published, reading nothing when the
 * head is still that one, and only the leaves another writer (a load) appended since.
 */
const TABLE = 'log-cache';
const signer = signerFromKey(formatSignerKey('log-cache.test/ledger', Buffer.alloc(32, 9)));
const REFERENCE = DEMO_OBJECTS.current;
const STATES = ['SHIPPED', 'DELIVERED', 'SHIPPED', 'DELIVERED'];

let demo: DemoTable;
beforeAll(async () => (demo = await startDemoTable(TABLE, signer, [REFERENCE])));
afterAll(() => demo?.close());

/** A client that notes what the ledger partition is asked for: leaf pages (E#) and hash tiles (T#). */
function countingClient(): { client: DynamoDBClient; reads: { leaves: number; tiles: number } } {
  const client = localClient(demo.store.endpoint);
  const reads = { leaves: 0, tiles: 0 };
  const send = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
  (client as unknown as { send: unknown }).send = (command: { constructor: { name: string }; input: any }, ...rest: unknown[]) => {
    const text = JSON.stringify(command.input);
    if (command.constructor.name === 'QueryCommand' && text.includes('"E#')) reads.leaves++;
    if (command.constructor.name === 'BatchGetItemCommand' && text.includes('"T#')) reads.tiles++;
    return send(command, ...rest);
  };
  return { client, reads };
}

let delivered = 0;
async function deliverChange(): Promise<void> {
  const i = delivered++;
  const at = new Date(Date.now() - 30_000 + i * 1000).toISOString();
  const raw = JSON.stringify(buildEvent('svc.living-object.state-changed.v1', REFERENCE, { state: STATES[i % STATES.length] }, at, `change-${i}`));
  await storeDeliveryOnce({
    sourceId: 'service-platform',
    webhookId: `change-${i}`,
    status: 202,
    answer: {},
    bodySha256: String(i),
    receivedAt: new Date().toISOString(),
    sequencing: 'PENDING',
    event: { raw, type: 'svc.living-object.state-changed.v1', reference: REFERENCE, at, effect: 'ADVANCES_CURRENT_STATE' },
  });
}

async function newestVerifies(): Promise<boolean> {
  const client = localClient(demo.store.endpoint);
  try {
    const entries = (await readWholeRecord(client, TABLE, REFERENCE))!.entries;
    const newest = entries[entries.length - 1];
    return verifyEvidence(newest.head.content, newest.head.evidence!, [signer.verifierKey]).ok;
  } finally {
    client.destroy();
  }
}

test('cold: from the right edge (hash tiles, no leaf); warm: nothing; after a load: only the leaves it appended; another store: cold again', async () => {
  const cache = new LogCache();
  const a = countingClient();
  const run = (client: DynamoDBClient) => sequenceAll({ client, table: TABLE, signer, tiles: directoryTileStore(demo.tiles), cache });

  await deliverChange();
  expect((await run(a.client)).map((r) => r.appended)).toEqual([1]);
  expect(a.reads).toEqual({ leaves: 0, tiles: 1 });
  expect(await newestVerifies()).toBe(true);

  await deliverChange();
  expect((await run(a.client)).map((r) => r.appended)).toEqual([1]);
  expect(a.reads).toEqual({ leaves: 0, tiles: 1 });
  expect(await newestVerifies()).toBe(true);

  // A load appends (a proof never loaded before) with its own client: the warm log reads what it appended.
  const before = (await readLedgerHead())!.treeSize;
  await demo.load(['PRF-2026-0101']);
  expect((await readLedgerHead())!.treeSize).toBeGreaterThan(before);
  await deliverChange();
  expect((await run(a.client)).map((r) => r.appended)).toEqual([1]);
  expect(a.reads).toEqual({ leaves: 1, tiles: 1 });
  expect(await newestVerifies()).toBe(true);

  // The kept log belongs to the store its client reached: another client opens cold.
  const b = countingClient();
  await deliverChange();
  expect((await run(b.client)).map((r) => r.appended)).toEqual([1]);
  expect(b.reads).toEqual({ leaves: 0, tiles: 1 });
  expect(await newestVerifies()).toBe(true);
  a.client.destroy();
  b.client.destroy();
});
