import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { LogCache } from '../../functions/ledger-writer/held-ledger';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { tableStores, type TableStores } from '../../functions/store/dynamodb';
import { RecordTails } from '../../functions/store/dynamodb/record-tails';
import type { StoredTimeline, TimelineRequest } from '../../functions/store/ports/records';
import { buildEvent } from '../../lib/ingress/emit';
import { localClient } from '../../lib/local/service';
import { startDemoTable, type DemoTable } from '../support/demo-table';
import { claimAccepted, wholeRecord } from '../support/stores';

/**
 * A warm sequencer remembers its records' newest items between batches
 * (functions/store/dynamodb/record-tails.ts) so that an event newer than its record's last needs no
 * read of the record. It must answer every read exactly as the table does, and forget everything
 * when another writer held the log's lease in between or a batch stopped part-way. A writer with no
 * memory reads those newest items by key, where the record's genesis says they are (records.ts),
 * instead of a Query of each partition: those reads must equal the Queries' too.
 */
const TABLE = 'record-tails';
const signer = signerFromKey(formatSignerKey('record-tails.test/ledger', Buffer.alloc(32, 11)));
const REFERENCES = [DEMO_OBJECTS.current, DEMO_OBJECTS.modified];
const STATES = ['SHIPPED', 'DELIVERED'];
const SEED = 20261127;

let demo: DemoTable;
let client: DynamoDBClient;
/** The table read without memory: what every answer of a warm writer must equal. */
let plain: TableStores;
beforeAll(async () => {
  demo = await startDemoTable(TABLE, signer, REFERENCES);
  client = localClient(demo.store.endpoint);
  plain = tableStores(client, TABLE);
});
afterAll(async () => {
  client?.destroy();
  await demo?.close();
});

/**
 * A writer's stores keeping what it remembers (or not: `memory` false), through a client of its
 * own that counts its Queries of record partitions and its reads of record items by key (not
 * geneses), and can be made to fail writes.
 */
function warmWriter({ memory = true } = {}) {
  const own = localClient(demo.store.endpoint);
  const tails = memory ? new RecordTails() : undefined;
  const counted = { recordQueries: 0, recordItemsByKey: 0, failWrites: false };
  own.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ExpressionAttributeValues?: Record<string, { S?: string }>; RequestItems?: Record<string, { Keys?: { sk?: { S?: string } }[] }> };
      if (context.commandName === 'QueryCommand' && input.ExpressionAttributeValues?.[':pk']?.S?.startsWith('R#')) counted.recordQueries++;
      if (context.commandName === 'BatchGetItemCommand') counted.recordItemsByKey += Object.values(input.RequestItems ?? {}).flatMap((r) => r.Keys ?? []).filter((k) => /^[TV]#/.test(k.sk?.S ?? '')).length;
      if (context.commandName === 'BatchWriteItemCommand' && counted.failWrites) throw Object.assign(new Error('the store stopped (injected)'), { name: 'ServiceUnavailable' });
      return next(args);
    },
    { step: 'initialize', name: 'record-tails-test' },
  );
  const stores = tableStores(own, TABLE, undefined, tails);
  const cache = new LogCache();
  return { tails, counted, stores, run: () => sequenceAll({ ...stores, signer, tiles: directoryTileStore(demo.tiles), cache }), close: () => own.destroy() };
}

/** Another writer with no memory (as another sequencer or a load would be): it takes the lease in between. */
const coldRun = () => sequenceAll({ ...plain, signer, tiles: directoryTileStore(demo.tiles), cache: new LogCache() });

let sent = 0;
/** A state change, or an observation (of the state given, else of one of the two: the other is set aside). */
async function deliver(reference: string, at: Date, kind: 'change' | 'observation', state?: string): Promise<void> {
  const i = sent++;
  const fields = { state: state ?? STATES[i % STATES.length] };
  const type = kind === 'change' ? 'svc.living-object.state-changed.v1' : 'svc.living-object.authority-observed.v1';
  const event = buildEvent(type, reference, fields, at.toISOString(), `tails-${i}`);
  await claimAccepted(plain.pending, { webhookId: `tails-${i}`, raw: JSON.stringify(event) });
}

/**
 * The same reads through the warm writer's store, through the table's own by where each record's
 * genesis says its newest items are, and through Queries alone: they must be equal.
 */
async function expectSameReads(stores: TableStores, requests: { reference: string; from: string | null }[]): Promise<void> {
  const geneses = await plain.records.readGeneses([...new Set(requests.map((r) => r.reference))]);
  // One request a call: an answer is keyed by reference, so two reads of one record in a call would be one answer.
  const each = (read: (r: TimelineRequest) => Promise<Map<string, StoredTimeline>>) => Promise.all(requests.map(async (r) => (await read(r)).get(r.reference) ?? null));
  const [warm, pointed, cold] = await Promise.all([
    each((r) => stores.records.readTimelines([r])),
    each((r) => plain.records.readTimelines([{ ...r, tail: geneses.get(r.reference)?.tail }])),
    each((r) => plain.records.readTimelines([r])),
  ]);
  expect(warm).toEqual(cold);
  expect(pointed).toEqual(cold);
}

/** A clock that moves forward a few seconds an event, from 40 minutes ago (after the demo's history). */
let clock = Date.now() - 40 * 60_000;

/** Counts from now on. */
const countAgain = (counted: { recordQueries: number; recordItemsByKey: number }) => Object.assign(counted, { recordQueries: 0, recordItemsByKey: 0 });

/** A state change of `reference`, newer than its last, delivered and integrated by `writer`. */
async function changeIntegrated(writer: ReturnType<typeof warmWriter>, reference: string) {
  await deliver(reference, new Date((clock += 2_000)), 'change');
  return writer.run();
}

/** An observation of the state in force on `reference` (integrated, not set aside: nothing waits to be tried again from an earlier instant). */
async function observeStateInForce(reference: string): Promise<void> {
  const { state } = (await wholeRecord(plain.records, reference))!.at(-1)!.view as { state: string };
  await deliver(reference, new Date((clock += 2_000)), 'observation', state);
}

test('warm: an event newer than its record\'s last is integrated without a Query of the record; another writer\'s lease in between: the record is read again, and the new entry follows the other writer\'s', async () => {
  const writer = warmWriter();
  const [reference] = REFERENCES;
  try {
    await changeIntegrated(writer, reference);
    countAgain(writer.counted);
    await changeIntegrated(writer, reference);
    expect(writer.counted.recordQueries + writer.counted.recordItemsByKey).toBe(0);

    // Another writer integrates an event of the same record: the warm writer's memory is stale.
    await deliver(reference, new Date((clock += 2_000)), 'change');
    await coldRun();
    const between = (await wholeRecord(plain.records, reference))!.at(-1)!;
    // An observation of the state the other writer's change made: set aside by a writer that believed the state before it.
    const state = (between.view as { state: string }).state;
    await deliver(reference, new Date((clock += 2_000)), 'observation', state);
    writer.counted.recordItemsByKey = 0;
    expect((await writer.run()).map((r) => [r.sequenced, r.setAside])).toEqual([[1, 0]]);
    // Read again, where the genesis the other writer wrote says the newest items are.
    expect(writer.counted.recordItemsByKey).toBe(2);
    const [before, newest] = (await wholeRecord(plain.records, reference))!.slice(-2);
    expect(before).toEqual(between);
    // An observation keeps the version in force: the other writer's, not the one remembered.
    expect(newest.entry).toMatchObject({ type: 'AUTHORITY_OBSERVED' });
    expect(newest.head.version).toBe(between.head.version);
  } finally {
    writer.close();
  }
});

test('no memory: an event newer than its record\'s last is integrated with the record\'s newest entry and head read by key (where its genesis says), not a Query; a late event searches the record', async () => {
  const writer = warmWriter({ memory: false });
  const [reference] = REFERENCES;
  try {
    await changeIntegrated(writer, reference);
    const genesis = (await plain.records.readGeneses([reference])).get(reference)!;
    expect(genesis.tail).toBeDefined();
    countAgain(writer.counted);
    await observeStateInForce(reference);
    await writer.run();
    // Its newest entry and head, read by key (again if events set aside before ask from an earlier instant, still after them).
    expect(writer.counted.recordQueries).toBe(0);
    expect(writer.counted.recordItemsByKey).toBeGreaterThanOrEqual(2);
    // Older than the newest entry: the genesis's newest items do not answer it, the Queries do.
    writer.counted.recordItemsByKey = 0;
    await deliver(reference, new Date(clock - 1_000), 'change');
    await writer.run();
    expect(writer.counted.recordQueries).toBeGreaterThan(0);
    await expectSameReads(writer.stores, [{ reference, from: new Date(clock - 3_000).toISOString() }, { reference, from: new Date(clock + 1_000).toISOString() }, { reference, from: null }]);
  } finally {
    writer.close();
  }
});

test('a record only loaded: its genesis says where its newest items are, so its first event reads them by key, not by Query', async () => {
  const reference = DEMO_OBJECTS.stale;
  await demo.load([reference]);
  const writer = warmWriter({ memory: false });
  try {
    const genesis = (await plain.records.readGeneses([reference])).get(reference)!;
    expect(genesis.changedByEvents).toBe(false);
    expect(genesis.tail).toBe((await plain.records.readTimelines([{ reference, from: null }])).get(reference)!.tail);
    countAgain(writer.counted);
    await deliver(reference, new Date((clock += 2_000)), 'change');
    expect((await writer.run()).reduce((n, r) => n + r.sequenced, 0)).toBe(1);
    expect(writer.counted.recordQueries).toBe(0);
    expect(writer.counted.recordItemsByKey).toBe(2);
    await expectSameReads(writer.stores, [{ reference, from: new Date(clock + 1_000).toISOString() }, { reference, from: new Date(clock - 60 * 60_000).toISOString() }, { reference, from: null }]);
  } finally {
    writer.close();
  }
});

test('a genesis whose newest items are damaged (by hand): the record is searched, the event integrated, and the genesis says them again', async () => {
  const writer = warmWriter({ memory: false });
  const [reference] = REFERENCES;
  try {
    await changeIntegrated(writer, reference);
    await client.send(new UpdateItemCommand({ TableName: TABLE, Key: { pk: { S: `R#${reference}` }, sk: { S: '#' } }, UpdateExpression: 'SET newest = :damaged', ExpressionAttributeValues: { ':damaged': { S: '["T#not a key", 7' } } }));
    countAgain(writer.counted);
    await observeStateInForce(reference);
    expect((await writer.run()).map((r) => [r.sequenced, r.setAside])).toEqual([[1, 0]]);
    expect([writer.counted.recordQueries > 0, writer.counted.recordItemsByKey]).toEqual([true, 0]);
    const { tail } = (await plain.records.readGeneses([reference])).get(reference)!;
    expect(JSON.parse(tail!)[0]).toMatch(/^T#/);
    await expectSameReads(writer.stores, [{ reference, from: new Date(clock + 1_000).toISOString() }, { reference, from: null }]);
  } finally {
    writer.close();
  }
});

test('a batch that stops part-way forgets everything; the next reads the records again and finishes the batch', async () => {
  const writer = warmWriter();
  const [, reference] = REFERENCES;
  try {
    await changeIntegrated(writer, reference);
    expect(writer.tails!.size).toBeGreaterThan(0);
    await deliver(reference, new Date((clock += 2_000)), 'change');
    writer.counted.failWrites = true;
    await expect(writer.run()).rejects.toThrow(/store stopped/);
    expect(writer.tails!.size).toBe(0);
    writer.counted.failWrites = false;
    writer.counted.recordQueries = 0;
    const runs = await writer.run();
    expect(runs.reduce((n, r) => n + r.sequenced, 0)).toBe(1);
    expect(writer.counted.recordQueries + writer.counted.recordItemsByKey).toBeGreaterThan(0);
    await expectSameReads(writer.stores, [{ reference, from: new Date(clock + 1_000).toISOString() }, { reference, from: null }]);
  } finally {
    writer.close();
  }
});

test('seeded: batches of new, same-instant and late events; every read from any instant through the warm writer equals the table\'s', async () => {
  const writer = warmWriter();
  const eventArb = fc.record({ reference: fc.constantFrom(...REFERENCES), lateBySeconds: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 90 })), kind: fc.constantFrom('change' as const, 'observation' as const) });
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(eventArb, { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 4 }), fc.array(fc.integer({ min: -120, max: 5 }), { minLength: 3, maxLength: 3 }), async (batches, probes) => {
        for (const batch of batches) {
          for (const event of batch) {
            clock += event.lateBySeconds === 0 ? 2_000 : 0;
            await deliver(event.reference, new Date(clock - event.lateBySeconds * 1000), event.kind);
          }
          await writer.run();
          // From after the newest (what the memory answers), from instants inside the history, and whole.
          const froms = [...probes.map((s) => new Date(clock + s * 1000).toISOString()), null];
          await expectSameReads(writer.stores, REFERENCES.flatMap((reference) => froms.map((from) => ({ reference, from }))));
        }
      }),
      { seed: SEED, numRuns: 6 },
    );
    expect(writer.tails!.size).toBeGreaterThan(0);
    // Every record the sequencer changed says where its newest items are: the reads above compared that path too.
    for (const genesis of (await plain.records.readGeneses(REFERENCES)).values()) expect(genesis.tail).toBeDefined();
  } finally {
    writer.close();
  }
});
