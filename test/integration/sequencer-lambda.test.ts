import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { parseCheckpointText } from '#verify/checks/checkpoint';
import { parseNote } from '#verify/checks/note';
import { parseVerifierKey, verifyEvidence, verifyNote } from '../../functions/domain/ledger/node-crypto';
import type { RecordHead } from '../../functions/domain/record';
import type { handler as sequencerHandler, SequencerEvent } from '../../functions/handlers/sequence-events';
import { kmsCheckpointSigner } from '../../functions/ledger-writer/kms-signer';
import type { TileStore } from '../../functions/ledger-writer/tile-store';
import type { TableStores } from '../../functions/store/dynamodb';
import { namedOfStream } from '../../functions/store/dynamodb/pending';
import { buildEvent } from '../../lib/ingress/emit';
import { runMonitor, type MonitorState } from '#verify/node/monitor';
import { SERVICE_NAME } from '../../functions/contract/service';
import { PENDING_AGE_METRIC } from '../../functions/ledger-writer/pending-age';
import type { KmsStandIn } from '../../lib/local/kms-stand-in';
import { readEmfLine } from '../support/emf';
import { collectLogLines } from '../support/log-lines';
import { lambdaContext as sequencerContext, startSequencerStand, streamEvent as streamEventOf, type SequencerStand } from '../support/sequencer-lambda';
import { claimAccepted, sequencingOf, wholeRecord } from '../support/stores';


/**
 * The sequencer Lambda's handler, run as Lambda runs it: invoked with a DynamoDB stream batch and
 * with an EventBridge scheduled event, configured only through its environment, its SDK clients
 * pointed by the SDK's own endpoint variables at dynalite (the table), s3rver (the tile log) and a
 * stand-in speaking the KMS JSON protocol (the checkpoint key; there is no local KMS). The table was
 * loaded by the loader with the same KMS key, so the log the handler extends is that key's. What a
 * run does in every other case (a lease held, too little time, the age of what waits in each
 * outcome) is the same code on the stores in memory: test/unit/sequencer-run.test.ts.
 */
const ANCHOR = new Date('2026-11-20T12:00:00.000Z');
const TABLE = 'sequencer-lambda';
const BUCKET = 'catalogue-test';
const ORIGIN = 'sequencer-lambda.test/ledger';
const REGION = 'eu-central-1';
const PLACE = { table: TABLE, region: REGION };
const CREDENTIAL = DEMO_CREDENTIALS.active;
const REFERENCES: readonly string[] = [DEMO_OBJECTS.current, CREDENTIAL, DEMO_PROOFS.current];
const MINUTE = 60_000;
const iso = (offsetMs: number) => new Date(ANCHOR.getTime() + offsetMs).toISOString();

let stand: SequencerStand;
let client: DynamoDBClient;
let stores: TableStores;
let kms: KmsStandIn;
let tiles: TileStore;
/** What an independent monitor verified of the tile log so far: each check proves the new log extends it. */
let monitorState: MonitorState | null = null;
const monitorLeaves: Buffer[] = [];

type Handler = typeof sequencerHandler;

/** Log lines the handler's logger wrote (JSON, one a line). */
const logLines: Array<Record<string, unknown>> = [];
/** The embedded-metric-format lines each invocation wrote to standard output, one array per invocation. */
const metricLines: string[][] = [];

/**
 * The handler module as a new execution environment loads it (its signer and clients not yet
 * made), with its logger at INFO so what it logs can be read back.
 */
function coldHandler(): Handler {
  let loaded!: Handler;
  const level = process.env.POWERTOOLS_LOG_LEVEL;
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  jest.isolateModules(() => {
    loaded = (require('../../functions/handlers/sequence-events') as { handler: Handler }).handler;
  });
  process.env.POWERTOOLS_LOG_LEVEL = level;
  return loaded;
}

/** A Lambda context whose deadline is `remainingMs` from now (the function's timeout is 60 s). */
const lambdaContext = (remainingMs = 60_000): Context => sequencerContext(PLACE, 'Sequencer', { remainingMs });

/**
 * Runs the handler, keeping the log lines it writes (the logger writes INFO to stdout, WARN and
 * ERROR to stderr) and the metric lines Powertools Metrics writes to stdout.
 */
async function invoke(handler: Handler, event: SequencerEvent, context: Context = lambdaContext()): ReturnType<Handler> {
  const collected = collectLogLines();
  try {
    return await handler(event, context);
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
  region: REGION,
  resources: [`arn:aws:events:${REGION}:111122223333:rule/TrustStack-SequencerSchedule`],
  detail: {},
});

const streamEvent = (keys: readonly string[]) => streamEventOf(client, PLACE, keys);

let received = 0;
/** Stores an accepted event as a receiver does (waiting for the sequencer), received now unless told; its key. */
async function deliver(id: string, type: string, reference: string, fields: Record<string, string>, at: string, receivedAt = new Date()): Promise<string> {
  return claimAccepted(stores.pending, { webhookId: id, raw: JSON.stringify(buildEvent(type, reference, fields, at, `event-${id}-${received++}`)), receivedAt: receivedAt.toISOString() });
}

const sequencing = (keys: readonly string[]) => sequencingOf(stores.pending, keys);
const readLedgerHead = () => stores.ledger.lock.read();

async function newestHead(reference: string): Promise<RecordHead<Record<string, unknown>>> {
  const entries = (await wholeRecord(stores.records, reference))!;
  return entries[entries.length - 1].head as RecordHead<Record<string, unknown>>;
}

const signs = () => kms.requests.filter((r) => r.target === 'TrentService.Sign');

/**
 * What every successful batch must leave: the head's checkpoint signed by the KMS key and the same
 * checkpoint in the bucket's tile log, which an independent monitor verifies entry by entry and
 * as an extension of what it verified before.
 */
async function expectPublishedBy(expectedSize: number): Promise<string> {
  const head = (await readLedgerHead())!;
  expect({ treeSize: head.treeSize, lock: head.lock }).toEqual({ treeSize: expectedSize, lock: null });
  const key = parseVerifierKey(kms.verifierKey(ORIGIN));
  expect(verifyNote(head.checkpoint!, [key])).toMatchObject({ ok: true });
  const published = (await tiles.read('checkpoint'))!.toString('utf8');
  expect(published).toBe(head.checkpoint);
  expect(parseCheckpointText(parseNote(published).text)).toMatchObject({ origin: ORIGIN, treeSize: expectedSize });
  const report = await runMonitor({ fetch: (p) => tiles.read(p), logKeys: [key], state: monitorState, leaves: monitorLeaves, onLeaves: (l) => void monitorLeaves.push(...l) });
  expect(report.problem).toBeNull();
  expect(report.treeSize).toBe(expectedSize);
  monitorState = report.state;
  return published;
}

/** Each record's newest version carries evidence of that very version that verifies with the KMS key's verifier key. */
function expectEvidenceOf(head: RecordHead<Record<string, unknown>>): void {
  expect(head.evidence?.version).toBe(head.version);
  expect({ reference: head.reference, ...verifyEvidence(head.content, head.evidence!, [kms.verifierKey(ORIGIN)]) }).toMatchObject({ reference: head.reference, ok: true });
}

let treeSize: number;

beforeAll(async () => {
  stand = await startSequencerStand({ ...PLACE, bucket: BUCKET, origin: ORIGIN });
  ({ kms, client, stores, tiles } = stand);
  // The handler's environment as the stack sets it, plus the SDK's endpoint variables for the local parts.
  Object.assign(process.env, stand.environment);

  // The loader, signing with the same KMS key (through the real SDK client), writes the table and the bucket's tile log.
  expect((await kmsCheckpointSigner({ keyId: kms.keyId, origin: ORIGIN })).verifierKey).toBe(kms.verifierKey(ORIGIN));
  const summary = await stand.loadDemo(REFERENCES, ANCHOR);
  treeSize = summary.ledger!.treeSize;
  expect(treeSize).toBeGreaterThan(0);
  await expectPublishedBy(treeSize);
}, 60_000);

afterAll(async () => {
  await stand?.close();
});

describe('a setting missing from the environment', () => {
  let keys: string[];
  beforeAll(async () => {
    keys = [await deliver('early-0', 'svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'SHIPPED' }, iso(10 * MINUTE))];
  });

  it.each(['TABLE_NAME', 'LEDGER_ORIGIN', 'LEDGER_KMS_KEY_ARN', 'LEDGER_TILES_BUCKET'])('%s: the run fails naming it, before any call to AWS, and the delivery stays pending', async (name) => {
    const saved = process.env[name];
    kms.requests.length = 0;
    // A call started before the failure (the key's public half) would still reach the stand-in, and its rejection go unhandled.
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const value of [undefined, '']) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
        await expect(invoke(coldHandler(), scheduledEvent())).rejects.toThrow(new RegExp(`^${name} is not set: the sequencer cannot run`));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      process.env[name] = saved;
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    expect(kms.requests).toEqual([]);
    // A sequencer that cannot run publishes no figure: its alarm counts the silence (docs/deploy.md#operating).
    expect(metricLines.slice(-2)).toEqual([[], []]);
    expect(await sequencing(keys)).toEqual(['PENDING']);
    expect((await readLedgerHead())!.treeSize).toBe(treeSize);
  });

  it('a run configured again takes what waited (the proof the delivery above was integrable)', async () => {
    const summary = await invoke(coldHandler(), scheduledEvent());
    expect(summary).toMatchObject({ batches: 1, deliveries: 1, sequenced: 1, setAside: 0 });
    expect(await sequencing(keys)).toEqual(['SEQUENCED']);
    treeSize = summary.treeSize!;
    expect(summary.appended).toBeGreaterThan(0);
    await expectPublishedBy(treeSize);
  });
});

describe('one execution environment, invoked as Lambda invokes it', () => {
  let handler: Handler;
  beforeAll(() => {
    handler = coldHandler();
  });

  it('a stream batch of new pending items: each is integrated, with one KMS signature for the batch', async () => {
    const keys = [
      await deliver('stream-0', 'svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'SHIPPED', state: 'DELIVERED' }, iso(11 * MINUTE)),
      await deliver('stream-1', 'svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(12 * MINUTE)),
      await deliver('stream-2', 'svc.commercial-proof.source-snapshot.v1', DEMO_PROOFS.current, { sourceState: 'DELIVERED' }, iso(13 * MINUTE)),
    ];
    kms.requests.length = 0;
    logLines.length = 0;
    const stream = await streamEvent(keys);
    // The records its images name, whose geneses the batch reads with the events; an image that is not an event's names none.
    expect(namedOfStream(stream.Records as never)).toEqual([DEMO_OBJECTS.current, CREDENTIAL, DEMO_PROOFS.current]);
    expect(namedOfStream([{ eventName: 'INSERT', dynamodb: { Keys: { pk: { S: 'P#x' } }, NewImage: { pk: { S: 'P#x' }, event: { S: '{' } } } }, { eventName: 'MODIFY', dynamodb: stream.Records[0].dynamodb as never }])).toEqual([]);
    const summary = await invoke(handler, stream);

    expect(summary).toMatchObject({ batches: 1, deliveries: 3, sequenced: 3, setAside: 0 });
    expect(await sequencing(keys)).toEqual(['SEQUENCED', 'SEQUENCED', 'SEQUENCED']);
    // A new execution environment asks for the public half once; the batch is one RAW, pure Ed25519 signature.
    expect(kms.requests.map((r) => r.target)).toEqual(['TrentService.GetPublicKey', 'TrentService.Sign']);
    expect(signs()[0].body).toMatchObject({ KeyId: kms.keyId, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' });
    expect(Buffer.from(signs()[0].body.Message, 'base64').toString('utf8').startsWith(`${ORIGIN}\n${summary.treeSize}\n`)).toBe(true);

    const object = await newestHead(DEMO_OBJECTS.current);
    const credential = await newestHead(CREDENTIAL);
    const proof = await newestHead(DEMO_PROOFS.current);
    expect(object.content).toMatchObject({ state: 'DELIVERED' });
    expect(credential.content).toMatchObject({ status: 'SUSPENDED' });
    for (const head of [object, credential, proof]) expectEvidenceOf(head);
    expect(summary.treeSize).toBe(treeSize + summary.appended);
    treeSize = summary.treeSize!;
    await expectPublishedBy(treeSize);
    expect(logLines.find((l) => l.message === 'sequenced')).toMatchObject({ level: 'INFO', trigger: 'stream', sequenced: 3, batches: 1 });
  });

  it('a scheduled event: what waits in the pending index is integrated; the key is not asked again', async () => {
    const keys = [
      await deliver('tick-0', 'svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'DELIVERED' }, iso(14 * MINUTE)),
      await deliver('tick-1', 'svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(15 * MINUTE)),
    ];
    kms.requests.length = 0;
    logLines.length = 0;
    const summary = await invoke(handler, scheduledEvent());

    expect(summary).toMatchObject({ batches: 1, deliveries: 2, sequenced: 2, setAside: 0 });
    expect(await sequencing(keys)).toEqual(['SEQUENCED', 'SEQUENCED']);
    expect(kms.requests.map((r) => r.target)).toEqual(['TrentService.Sign']);
    expect(signs()[0].body).toMatchObject({ KeyId: kms.keyId, MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' });
    const credential = await newestHead(CREDENTIAL);
    expect(credential.content).toMatchObject({ status: 'ACTIVE' });
    expectEvidenceOf(credential);
    expectEvidenceOf(await newestHead(DEMO_OBJECTS.current));
    treeSize = summary.treeSize!;
    await expectPublishedBy(treeSize);
    expect(logLines.find((l) => l.message === 'sequenced')).toMatchObject({ trigger: 'schedule', sequenced: 2 });
  });

  it('nothing waiting: a tick signs nothing and changes nothing', async () => {
    kms.requests.length = 0;
    const summary = await invoke(handler, scheduledEvent());
    expect(summary).toEqual({ batches: 0, deliveries: 0, sequenced: 0, setAside: 0, appended: 0, treeSize: null });
    expect(kms.requests).toEqual([]);
    expect((await readLedgerHead())!.treeSize).toBe(treeSize);
  });

  it('KMS answering 500: the run fails and logs why, the deliveries stay pending and nothing is published; the next run (KMS back) integrates them', async () => {
    const keys = [await deliver('kms-down-0', 'svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(16 * MINUTE))];
    const checkpoint = (await tiles.read('checkpoint'))!.toString('utf8');
    kms.requests.length = 0;
    logLines.length = 0;
    kms.failWith(500);
    try {
      await expect(invoke(handler, await streamEvent(keys))).rejects.toThrow(/AWS KMS Sign for the ledger key .* failed/);
    } finally {
      kms.failWith(null);
    }
    expect(signs().length).toBeGreaterThanOrEqual(1);
    expect(kms.requests.every((r) => r.target === 'TrentService.Sign')).toBe(true);
    expect(await sequencing(keys)).toEqual(['PENDING']);
    // Nothing published, and the lease released: the next run need not wait for it to run out.
    const head = (await readLedgerHead())!;
    expect({ treeSize: head.treeSize, lock: head.lock }).toEqual({ treeSize, lock: null });
    expect((await tiles.read('checkpoint'))!.toString('utf8')).toBe(checkpoint);
    expect(logLines.find((l) => l.message === 'sequencer run failed; deliveries stay pending')).toMatchObject({ level: 'ERROR' });

    kms.requests.length = 0;
    const summary = await invoke(handler, scheduledEvent());
    expect(summary).toMatchObject({ batches: 1, deliveries: 1, sequenced: 1 });
    expect(kms.requests.map((r) => r.target)).toEqual(['TrentService.Sign']);
    expect(await sequencing(keys)).toEqual(['SEQUENCED']);
    const credential = await newestHead(CREDENTIAL);
    expect(credential.content).toMatchObject({ status: 'SUSPENDED' });
    expectEvidenceOf(credential);
    treeSize = summary.treeSize!;
    await expectPublishedBy(treeSize);
  });
});

describe('a new execution environment while KMS fails', () => {
  it('the key\'s public half cannot be read: the run fails and nothing is integrated; the next run asks again and integrates', async () => {
    const keys = [await deliver('cold-kms-0', 'svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(19 * MINUTE))];
    const handler = coldHandler();
    kms.requests.length = 0;
    kms.failWith(500);
    try {
      await expect(invoke(handler, scheduledEvent())).rejects.toThrow(/AWS KMS GetPublicKey for the ledger key .* failed/);
    } finally {
      kms.failWith(null);
    }
    expect(kms.requests.every((r) => r.target === 'TrentService.GetPublicKey')).toBe(true);
    expect(await sequencing(keys)).toEqual(['PENDING']);
    expect((await readLedgerHead())!).toMatchObject({ treeSize, lock: null });

    kms.requests.length = 0;
    const summary = await invoke(handler, scheduledEvent());
    expect(summary).toMatchObject({ batches: 1, sequenced: 1 });
    expect(kms.requests.map((r) => r.target)).toEqual(['TrentService.GetPublicKey', 'TrentService.Sign']);
    expect(await sequencing(keys)).toEqual(['SEQUENCED']);
    treeSize = summary.treeSize!;
    await expectPublishedBy(treeSize);
  });
});

/**
 * The figure behind the stuck-sequencer alarm, as CloudWatch gets it: the one embedded-metric-format
 * line an invocation writes, read by the specification's rules (test/support/emf.ts), with the
 * namespace, name and dimensions the stack's alarm reads (test/infra/stack/operator-alarms.ts holds the alarm
 * to the same literal values).
 */
describe('the oldest pending event\'s age, in CloudWatch embedded metric format', () => {
  let handler: Handler;
  beforeAll(() => {
    handler = coldHandler();
  });

  /** The age the invocation published: exactly one line, one metric, as the alarm reads it. */
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
    expect([PENDING_AGE_METRIC.namespace, PENDING_AGE_METRIC.name, SERVICE_NAME]).toEqual(['PublicTrustVerificationService', 'OldestPendingEventAge', 'public-trust-verification-service']);
    expect(Math.abs(metrics[0].timestamp - Date.now())).toBeLessThan(60_000);
    return metrics[0].values[0];
  }

  it('nothing waiting: 0, from the run\'s own look at the index', async () => {
    const summary = await invoke(handler, scheduledEvent());
    expect(summary.batches).toBe(0);
    expect(publishedAge(metricLines[metricLines.length - 1])).toBe(0);
  });

  it('the table unreachable for the measurement: no figure (the alarm counts the silence), a warning, and the run\'s own outcome unchanged', async () => {
    const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    // A new execution environment whose DynamoDB client points at a port nothing listens on.
    process.env.AWS_ENDPOINT_URL_DYNAMODB = 'http://127.0.0.1:9';
    let unreachable: Handler;
    try {
      unreachable = coldHandler();
      logLines.length = 0;
      // Too little time left for a batch: the run itself asks nothing of the table.
      const summary = await invoke(unreachable, scheduledEvent(), lambdaContext(19_000));
      expect(summary).toEqual({ batches: 0, deliveries: 0, sequenced: 0, setAside: 0, appended: 0, treeSize: null });
    } finally {
      process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    }
    expect(metricLines[metricLines.length - 1]).toEqual([]);
    expect(logLines.find((l) => l.message === 'oldest pending event age not measured')).toMatchObject({ level: 'WARN' });
  });
});
