import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetItemCommand, ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { sequenceAll, type SequencerOptions } from '../../functions/ledger-writer/sequencer';
import { inProcessParts } from '../../functions/ledger-writer/parts';
import { dynamoJournalChunks } from '../../functions/store/dynamodb/journal';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { statusListReference } from '../../functions/domain/credentials/model';
import { tableStores } from '../../functions/store/dynamodb';
import { GENESIS_SK, LEDGER_JOURNAL_PK, PART_CHUNK_PK_PREFIX, PENDING_INDEX } from '../../functions/store/layout';
import { buildEvent } from '../../lib/ingress/emit';
import { loadDocument } from '../../lib/loader/load';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';
import { claimAccepted, leavesOf, wholeRecord } from '../support/stores';

/**
 * Killing the sequencer at every step of its work (fault injection): the store stops answering
 * the k-th write, for every k, and that sequencer never hears back (as if its process died
 * holding the lease). Once the lease runs out a new sequencer resumes, and the table, the log and
 * the tile log end exactly as after an uninterrupted run: no leaf twice, none lost, every
 * delivery integrated once.
 */
const ANCHOR = new Date('2026-11-20T12:00:00.000Z');
const signer = signerFromKey(formatSignerKey('sequencer.test/ledger', Buffer.alloc(32, 5)));
const KEYS = [signer.verifierKey];
const BATCH_SIZE = 3;
const CREDENTIAL = DEMO_CREDENTIALS.active;
const REFERENCES = [DEMO_OBJECTS.current, CREDENTIAL, DEMO_PROOFS.current];

let store: EmbeddedStore;
let tilesRoot: string;
beforeAll(async () => {
  store = await startEmbeddedStore();
  configureLocalEnvironment(store.endpoint, 'unused');
  tilesRoot = await mkdtemp(path.join(os.tmpdir(), 'sequencer-recovery-'));
});
afterAll(async () => {
  await store?.close();
  await rm(tilesRoot, { recursive: true, force: true });
});

const iso = (offsetMs: number) => new Date(ANCHOR.getTime() + offsetMs).toISOString();
const MINUTE = 60_000;

/**
 * Events as the receivers store them: changes, an observation, a snapshot, a late change, one the
 * rules refuse. (The same event delivered again is answered from its stored claim by the receivers
 * and stores nothing for the sequencer: test/e2e/ingress-exactly-once.test.ts; an integrated event
 * found waiting again: test/integration/sequencer-exactly-once.test.ts.)
 */
const EVENTS: Array<[type: string, reference: string, fields: Record<string, string>, at: string, eventId?: string]> = [
  ['svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'SHIPPED' }, iso(10 * MINUTE)],
  ['svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(11 * MINUTE)],
  ['svc.commercial-proof.source-snapshot.v1', DEMO_PROOFS.current, { sourceState: 'DELIVERED' }, iso(12 * MINUTE)],
  ['svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'SHIPPED' }, iso(13 * MINUTE)],
  ['svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'CONFIRMED' }, iso(5 * MINUTE)],
  ['svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(14 * MINUTE)],
  ['svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'SHIPPED', state: 'SHIPPED' }, iso(15 * MINUTE)],
];

/** The keys of the events stored in each fresh table, in EVENTS order (the same in every table: an event's key is its identity). */
let eventKeys: string[] = [];

async function freshTable(name: string): Promise<{ table: string; tiles: string }> {
  const client = localClient(store.endpoint);
  const tiles = path.join(tilesRoot, name);
  const document = demoDocument(ANCHOR);
  document.records = document.records.filter((r: any) => REFERENCES.includes(r.reference));
  await loadDocument(document, { client, table: name, createTable: true, signer, tiles: directoryTileStore(tiles) });
  client.destroy();
  const client2 = localClient(store.endpoint);
  const { pending } = tableStores(client2, name);
  eventKeys = [];
  for (const [i, [type, reference, fields, at, eventId]] of EVENTS.entries()) {
    const raw = JSON.stringify(buildEvent(type, reference, fields, at, eventId ?? `event-${i}`));
    eventKeys.push(await claimAccepted(pending, { webhookId: `delivery-${i}`, raw, receivedAt: iso(20 * MINUTE + i * 1000) }));
  }
  client2.destroy();
  return { table: name, tiles };
}

const WRITES = new Set(['PutItemCommand', 'BatchWriteItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);

/** A client whose store stops answering at the k-th write: that request, and the sequencer waiting on it, never return. */
function stoppingClient(k: number): { client: DynamoDBClient; stopped: Promise<void>; writes: () => number } {
  const client = localClient(store.endpoint);
  let writes = 0;
  let onStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (onStopped = resolve));
  const send = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
  (client as unknown as { send: unknown }).send = (command: { constructor: { name: string } }, ...rest: unknown[]) => {
    if (WRITES.has(command.constructor.name) && ++writes === k) {
      onStopped();
      return new Promise(() => undefined);
    }
    return send(command, ...rest);
  };
  return { client, stopped, writes: () => writes };
}

/** Everything the sequencer is responsible for, in comparable form. */
async function snapshot(table: string, tiles: string) {
  const client = localClient(store.endpoint);
  const stores = tableStores(client, table);
  try {
    const records: Record<string, unknown> = {};
    for (const reference of [...REFERENCES, statusListReference('demo-2026-suspension'), statusListReference('demo-2026-revocation')]) {
      records[reference] = await wholeRecord(stores.records, reference);
    }
    const head = (await stores.ledger.lock.read())!;
    const leaves = (await leavesOf(stores.ledger.leaves, head.treeSize)).map((l) => l.toString('base64'));
    const deliveries = [];
    for (const key of eventKeys) {
      const item = (await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: key }, sk: { S: GENESIS_SK } }, ConsistentRead: true }))).Item!;
      deliveries.push({ sequencing: item.sequencing.S, outcome: item.outcome?.S, waiting: item[PENDING_INDEX.partitionKey] !== undefined });
    }
    const journal = (await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: LEDGER_JOURNAL_PK }, sk: { S: '#' } }, ConsistentRead: true }))).Item;
    const files: Record<string, string> = {};
    for (const entry of await readdir(tiles, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files[path.relative(tiles, path.join(entry.parentPath, entry.name))] = (await readFile(path.join(entry.parentPath, entry.name))).toString('base64');
    }
    // A lease that has run out is held by no one (the last step, its release, may be what was stopped).
    const leaseHeld = head.lock !== null && Date.parse(head.lock.until ?? '9999') > Date.now();
    return { records, head: { treeSize: head.treeSize, checkpoint: head.checkpoint, leaseHeld }, leaves, deliveries, journalDone: journal?.done?.BOOL, files };
  } finally {
    client.destroy();
  }
}

/**
 * How a batch is planned: in the sequencer, or in parts by part writers (functions/ledger-writer/parts.ts;
 * here in this process, on the same client: each of their writes counts, and may be the one that
 * stops), a part an event.
 */
type Mode = 'in one process' | 'in parts';
function sequencerOn(client: DynamoDBClient, table: string, tiles: string, mode: Mode): SequencerOptions {
  const stores = tableStores(client, table);
  const tileStore = directoryTileStore(tiles);
  const parts = mode === 'in parts' ? inProcessParts({ records: tableStores(client, table).records, pending: stores.pending, journal: dynamoJournalChunks(client, table), tiles: tileStore }, { eventsPerPart: 1, maxParts: BATCH_SIZE }) : undefined;
  return { ...stores, signer, tiles: tileStore, batchSize: BATCH_SIZE, parts };
}

const references = new Map<Mode, Awaited<ReturnType<typeof snapshot>>>();
const totals = new Map<Mode, number>();

describe.each<Mode>(['in one process', 'in parts'])('planned %s', (mode) => {
  const name = (n: string) => (mode === 'in parts' ? `parts-${n}` : n);

  test('an uninterrupted run integrates every delivery once, sets aside what breaks the rules, and its evidence verifies', async () => {
    const { table, tiles } = await freshTable(name('reference'));
    const counting = stoppingClient(Number.POSITIVE_INFINITY);
    const runs = await sequenceAll(sequencerOn(counting.client, table, tiles, mode));
    totals.set(mode, counting.writes());
    counting.client.destroy();
    expect(runs.length).toBeGreaterThanOrEqual(Math.ceil(EVENTS.length / BATCH_SIZE));
    const reference = await snapshot(table, tiles);
    references.set(mode, reference);
    expect(reference.deliveries.map((d) => d.sequencing)).toEqual(['SEQUENCED', 'SEQUENCED', 'SEQUENCED', 'SEQUENCED', 'SEQUENCED', 'SEQUENCED', 'SET_ASIDE']);
    expect(reference.deliveries.every((d) => !d.waiting)).toBe(true);
    expect(reference.head.leaseHeld).toBe(false);
    expect(reference.journalDone).toBe(true);
    // Every version the records show is in the log, with evidence that verifies; the log holds no other new leaf.
    const shown = new Set<string>();
    for (const entries of Object.values(reference.records) as any[][]) {
      for (const e of entries) {
        if (e.head.evidence?.version !== e.head.version) continue;
        expect([e.head.reference, e.head.version, verifyEvidence(e.head.content, e.head.evidence, KEYS).ok]).toEqual([e.head.reference, e.head.version, true]);
        shown.add(e.head.evidence.leafHash);
      }
    }
    expect(new Set(reference.leaves)).toEqual(shown);
    expect(new Set(reference.leaves).size).toBe(reference.leaves.length);
    expect(counting.writes()).toBeGreaterThan(10);
    // In parts, each part stored its journal chunks itself (J#): the last batch's are kept until the next journaled batch, the ones before it removed.
    const client = localClient(store.endpoint);
    const partChunks = (await client.send(new ScanCommand({ TableName: table, ConsistentRead: true }))).Items!.filter((item) => item.pk.S!.startsWith(PART_CHUNK_PK_PREFIX));
    client.destroy();
    if (mode === 'in parts') expect(new Set(partChunks.map((item) => item.pk.S!.split('#')[1].slice(0, 36))).size).toBe(1);
    else expect(partChunks).toEqual([]);
  }, 60_000);

  test('stopped at every write, then resumed by a new sequencer once the lease ran out: the same table, log and tile log as the uninterrupted run', async () => {
    const totalWrites = totals.get(mode)!;
    const reference = references.get(mode)!;
    expect(totalWrites).toBeGreaterThan(0);
    for (let k = 1; k <= totalWrites; k++) {
      const { table, tiles } = await freshTable(name(`stopped-at-${k}`));
      const dying = stoppingClient(k);
      void sequenceAll({ ...sequencerOn(dying.client, table, tiles, mode), leaseMs: 100 });
      await dying.stopped;
      await new Promise((r) => setTimeout(r, 150));
      const client = localClient(store.endpoint);
      await sequenceAll(sequencerOn(client, table, tiles, mode));
      client.destroy();
      const after = await snapshot(table, tiles);
      // Named by k, so a failure says at which write the sequencer was stopped.
      expect({ stoppedAtWrite: k, deliveries: after.deliveries }).toEqual({ stoppedAtWrite: k, deliveries: reference.deliveries });
      expect({ stoppedAtWrite: k, ...after }).toEqual({ stoppedAtWrite: k, ...reference });
    }
  }, 300_000);
});

test('a load of the same document afterwards keeps the records events changed, and says which', async () => {
  const client = localClient(store.endpoint);
  const document = demoDocument(ANCHOR);
  document.records = document.records.filter((r: any) => REFERENCES.includes(r.reference));
  const summary = await loadDocument(document, { client, table: 'reference', signer, tiles: directoryTileStore(path.join(tilesRoot, 'reference')) });
  client.destroy();
  // The object, the credential and its suspension list received events; the proof's snapshot changed the proof's timeline too.
  expect(summary.keptChangedByEvents).toEqual([CREDENTIAL, DEMO_OBJECTS.current, DEMO_PROOFS.current, statusListReference('demo-2026-suspension')].sort());
  expect(summary.records).toBe(1);
  const after = await snapshot('reference', path.join(tilesRoot, 'reference'));
  const reference = references.get('in one process')!;
  for (const kept of summary.keptChangedByEvents) expect([kept, after.records[kept]]).toEqual([kept, reference.records[kept]]);
  // The one record loaded again (the revocation list, untouched by the events) is the same versions, proven against the newest checkpoint.
  const versions = (entries: any) => entries.map((e: any) => [e.id, e.head.version, e.head.content]);
  expect(versions(after.records[statusListReference('demo-2026-revocation')])).toEqual(versions(reference.records[statusListReference('demo-2026-revocation')]));
  expect(after.leaves).toEqual(reference.leaves);
});
