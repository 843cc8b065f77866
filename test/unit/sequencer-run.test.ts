import { randomUUID } from 'node:crypto';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { parseCheckpointText } from '#verify/checks/checkpoint';
import { parseNote } from '#verify/checks/note';
import { runMonitor, type MonitorState } from '#verify/node/monitor';
import { parseVerifierKey, verifyEvidence, verifyNote } from '../../functions/domain/ledger/node-crypto';
import type { RecordHead } from '../../functions/domain/record';
import { LOOK_AT_LEAST_EVERY_MS, PendingLooks, STREAM_BEHIND_MS } from '../../functions/ledger-writer/pending-age';
import { formatSignerKey, signerFromKey, SigningKeyError, type CheckpointSigner } from '../../functions/ledger-writer/signer';
import type { TileStore } from '../../functions/ledger-writer/tile-store';
import { inProcessParts } from '../../functions/ledger-writer/parts';
import { memoryJournalChunks } from '../../functions/store/memory/ledger';
import type { MemoryStores } from '../../functions/store/memory';
import type * as SequenceEvents from '../../functions/handlers/sequence-events';
import { buildEvent } from '../../lib/ingress/emit';
import { readEmfLine } from '../support/emf';
import { collectLogLines, loadedWithLogLevel } from '../support/log-lines';
import { claimAccepted, sequencingOf, wholeRecord } from '../support/stores';

/**
 * One run of the sequencer's Lambda (functions/handlers/sequence-events.ts runSequencer), on the
 * stores in memory (functions/store/memory/): woken by a stream batch or a schedule, it integrates
 * what waits through the ledger's one writer path, one signature a batch; a key that fails, a
 * lease held by a load, too little time left and a pending store that does not answer each end
 * the run as documented (docs/ingress.md#the-sequencer-on-aws), and the age of what still waits
 * is published as the alarm reads it. The same handler against DynamoDB, S3 and KMS stand-ins, as
 * the stack configures it: test/integration/sequencer-lambda.test.ts.
 */
const ANCHOR = new Date('2026-11-20T12:00:00.000Z');
const ORIGIN = 'sequencer-run.test/ledger';
const TABLE = 'sequencer-run';
const CREDENTIAL = DEMO_CREDENTIALS.active;
const REFERENCES: readonly string[] = [DEMO_OBJECTS.current, CREDENTIAL, DEMO_PROOFS.current];
const MINUTE = 60_000;
const iso = (offsetMs: number) => new Date(ANCHOR.getTime() + offsetMs).toISOString();
const key = signerFromKey(formatSignerKey(ORIGIN, Buffer.alloc(32, 31)));

/** The handler module, the stores and the loader from one module registry (the handler checks errors the stores throw with instanceof), its logger at INFO. */
const loaded = loadedWithLogLevel('INFO', () => ({
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  events: require('../../functions/handlers/sequence-events') as typeof SequenceEvents,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  memoryStores: (require('../../functions/store/memory') as typeof import('../../functions/store/memory')).memoryStores,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  memoryTileStore: (require('../../functions/ledger-writer/tile-store') as typeof import('../../functions/ledger-writer/tile-store')).memoryTileStore,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  loadDocument: (require('../../lib/loader/load') as typeof import('../../lib/loader/load')).loadDocument,
}));

/** A key that signs as the key file does, and fails when told (as KMS answering 500 does), counting the signatures asked for. */
const signing = { failing: false, signed: 0 };
const signer: CheckpointSigner = {
  ...key,
  async signNoteAsync(text) {
    if (signing.failing) throw new SigningKeyError(`AWS KMS Sign for the ledger key test-key failed: 500`);
    signing.signed++;
    return key.signNoteAsync(text);
  },
};
/** The key's public half, asked for once per execution environment; unreadable while `publicHalfFails`. */
let publicHalfFails = false;
let publicHalfAsked = 0;

let stores: MemoryStores;
let tiles: TileStore;
let environment: SequenceEvents.SequencerEnvironment;
let monitorState: MonitorState | null = null;
const monitorLeaves: Buffer[] = [];
let treeSize: number;
const logLines: Array<Record<string, unknown>> = [];
const metricLines: string[][] = [];

/** How far the environments' clock for looks at the index runs ahead of the real one. */
let looksClockAhead = 0;

/** An execution environment: its signer made on first use, asked again after a failure. */
function newEnvironment(): SequenceEvents.SequencerEnvironment {
  let made: Promise<CheckpointSigner> | undefined;
  return {
    table: TABLE,
    stores,
    tiles,
    looks: new PendingLooks(() => Date.now() + looksClockAhead),
    signer: () =>
      (made ??= (async () => {
        publicHalfAsked++;
        if (publicHalfFails) throw new SigningKeyError('AWS KMS GetPublicKey for the ledger key test-key failed: 500');
        return signer;
      })().catch((error: unknown) => {
        made = undefined;
        throw error;
      })),
  };
}

function lambdaContext(remainingMs = 60_000): Pick<Context, 'getRemainingTimeInMillis'> {
  const deadline = Date.now() + remainingMs;
  return { getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
}

async function invoke(event: SequenceEvents.SequencerEvent, context = lambdaContext(), env = environment): Promise<SequenceEvents.SequencerSummary> {
  const collected = collectLogLines();
  try {
    return await loaded.events.runSequencer(env, event, context);
  } finally {
    collected.restore();
    logLines.push(...collected.lines);
    metricLines.push(collected.emf);
  }
}

const scheduledEvent = (): ScheduledEvent => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '111122223333',
  time: new Date().toISOString(),
  region: 'eu-central-1',
  resources: ['arn:aws:events:eu-central-1:111122223333:rule/TrustStack-SequencerSchedule'],
  detail: {},
});

/** The stream batch Lambda hands over for these new waiting events (their keys; the image is not read). */
const streamEvent = (keys: readonly string[]): SequenceEvents.SequencerEvent => ({ Records: keys.map((k) => ({ eventName: 'INSERT', dynamodb: { Keys: { pk: { S: k } } } })) });

let received = 0;
/** Stores an accepted event as a receiver does, received now unless told; its key. */
async function deliver(type: string, reference: string, fields: Record<string, string>, at: string, receivedAt = new Date()): Promise<string> {
  return claimAccepted(stores.pending, { webhookId: `delivery-${received++}`, raw: JSON.stringify(buildEvent(type, reference, fields, at)), receivedAt: receivedAt.toISOString() });
}

const sequencing = (keys: readonly string[]) => sequencingOf(stores.pending, keys);

async function newestHead(reference: string): Promise<RecordHead<Record<string, unknown>>> {
  const entries = (await wholeRecord(stores.records, reference))!;
  return entries[entries.length - 1].head as RecordHead<Record<string, unknown>>;
}

function expectEvidenceOf(head: RecordHead<Record<string, unknown>>): void {
  expect(head.evidence?.version).toBe(head.version);
  expect({ reference: head.reference, ...verifyEvidence(head.content, head.evidence as never, [signer.verifierKey]) }).toMatchObject({ reference: head.reference, ok: true });
}

/** What every successful batch leaves: the head's checkpoint signed by the key, and the same checkpoint atop a tile log an independent monitor verifies as an extension of what it verified before. */
async function expectPublishedBy(expectedSize: number): Promise<void> {
  const head = (await stores.ledger.lock.read())!;
  expect({ treeSize: head.treeSize, lock: head.lock }).toEqual({ treeSize: expectedSize, lock: null });
  const verifierKey = parseVerifierKey(signer.verifierKey);
  expect(verifyNote(head.checkpoint!, [verifierKey])).toMatchObject({ ok: true });
  const published = (await tiles.read('checkpoint'))!.toString('utf8');
  expect(published).toBe(head.checkpoint);
  expect(parseCheckpointText(parseNote(published).text)).toMatchObject({ origin: ORIGIN, treeSize: expectedSize });
  const report = await runMonitor({ fetch: (p) => tiles.read(p), logKeys: [verifierKey], state: monitorState, leaves: monitorLeaves, onLeaves: (l) => void monitorLeaves.push(...l) });
  expect(report.problem).toBeNull();
  expect(report.treeSize).toBe(expectedSize);
  monitorState = report.state;
}

beforeAll(async () => {
  stores = loaded.memoryStores();
  tiles = loaded.memoryTileStore();
  const document = demoDocument(ANCHOR);
  document.records = (document.records as Array<{ reference: string }>).filter((r) => REFERENCES.includes(r.reference));
  const summary = await loaded.loadDocument(document, { stores, signer: key, tiles });
  treeSize = summary.ledger!.treeSize;
  await expectPublishedBy(treeSize);
  environment = newEnvironment();
});

describe('one execution environment', () => {
  it('a stream batch of new waiting events: each is integrated, with one signature for the batch', async () => {
    const keys = [
      await deliver('svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' }, iso(11 * MINUTE)),
      await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(12 * MINUTE)),
      await deliver('svc.commercial-proof.source-snapshot.v1', DEMO_PROOFS.current, { sourceState: 'DELIVERED' }, iso(13 * MINUTE)),
    ];
    signing.signed = 0;
    logLines.length = 0;
    const summary = await invoke(streamEvent(keys));
    expect(summary).toMatchObject({ batches: 1, deliveries: 3, sequenced: 3, setAside: 0 });
    expect(await sequencing(keys)).toEqual(['SEQUENCED', 'SEQUENCED', 'SEQUENCED']);
    expect([signing.signed, publicHalfAsked]).toEqual([1, 1]);
    expect((await newestHead(DEMO_OBJECTS.current)).content).toMatchObject({ state: 'RETURNED' });
    expect((await newestHead(CREDENTIAL)).content).toMatchObject({ status: 'SUSPENDED' });
    for (const reference of REFERENCES) expectEvidenceOf(await newestHead(reference));
    expect(summary.treeSize).toBe(treeSize + summary.appended);
    treeSize = summary.treeSize!;
    await expectPublishedBy(treeSize);
    expect(logLines.find((l) => l.message === 'sequenced')).toMatchObject({ level: 'INFO', trigger: 'stream', sequenced: 3, batches: 1 });
  });

  it('a scheduled event: what waits is integrated; the key\'s public half is not asked again', async () => {
    const keys = [
      await deliver('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso(14 * MINUTE)),
      await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(15 * MINUTE)),
    ];
    signing.signed = 0;
    logLines.length = 0;
    const summary = await invoke(scheduledEvent());
    expect(summary).toMatchObject({ batches: 1, deliveries: 2, sequenced: 2, setAside: 0 });
    expect(await sequencing(keys)).toEqual(['SEQUENCED', 'SEQUENCED']);
    expect([signing.signed, publicHalfAsked]).toEqual([1, 1]);
    expectEvidenceOf(await newestHead(CREDENTIAL));
    treeSize = summary.treeSize!;
    await expectPublishedBy(treeSize);
    expect(logLines.find((l) => l.message === 'sequenced')).toMatchObject({ trigger: 'schedule', sequenced: 2 });
  });

  it('a stream batch soon after a look takes the stream\'s keys alone, asks the index nothing and publishes no figure; the first one after LOOK_AT_LEAST_EVERY_MS looks too', async () => {
    const asked: string[] = [];
    const pending = Object.assign(Object.create(stores.pending) as typeof stores.pending, {
      listWaiting: (limit: number) => (asked.push('listWaiting'), stores.pending.listWaiting(limit)),
      oldestWaitingSince: () => (asked.push('oldestWaitingSince'), stores.pending.oldestWaitingSince()),
    });
    const counting: SequenceEvents.SequencerEnvironment = { ...environment, stores: { ...stores, pending } };
    // A straggler: waiting, but in no stream batch (as if its batch had failed for good).
    const straggler = await deliver('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso(15 * MINUTE + 10_000));
    const streamed = await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(15 * MINUTE + 20_000));
    const metricsBefore = metricLines.length;
    const quick = await invoke(streamEvent([streamed]), lambdaContext(), counting);
    expect(quick).toMatchObject({ batches: 1, deliveries: 1, sequenced: 1 });
    expect(await sequencing([straggler, streamed])).toEqual(['PENDING', 'SEQUENCED']);
    expect(asked).toEqual([]);
    expect(metricLines.slice(metricsBefore)).toEqual([[]]);

    looksClockAhead += LOOK_AT_LEAST_EVERY_MS;
    const next = await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(15 * MINUTE + 30_000));
    const due = await invoke(streamEvent([next]), lambdaContext(), counting);
    expect(due).toMatchObject({ batches: 1, deliveries: 2, sequenced: 2 });
    expect(await sequencing([straggler, next])).toEqual(['SEQUENCED', 'SEQUENCED']);
    // One look filled the batch and, the batch not full, says nothing else waits: the figure is 0 without asking again.
    expect(asked).toEqual(['listWaiting']);
    expect(readEmfLine(metricLines[metricLines.length - 1][0])[0].values).toEqual([0]);
    treeSize = due.treeSize!;
    await expectPublishedBy(treeSize);
  });

  it('a stream batch whose records waited more than STREAM_BEHIND_MS (the sequencer behind) looks too, though a look was just made; one made just now does not, nor one already half a full batch', async () => {
    const asked: string[] = [];
    const pending = Object.assign(Object.create(stores.pending) as typeof stores.pending, {
      listWaiting: (limit: number) => (asked.push('listWaiting'), stores.pending.listWaiting(limit)),
    });
    const counting: SequenceEvents.SequencerEnvironment = { ...environment, stores: { ...stores, pending } };
    // Stamped as DynamoDB Streams stamps a record: whole seconds since the epoch.
    const madeAgo = (keys: readonly string[], ms: number): SequenceEvents.SequencerEvent => ({
      Records: streamEvent(keys).Records!.map((r) => ({ ...r, dynamodb: { ...r.dynamodb, ApproximateCreationDateTime: Math.floor((Date.now() - ms) / 1000) } })),
    });
    // Another shard's events, waiting in the index but not in this stream batch.
    const elsewhere = await deliver('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso(15 * MINUTE + 40_000));
    const fresh = await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(15 * MINUTE + 45_000));
    expect(await invoke(madeAgo([fresh], 0), lambdaContext(), counting)).toMatchObject({ deliveries: 1, sequenced: 1 });
    expect(asked).toEqual([]);
    expect(await sequencing([elsewhere, fresh])).toEqual(['PENDING', 'SEQUENCED']);

    const late = await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(15 * MINUTE + 50_000));
    const behind = await invoke(madeAgo([late], STREAM_BEHIND_MS + 2_000), lambdaContext(), counting);
    expect(behind).toMatchObject({ batches: 1, deliveries: 2, sequenced: 2 });
    expect(asked).toEqual(['listWaiting']);
    expect(await sequencing([elsewhere, late])).toEqual(['SEQUENCED', 'SEQUENCED']);

    // Behind, but already half a full batch or more (a shard of its own, say): taken as it is, the index not asked.
    // A batch of 4 at most here: one part writer (in this process) of 4 events.
    const fourAtMost = { ...counting, parts: inProcessParts({ records: stores.records, pending: stores.pending, journal: memoryJournalChunks(stores, stores.ledger.storedChunks), tiles }, { eventsPerPart: 4, maxParts: 1 }) };
    const straggler = await deliver('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso(15 * MINUTE + 52_000));
    const halfFull = [
      await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(15 * MINUTE + 54_000)),
      await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(15 * MINUTE + 56_000)),
    ];
    asked.length = 0;
    expect(await invoke(madeAgo(halfFull, STREAM_BEHIND_MS + 2_000), lambdaContext(), fourAtMost)).toMatchObject({ batches: 1, deliveries: 2, sequenced: 2 });
    expect(asked).toEqual([]);
    expect(await sequencing([straggler, ...halfFull])).toEqual(['PENDING', 'SEQUENCED', 'SEQUENCED']);
    const tick = await invoke(scheduledEvent());
    expect(tick).toMatchObject({ deliveries: 1, sequenced: 1 });
    treeSize = tick.treeSize!;
    await expectPublishedBy(treeSize);
  });

  it('nothing waiting: a tick signs nothing and changes nothing', async () => {
    signing.signed = 0;
    const summary = await invoke(scheduledEvent());
    expect(summary).toEqual({ batches: 0, deliveries: 0, sequenced: 0, setAside: 0, appended: 0, treeSize: null });
    expect(signing.signed).toBe(0);
    expect((await stores.ledger.lock.read())!.treeSize).toBe(treeSize);
  });

  it('the key failing to sign: the run fails and logs why, the events stay pending and nothing is published; the next run integrates them', async () => {
    const keys = [await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(16 * MINUTE))];
    const checkpoint = (await tiles.read('checkpoint'))!.toString('utf8');
    logLines.length = 0;
    signing.failing = true;
    try {
      await expect(invoke(streamEvent(keys))).rejects.toThrow(/AWS KMS Sign for the ledger key .* failed/);
    } finally {
      signing.failing = false;
    }
    expect(await sequencing(keys)).toEqual(['PENDING']);
    // Nothing published, and the lease released: the next run need not wait for it to run out.
    const head = (await stores.ledger.lock.read())!;
    expect({ treeSize: head.treeSize, lock: head.lock }).toEqual({ treeSize, lock: null });
    expect((await tiles.read('checkpoint'))!.toString('utf8')).toBe(checkpoint);
    expect(logLines.find((l) => l.message === 'sequencer run failed; deliveries stay pending')).toMatchObject({ level: 'ERROR' });

    signing.signed = 0;
    const summary = await invoke(scheduledEvent());
    expect(summary).toMatchObject({ batches: 1, deliveries: 1, sequenced: 1 });
    expect(signing.signed).toBe(1);
    expect(await sequencing(keys)).toEqual(['SEQUENCED']);
    expectEvidenceOf(await newestHead(CREDENTIAL));
    treeSize = summary.treeSize!;
    await expectPublishedBy(treeSize);
  });

  it('the ledger lease held by another writer (a load): the run returns normally and logs it; the events stay pending until the lease is free', async () => {
    const keys = [await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(17 * MINUTE))];
    await stores.ledger.lock.acquire('a-load', { at: new Date().toISOString(), leaseMs: 3_600_000 });
    signing.signed = 0;
    logLines.length = 0;
    try {
      const summary = await invoke(streamEvent(keys));
      expect(summary).toEqual({ batches: 0, deliveries: 0, sequenced: 0, setAside: 0, appended: 0, treeSize: null });
      expect(logLines.find((l) => l.message === 'ledger held by another writer; deliveries stay pending')).toMatchObject({ level: 'INFO', until: expect.any(String) });
      expect(signing.signed).toBe(0);
      expect(await sequencing(keys)).toEqual(['PENDING']);
      expect((await stores.ledger.lock.read())!).toMatchObject({ treeSize, lock: { id: 'a-load' } });
    } finally {
      await stores.ledger.lock.release('a-load');
    }
    const summary = await invoke(scheduledEvent());
    expect(summary).toMatchObject({ batches: 1, sequenced: 1 });
    expect(await sequencing(keys)).toEqual(['SEQUENCED']);
    treeSize = summary.treeSize!;
    await expectPublishedBy(treeSize);
  });

  it('too little time left for a batch: the run starts none, and the events wait for the next', async () => {
    const keys = [await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(18 * MINUTE))];
    signing.signed = 0;
    const summary = await invoke(streamEvent(keys), lambdaContext(19_000));
    expect(summary.batches).toBe(0);
    expect(signing.signed).toBe(0);
    expect(await sequencing(keys)).toEqual(['PENDING']);
    expect((await invoke(scheduledEvent())).sequenced).toBe(1);
    expect(await sequencing(keys)).toEqual(['SEQUENCED']);
    treeSize = (await stores.ledger.lock.read())!.treeSize;
    await expectPublishedBy(treeSize);
  });
});

describe('a new execution environment while the key cannot be read', () => {
  it('its public half unreadable: the run fails and nothing is integrated; the next run asks again and integrates', async () => {
    const keys = [await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(19 * MINUTE))];
    const cold = newEnvironment();
    publicHalfAsked = 0;
    publicHalfFails = true;
    try {
      await expect(invoke(scheduledEvent(), lambdaContext(), cold)).rejects.toThrow(/AWS KMS GetPublicKey for the ledger key .* failed/);
    } finally {
      publicHalfFails = false;
    }
    expect(await sequencing(keys)).toEqual(['PENDING']);
    expect((await stores.ledger.lock.read())!).toMatchObject({ treeSize, lock: null });
    const summary = await invoke(scheduledEvent(), lambdaContext(), cold);
    expect(summary).toMatchObject({ batches: 1, sequenced: 1 });
    expect(publicHalfAsked).toBe(2);
    expect(await sequencing(keys)).toEqual(['SEQUENCED']);
    treeSize = summary.treeSize!;
    await expectPublishedBy(treeSize);
  });
});

/**
 * The figure behind the stuck-sequencer alarm, as CloudWatch gets it: the one embedded-metric-format
 * line a run writes, read by the specification's rules (test/support/emf.ts), with the namespace,
 * name and dimensions the stack's alarm reads (test/infra/alarms.test.ts holds the alarm to them).
 */
describe('the oldest pending event\'s age, in CloudWatch embedded metric format', () => {
  function publishedAge(lines: string[]): number {
    expect(lines).toHaveLength(1);
    const metrics = readEmfLine(lines[0]);
    expect(metrics).toEqual([
      {
        namespace: 'PublicTrustVerificationService',
        name: 'OldestPendingEventAge',
        unit: 'Seconds',
        values: [expect.any(Number)],
        dimensionSets: [{ service: 'public-trust-verification-service', TableName: TABLE }],
        timestamp: expect.any(Number),
      },
    ]);
    expect(Math.abs(metrics[0].timestamp - Date.now())).toBeLessThan(60_000);
    return metrics[0].values[0];
  }

  async function invokeMeasuring(event: SequenceEvents.SequencerEvent, receivedAt: Date, context?: Pick<Context, 'getRemainingTimeInMillis'>) {
    const before = Date.now();
    const outcome = await invoke(event, context).then(
      (summary) => ({ summary, error: null }),
      (error: unknown) => ({ summary: null, error }),
    );
    const after = Date.now();
    return { ...outcome, age: publishedAge(metricLines[metricLines.length - 1]), min: (before - receivedAt.getTime()) / 1000, max: (after - receivedAt.getTime()) / 1000 };
  }

  it('nothing waiting: 0, from the run\'s own look at what waits', async () => {
    expect((await invoke(scheduledEvent())).batches).toBe(0);
    expect(publishedAge(metricLines[metricLines.length - 1])).toBe(0);
  });

  it('an event held back 7 minutes by a load\'s lease: its age, above the alarm\'s 300 s; once integrated, 0', async () => {
    const receivedAt = new Date(Date.now() - 7 * MINUTE);
    const keys = [await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(20 * MINUTE), receivedAt)];
    await stores.ledger.lock.acquire('a-long-load', { at: new Date().toISOString(), leaseMs: 3_600_000 });
    try {
      const held = await invokeMeasuring(scheduledEvent(), receivedAt);
      expect(held.summary).toMatchObject({ batches: 0, sequenced: 0 });
      expect(held.age).toBeGreaterThanOrEqual(held.min);
      expect(held.age).toBeLessThanOrEqual(held.max);
      expect(held.age).toBeGreaterThan(300);
      expect(await sequencing(keys)).toEqual(['PENDING']);
    } finally {
      await stores.ledger.lock.release('a-long-load');
    }
    expect(await invoke(scheduledEvent())).toMatchObject({ batches: 1, sequenced: 1 });
    expect(publishedAge(metricLines[metricLines.length - 1])).toBe(0);
  });

  it('a run that fails (the key failing to sign): the age of what it left pending, and the run still fails as it did', async () => {
    const receivedAt = new Date(Date.now() - 2 * MINUTE);
    const keys = [await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(21 * MINUTE), receivedAt)];
    signing.failing = true;
    let failed;
    try {
      failed = await invokeMeasuring(streamEvent(keys), receivedAt);
    } finally {
      signing.failing = false;
    }
    expect(String(failed.error)).toMatch(/AWS KMS Sign for the ledger key .* failed/);
    expect(failed.age).toBeGreaterThanOrEqual(failed.min);
    expect(failed.age).toBeLessThanOrEqual(failed.max);
    expect(await sequencing(keys)).toEqual(['PENDING']);
    expect(await invoke(scheduledEvent())).toMatchObject({ sequenced: 1 });
    expect(publishedAge(metricLines[metricLines.length - 1])).toBe(0);
  });

  it('the older of two waiting events is the one measured', async () => {
    const older = new Date(Date.now() - 4 * MINUTE);
    const keys = [
      await deliver('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso(22 * MINUTE), new Date(Date.now() - MINUTE)),
      await deliver('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso(23 * MINUTE), older),
    ];
    // Too little time left for a batch: nothing is integrated, and the pending store is asked for its oldest.
    const late = await invokeMeasuring(scheduledEvent(), older, lambdaContext(19_000));
    expect(late.summary).toMatchObject({ batches: 0 });
    expect(late.age).toBeGreaterThanOrEqual(late.min);
    expect(late.age).toBeLessThanOrEqual(late.max);
    expect(await invoke(scheduledEvent())).toMatchObject({ sequenced: 2 });
    expect(await sequencing(keys)).toEqual(['SEQUENCED', 'SEQUENCED']);
    expect(publishedAge(metricLines[metricLines.length - 1])).toBe(0);
  });

  it('the pending store not answering for the measurement: no figure (the alarm counts the silence), a warning, and the run\'s own outcome unchanged', async () => {
    const pending = Object.assign(Object.create(stores.pending) as typeof stores.pending, { oldestWaitingSince: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9')) });
    const unreachable: SequenceEvents.SequencerEnvironment = { ...environment, stores: { ...stores, pending } };
    logLines.length = 0;
    // Too little time left for a batch: the run itself asks nothing of the stores.
    const summary = await invoke(scheduledEvent(), lambdaContext(19_000), unreachable);
    expect(summary).toEqual({ batches: 0, deliveries: 0, sequenced: 0, setAside: 0, appended: 0, treeSize: null });
    expect(metricLines[metricLines.length - 1]).toEqual([]);
    expect(logLines.find((l) => l.message === 'oldest pending event age not measured')).toMatchObject({ level: 'WARN' });
  });
});
