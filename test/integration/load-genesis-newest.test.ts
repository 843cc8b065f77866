import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { tableStores } from '../../functions/store/dynamodb';
import { localClient } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';
import { embeddedStoreForFile } from '../support/embedded-table';

/**
 * A load's genesis says where its record's newest items are (records.ts `newest`), so the
 * sequencer reads a loaded record's first event's predecessors by key. That holds only if no
 * record's entries outlive the next lease without their genesis: a load's batch that writes
 * records is journaled even when it appends nothing (functions/ledger-writer/batch.ts: a batch
 * journals whatever it writes), and the next writer finishes it before it reads anything.
 */
const TABLE = 'load-genesis-newest';
const ANCHOR = new Date('2026-11-01T12:00:00Z');
const REFERENCE = DEMO_OBJECTS.stale;
const signer = signerFromKey(formatSignerKey('load-genesis-newest.test/ledger', Buffer.alloc(32, 5)));

const embedded = embeddedStoreForFile();
let client: DynamoDBClient;
let tiles: string;
beforeAll(async () => {
  client = embedded.client();
  tiles = await mkdtemp(path.join(os.tmpdir(), `${TABLE}-`));
});
afterAll(() => rm(tiles, { recursive: true, force: true }));

/** The demo's warranty record, with `observations` more observations after its history. */
function record(observations: number): unknown {
  const demo = (demoDocument(ANCHOR).records as { reference: string; history: unknown[] }[]).find((r) => r.reference === REFERENCE)!;
  const more = Array.from({ length: observations }, (_, i) => ({ type: 'AUTHORITY_OBSERVED', at: new Date(ANCHOR.getTime() + (i + 1) * 60_000).toISOString(), source: 'COMMERCE_PLATFORM_SYNC' }));
  return { ...demo, history: [...demo.history, ...more] };
}

/** A client whose BatchWriteItems that carry a record's genesis fail: the store stops between a record's entries and its genesis. */
function clientStoppingAtGeneses(): DynamoDBClient {
  const own = localClient(embedded.endpoint());
  own.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { RequestItems?: Record<string, { PutRequest?: { Item?: Record<string, { S?: string }> } }[]> };
      const geneses = Object.values(input.RequestItems ?? {}).flat().filter((w) => w.PutRequest?.Item?.pk?.S?.startsWith('R#') && w.PutRequest.Item.sk?.S === '#');
      if (context.commandName === 'BatchWriteItemCommand' && geneses.length > 0) throw Object.assign(new Error('the store stopped (injected)'), { name: 'ServiceUnavailable' });
      return next(args);
    },
    { step: 'initialize', name: 'stop-at-geneses' },
  );
  return own;
}

const stores = () => tableStores(client, TABLE);
const load = (observations: number, through = client, createTable = false) => loadDocument({ records: [record(observations)] }, { client: through, table: TABLE, createTable, signer, tiles: directoryTileStore(tiles) });
const genesisTail = async () => (await stores().records.readGeneses([REFERENCE])).get(REFERENCE)!.tail;
const wholeTail = async () => (await stores().records.readTimelines([{ reference: REFERENCE, from: null }])).get(REFERENCE)!.tail;
const treeSize = async () => (await stores().ledger.lock.read())!.treeSize;

test("a loaded record's genesis says where its newest items are, as a whole read finds them", async () => {
  await load(0, client, true);
  expect(await genesisTail()).toBeDefined();
  expect(await genesisTail()).toBe(await wholeTail());
});

test('a load that appends nothing but writes a record, stopped between its entries and its genesis, is finished from its journal by the next writer', async () => {
  const size = await treeSize();
  const failing = clientStoppingAtGeneses();
  try {
    // One more observation: the record's versions are as logged (nothing appended), but its entries change.
    await expect(load(1, failing)).rejects.toThrow(/store stopped/);
  } finally {
    failing.destroy();
  }
  expect(await treeSize()).toBe(size);
  // Its entries are written, its genesis is not: it says the newest items of the record as it was.
  expect(await genesisTail()).not.toBe(await wholeTail());
  // The next writer (here a sequencer with nothing to integrate) finishes the journal before anything else.
  await sequenceAll({ ...stores(), signer, tiles: directoryTileStore(tiles) });
  expect(await genesisTail()).toBe(await wholeTail());
  // The load run again finds the record complete and up to date.
  const summary = await load(1);
  expect([summary.unchanged, summary.ledger?.appended ?? 0]).toEqual([1, 0]);
});
