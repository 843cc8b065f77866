import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { setIndexesOf, decodeStatusList } from '../../functions/domain/credentials/bitstring';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { LIST_AHEAD_BATCHES, sequenceAll, sequencePending, type SequencerOptions } from '../../functions/ledger-writer/sequencer';
import { inProcessParts, type PartWriters } from '../../functions/ledger-writer/parts';
import { memoryJournalChunks } from '../../functions/store/memory/ledger';
import { LogCache } from '../../functions/ledger-writer/held-ledger';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { memoryTileStore } from '../../functions/ledger-writer/tile-store';
import { memoryStores, type MemoryStores } from '../../functions/store/memory';
import { eventIdentityDigest } from '../../functions/domain/ingress/identity';
import { buildEvent } from '../../lib/ingress/emit';
import { loadDocument } from '../../lib/loader/load';
import { claimAccepted, leavesOf, sequencingOf, wholeRecord } from '../support/stores';

/**
 * The sequencer (functions/ledger-writer/sequencer.ts) on the stores in memory, whose promises the
 * table's implementation keeps too (test/integration/store-ports.test.ts): what a batch of events
 * does to the records, the ledger and the tile log, and that stopping it at any one of its writes
 * (the process dies: that write never happens, nothing after it runs) and letting a new sequencer
 * take over once the lease ran out ends exactly as an uninterrupted run. The same against DynamoDB,
 * for every write request: test/integration/sequencer-recovery.test.ts.
 */
const ANCHOR = new Date('2026-11-20T12:00:00.000Z');
const signer = signerFromKey(formatSignerKey('sequencer.test/ledger', Buffer.alloc(32, 13)));
const CREDENTIAL = DEMO_CREDENTIALS.active;
const REFERENCES: string[] = [DEMO_OBJECTS.current, CREDENTIAL, DEMO_PROOFS.current];
const LISTS = ['status-list/demo-2026-suspension', 'status-list/demo-2026-revocation'];
const MINUTE = 60_000;
const iso = (offsetMs: number) => new Date(ANCHOR.getTime() + offsetMs).toISOString();

/** Changes, an observation, a snapshot, a late change (between two stored ones), a reinstatement, and one the rules refuse (a change to the state held). */
const EVENTS: Array<[type: string, reference: string, fields: Record<string, string>, at: string]> = [
  ['svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' }, iso(10 * MINUTE)],
  ['svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(11 * MINUTE)],
  ['svc.commercial-proof.source-snapshot.v1', DEMO_PROOFS.current, { sourceState: 'DELIVERED' }, iso(12 * MINUTE)],
  ['svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso(13 * MINUTE)],
  ['svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'SHIPPED', state: 'CONFIRMED' }, iso(-2 * 24 * 60 * MINUTE)],
  ['svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(14 * MINUTE)],
  ['svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'RETURNED', state: 'RETURNED' }, iso(15 * MINUTE)],
];

interface World {
  stores: MemoryStores;
  tiles: ReturnType<typeof memoryTileStore>;
  keys: string[];
  /** Each event's identity digest: what the receivers look it up by. */
  digests: string[];
}

/** The demo's object, credential and proof loaded, and every event stored as the receivers store them. */
async function freshWorld(): Promise<World> {
  const stores = memoryStores();
  const tiles = memoryTileStore();
  const document = demoDocument(ANCHOR);
  document.records = (document.records as Array<{ reference: string }>).filter((r) => REFERENCES.includes(r.reference));
  await loadDocument(document, { stores, signer, tiles });
  const keys: string[] = [];
  const digests: string[] = [];
  for (const [i, [type, reference, fields, at]] of EVENTS.entries()) {
    const event = buildEvent(type, reference, fields, at, `event-${i}`) as { source: string; id: string };
    keys.push(await claimAccepted(stores.pending, { webhookId: `delivery-${i}`, raw: JSON.stringify(event), receivedAt: iso(20 * MINUTE + i * 1000) }));
    digests.push(eventIdentityDigest(event));
  }
  return { stores, tiles, keys, digests };
}

const BATCH_SIZE = 3;
/**
 * How a batch is planned: in the sequencer, or in parts by part writers (parts.ts; here in this
 * process, each request and answer encoded as a Lambda's), a part an event, so every batch of
 * three is planned in up to three parts. A part stores its journal chunks itself; one that is
 * given no name to store them under (as a part writer that predates stored chunks) hands them
 * back, and the sequencer journals them and hands them to it again.
 */
type Mode = 'in one process' | 'in parts' | 'in parts handing their chunks back';
const handingChunksBack = (parts: PartWriters): PartWriters => ({ ...parts, plan: ({ journal: _, ...request }) => parts.plan(request) });
const partsOf = (world: World, stores: Pick<SequencerOptions, 'records' | 'pending' | 'tiles'>): PartWriters =>
  inProcessParts({ records: stores.records, pending: stores.pending, journal: memoryJournalChunks(stores, world.stores.ledger.storedChunks), tiles: stores.tiles }, { eventsPerPart: 1, maxParts: BATCH_SIZE });
const options = (world: World, stores: Pick<SequencerOptions, 'records' | 'pending' | 'ledger' | 'tiles'> = { ...world.stores, tiles: world.tiles }, mode: Mode = 'in one process'): SequencerOptions => ({
  ...stores,
  signer,
  batchSize: BATCH_SIZE,
  ...(mode === 'in parts' ? { parts: partsOf(world, stores) } : mode === 'in parts handing their chunks back' ? { parts: handingChunksBack(partsOf(world, stores)) } : {}),
});

/** Everything the sequencer is responsible for, in comparable form. */
async function snapshot(world: World) {
  const { stores, tiles } = world;
  const records: Record<string, unknown> = {};
  for (const reference of [...REFERENCES, ...LISTS]) records[reference] = await wholeRecord(stores.records, reference);
  const head = (await stores.ledger.lock.read())!;
  const leaves = (await leavesOf(stores.ledger.leaves, head.treeSize)).map((l) => l.toString('base64'));
  const events = await sequencingOf(stores.pending, world.keys);
  // What the receivers would answer a retry with: where each stands, and the version it made.
  const settled = await Promise.all(world.digests.map((digest) => stores.pending.lookUp({ sourceId: 'service-platform', webhookId: 'a-retry' }, digest).then((l) => l.event && { sequencing: l.event.sequencing, outcome: l.event.outcome })));
  // A lease that has run out is held by no one (the last step, its release, may be what was stopped).
  const leaseHeld = head.lock !== null && Date.parse(head.lock.until ?? '9999') > Date.now();
  const files = Object.fromEntries([...tiles.resources].map(([p, r]) => [p, r.bytes.toString('base64')]).sort());
  return { records, head: { treeSize: head.treeSize, checkpoint: head.checkpoint, leaseHeld }, leaves, events, settled, journalUnfinished: await stores.ledger.journal.unfinished(), files };
}

const reference = new Map<Mode, Awaited<ReturnType<typeof snapshot>>>();
const writes = new Map<Mode, number>();

/** The world's stores, every write of which (to the records, the events, the ledger and the tile log) is counted, and the k-th never returns. */
function stoppingAt(world: World, k: number) {
  let n = 0;
  let onStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (onStopped = resolve));
  const WRITES = new Set(['write', 'settle', 'publish', 'markDone', 'markSchema', 'writeChunks']);
  const wrap = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        if (!WRITES.has(String(name))) return value.bind(target);
        return (...args: unknown[]) => {
          if (++n === k) {
            onStopped();
            return new Promise(() => undefined);
          }
          return value.apply(target, args);
        };
      },
    });
  const { records, pending, ledger } = world.stores;
  const stores = { records: wrap(records), pending: wrap(pending), ledger: { lock: wrap(ledger.lock), leaves: wrap(ledger.leaves), journal: wrap(ledger.journal) }, tiles: wrap(world.tiles) };
  return { stores, stopped, writes: () => n };
}

describe.each<Mode>(['in one process', 'in parts', 'in parts handing their chunks back'])('planned %s', (mode) => {
test('an uninterrupted run: every event integrated once but the one the rules refuse, the credential\'s suspension list following it, and every version it made verifying', async () => {
  const world = await freshWorld();
  const counting = stoppingAt(world, Number.POSITIVE_INFINITY);
  const runs = await sequenceAll(options(world, counting.stores, mode));
  writes.set(mode, counting.writes());
  expect(runs.length).toBeGreaterThanOrEqual(Math.ceil(EVENTS.length / BATCH_SIZE));
  const ref = await snapshot(world);
  reference.set(mode, ref);
  expect(ref.events).toEqual(['SEQUENCED', 'SEQUENCED', 'SEQUENCED', 'SEQUENCED', 'SEQUENCED', 'SEQUENCED', 'SET_ASIDE']);
  expect([ref.head.leaseHeld, ref.journalUnfinished]).toEqual([false, false]);
  // The late change is history: the current state is still RETURNED.
  const object = ref.records[DEMO_OBJECTS.current] as Array<{ at: string; entry: { type: string; state: string }; head: { version: number } }>;
  expect(object[object.length - 1].entry).toMatchObject({ type: 'AUTHORITY_OBSERVED', state: 'RETURNED' });
  // The suspension list: the credential's bit set from its suspension, cleared from its reinstatement.
  const suspension = ref.records[LISTS[0]] as Array<{ at: string; head: { content: { encodedList: string } } }>;
  expect(suspension.map((e) => [e.at, setIndexesOf(decodeStatusList(e.head.content.encodedList)).length])).toEqual([
    [expect.any(String), 0],
    [iso(11 * MINUTE), 1],
    [iso(14 * MINUTE), 0],
  ]);
  const shown = new Set<string>();
  for (const entries of Object.values(ref.records) as Array<Array<{ head: { reference: string; version: number; content: unknown; evidence: { version: number; leafHash: string } | null } }>>) {
    for (const e of entries) {
      if (e.head.evidence?.version !== e.head.version) continue;
      expect([e.head.reference, e.head.version, verifyEvidence(e.head.content, e.head.evidence as never, [signer.verifierKey]).ok]).toEqual([e.head.reference, e.head.version, true]);
      shown.add(e.head.evidence.leafHash);
    }
  }
  expect(new Set(ref.leaves)).toEqual(shown);
  expect(new Set(ref.leaves).size).toBe(ref.leaves.length);
  expect(writes.get(mode)).toBeGreaterThan(10);
});

test('stopped at every write, then resumed by a new sequencer once the lease ran out: the same records, events, ledger and tile log as the uninterrupted run', async () => {
  const total = writes.get(mode)!;
  const ref = reference.get(mode)!;
  expect(total).toBeGreaterThan(0);
  for (let k = 1; k <= total; k++) {
    const world = await freshWorld();
    const dying = stoppingAt(world, k);
    void sequenceAll({ ...options(world, dying.stores, mode), leaseMs: 50 });
    await dying.stopped;
    await new Promise((r) => setTimeout(r, 80));
    await sequenceAll(options(world, undefined, mode));
    const after = await snapshot(world);
    // Named by k, so a failure says at which write the sequencer was stopped.
    expect({ stoppedAtWrite: k, events: after.events }).toEqual({ stoppedAtWrite: k, events: ref.events });
    expect({ stoppedAtWrite: k, ...after }).toEqual({ stoppedAtWrite: k, ...ref });
  }
}, 120_000);
});

test('planned in parts, a batch makes the same records, settles the same events and logs the same versions as planned in one process: only where each version sits in the log differs', async () => {
  const [one, parts, handingBack] = [reference.get('in one process')!, reference.get('in parts')!, reference.get('in parts handing their chunks back')!];
  const withoutPlaces = (snap: typeof one) => JSON.parse(JSON.stringify(snap.records), (key, value) => (['leafIndex', 'treeSize', 'inclusionProof', 'checkpoint'].includes(key) ? undefined : value));
  expect(withoutPlaces(parts)).toEqual(withoutPlaces(one));
  expect([parts.events, parts.settled]).toEqual([one.events, one.settled]);
  expect(new Set(parts.leaves)).toEqual(new Set(one.leaves));
  // Whether a part stored its chunks or handed them back changes nothing written, nor where.
  expect(handingBack).toEqual(parts);
});

test('one look at what waits serves the next batches of a run (LIST_AHEAD_BATCHES); a key listed but integrated meanwhile is passed over', async () => {
  const world = await freshWorld();
  // Twenty more observations of the object: 27 events, nine batches of three.
  for (let i = 0; i < 20; i++) {
    const event = buildEvent('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso((16 + i) * MINUTE), `more-${i}`);
    world.keys.push(await claimAccepted(world.stores.pending, { webhookId: `more-${i}`, raw: JSON.stringify(event), receivedAt: iso(30 * MINUTE + i * 1000) }));
  }
  const asked: number[] = [];
  const pending = new Proxy(world.stores.pending, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name === 'listWaiting') return (limit: number) => (asked.push(limit), target.listWaiting(limit));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const runs = await sequenceAll({ ...options(world), pending });
  expect(runs.map((r) => r.deliveries)).toEqual([3, 3, 3, 3, 3, 3, 3, 3, 3]);
  // Asked for LIST_AHEAD_BATCHES batches' worth once for that many batches, and once more to find that nothing waits: not once a batch.
  expect(LIST_AHEAD_BATCHES).toBeGreaterThan(1);
  const look = BATCH_SIZE * LIST_AHEAD_BATCHES;
  expect(asked).toEqual(Array(Math.ceil(27 / look) + 1).fill(look));
  expect(await sequencingOf(world.stores.pending, world.keys)).toEqual([...Array(6).fill('SEQUENCED'), 'SET_ASIDE', ...Array(20).fill('SEQUENCED')]);

  // A key handed over as waiting that was integrated since: read again before it is taken, and passed over.
  const size = (await world.stores.ledger.lock.read())!.treeSize;
  const again = await sequencePending({ ...options(world), waiting: [world.keys[0]] });
  expect([again?.deliveries, again?.sequenced, (await world.stores.ledger.lock.read())!.treeSize]).toEqual([0, 0, size]);

  // Told not to look (a run woken by the stream): the keys it is given alone, even when none of them still waits; none given, no batch.
  asked.length = 0;
  const straggler = await claimAccepted(world.stores.pending, { webhookId: 'straggler', raw: JSON.stringify(buildEvent('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso(40 * MINUTE), 'straggler')), receivedAt: iso(41 * MINUTE) });
  const blind = await sequencePending({ ...options(world), pending, waiting: [world.keys[0]], look: false });
  expect([blind?.deliveries, blind?.looked, asked]).toEqual([0, false, []]);
  expect(await sequencePending({ ...options(world), pending, look: false })).toBeNull();
  expect(await sequencingOf(world.stores.pending, [straggler])).toEqual(['PENDING']);
  const looking = await sequencePending({ ...options(world), pending, waiting: [world.keys[0]] });
  expect([looking?.deliveries, looking?.looked, asked]).toEqual([1, true, [look]]);
});

test('a batch whose events were integrated meanwhile (by the tick, or a run before it) writes nothing: no journal, no head, no record, no settlement', async () => {
  const world = await freshWorld();
  await sequenceAll(options(world));
  const head = await world.stores.ledger.lock.read();
  // Every write of every port counted (none stopped).
  const counted = stoppingAt(world, Number.POSITIVE_INFINITY);
  const run = await sequencePending({ ...options(world, counted.stores), waiting: [world.keys[0]], look: false });
  expect([run?.deliveries, run?.appended, counted.writes()]).toEqual([0, 0, 0]);
  expect((await world.stores.ledger.lock.read())!.checkpoint).toBe(head!.checkpoint);
  expect(await world.stores.ledger.journal.unfinished()).toBe(false);
});

test('a warm sequencer reads its batch\'s events with the lease; after another writer held the lease it reads them again under it, and integrates nothing that writer did', async () => {
  const world = await freshWorld();
  const calls: string[] = [];
  const pending = new Proxy(world.stores.pending, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name === 'readEvents') return (keys: readonly string[]) => (calls.push('readEvents'), target.readEvents(keys));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const lock = world.stores.ledger.lock;
  const ledger = {
    ...world.stores.ledger,
    lock: Object.assign(Object.create(lock) as typeof lock, {
      acquire: async (...args: Parameters<typeof lock.acquire>) => {
        calls.push('acquire');
        const head = await lock.acquire(...args);
        calls.push('leased');
        return head;
      },
    }),
  };
  const warm = { ...options(world), pending, ledger };
  // The cache is the process's: a first batch here makes it this world's (its leaves).
  await sequencePending({ ...warm, waiting: [world.keys[0]] });
  calls.length = 0;
  await sequencePending({ ...warm, waiting: [world.keys[1]] });
  // Sent before the lease answered: the batch's first reads overlap taking it.
  expect(calls).toEqual(['readEvents', 'acquire', 'leased']);
  expect(await sequencingOf(world.stores.pending, world.keys.slice(0, 2))).toEqual(['SEQUENCED', 'SEQUENCED']);

  // Another writer (a process of its own: its own cache) takes the lease and integrates the next event meanwhile.
  await sequencePending({ ...options(world), waiting: [world.keys[2]], cache: new LogCache() });
  const treeSize = (await world.stores.ledger.lock.read())!.treeSize;
  calls.length = 0;
  const again = await sequencePending({ ...warm, waiting: [world.keys[2]] });
  // Read ahead, dropped, and read again under the lease: the event is integrated, so nothing is.
  expect(calls).toEqual(['readEvents', 'acquire', 'leased', 'readEvents']);
  expect([again?.deliveries, again?.sequenced, (await world.stores.ledger.lock.read())!.treeSize]).toEqual([0, 0, treeSize]);
});

test('the records a stream batch names are read with its events: the batch reads no genesis again, but those of records it did not name', async () => {
  const world = await freshWorld();
  const asked: string[][] = [];
  const records = new Proxy(world.stores.records, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name === 'readGeneses') return (references: readonly string[]) => (asked.push([...references]), target.readGeneses(references));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  // The first two events name the object and the credential; only the object is named ahead.
  const run = await sequencePending({ ...options(world), records, waiting: world.keys.slice(0, 2), look: false, named: [DEMO_OBJECTS.current], cache: new LogCache() });
  expect(run).toMatchObject({ deliveries: 2, sequenced: 2 });
  expect(asked.slice(0, 2)).toEqual([[DEMO_OBJECTS.current], [CREDENTIAL]]);
  const [object] = (await wholeRecord(world.stores.records, DEMO_OBJECTS.current))!.slice(-1);
  expect(object.head.content).toMatchObject({ state: 'RETURNED' });
});
