import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { statusListReference } from '../../functions/domain/credentials/model';
import { parseVerifierKey, verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import type { handler as partHandler } from '../../functions/handlers/sequence-part';
import type { handler as sequencerHandler, SequencerEvent } from '../../functions/handlers/sequence-events';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { TableStores } from '../../functions/store/dynamodb';
import { runMonitor } from '#verify/node/monitor';
import { buildEvent } from '../../lib/ingress/emit';
import { startLambdaStandIn, type LambdaStandIn } from '../../lib/local/lambda-stand-in';
import { collectLogLines } from '../support/log-lines';
import { lambdaContext, startSequencerStand, streamEvent, type SequencerStand } from '../support/sequencer-lambda';
import { claimAccepted, sequencingOf, wholeRecord } from '../support/stores';

/**
 * The sequencer Lambda with part writers (docs/ingress.md#one-log-many-writers), each run as
 * Lambda runs it: the sequencer's handler, configured as the stack configures it to invoke the part
 * writers' function (SEQUENCER_PART_FUNCTION, SEQUENCER_PARTS), reaches it through the real Lambda
 * client and a stand-in of Lambda's Invoke API (lib/local/lambda-stand-in.ts) that runs the part
 * writers' handler; every client of both is pointed by the SDK's endpoint variables at dynalite,
 * s3rver and the KMS stand-in. A part a record here (SEQUENCER_EVENTS_PER_PART=1), so a batch of a
 * few events is planned in parts. What the part writers write, how a batch in parts recovers from
 * any stopped write, and that it ends as a batch in one process: test/unit/sequencer.test.ts and
 * test/integration/sequencer-recovery.test.ts.
 */
const ANCHOR = new Date('2026-11-20T12:00:00.000Z');
const TABLE = 'sequencer-parts-lambda';
const BUCKET = 'catalogue-parts-test';
const ORIGIN = 'sequencer-parts.test/ledger';
const REGION = 'eu-central-1';
const PART_FUNCTION = 'TrustStack-SequencerPartsFunction';
const PLACE = { table: TABLE, region: REGION };
const CREDENTIAL = DEMO_CREDENTIALS.active;
const REFERENCES: readonly string[] = [DEMO_OBJECTS.current, DEMO_OBJECTS.stale, CREDENTIAL, DEMO_PROOFS.current];
const MINUTE = 60_000;
const iso = (offsetMs: number) => new Date(ANCHOR.getTime() + offsetMs).toISOString();

let stand: SequencerStand;
let stores: TableStores;
let lambda: LambdaStandIn;
let sequencer: typeof sequencerHandler;
/** What the part writers' function does to the next invocation of a kind: fail it (a crash in the function). */
const failNext: { plan: boolean; store: boolean; write: boolean } = { plan: false, store: false, write: false };

/** A handler module as a new execution environment loads it. */
function load<H>(module: string): H {
  let loaded!: H;
  jest.isolateModules(() => {
    loaded = (require(module) as { handler: H }).handler;
  });
  return loaded;
}

let received = 0;
async function deliver(type: string, reference: string, fields: Record<string, string>, at: string): Promise<string> {
  const id = `parts-${received++}`;
  return claimAccepted(stores.pending, { webhookId: id, raw: JSON.stringify(buildEvent(type, reference, fields, at, `event-${id}`)), receivedAt: new Date().toISOString() });
}

async function run(event: SequencerEvent) {
  const collected = collectLogLines();
  try {
    return await sequencer(event, lambdaContext(PLACE, 'TrustStack-SequencerFunction'));
  } finally {
    collected.restore();
  }
}

/** Every record's newest version carries evidence of itself that verifies with the KMS key, and the tile log's monitor accepts the whole log. */
async function expectVerifiedLog(references: readonly string[]): Promise<void> {
  const key = stand.kms.verifierKey(ORIGIN);
  for (const reference of references) {
    const entries = (await wholeRecord(stores.records, reference))!;
    const head = entries[entries.length - 1].head as { reference: string; version: number; content: unknown; evidence: { version: number } };
    expect({ reference, version: head.evidence.version, ...verifyEvidence(head.content, head.evidence as never, [key]) }).toMatchObject({ reference, version: head.version, ok: true });
  }
  const report = await runMonitor({ fetch: (p) => stand.tiles.read(p), logKeys: [parseVerifierKey(key)], state: null, leaves: [] });
  expect(report.problem).toBeNull();
  expect(report.treeSize).toBe((await stores.ledger.lock.read())!.treeSize);
}

beforeAll(async () => {
  stand = await startSequencerStand({ ...PLACE, bucket: BUCKET, origin: ORIGIN });
  stores = stand.stores;
  const part = load<typeof partHandler>('../../functions/handlers/sequence-part');
  lambda = await startLambdaStandIn({
    [PART_FUNCTION]: async (event) => {
      const kind = (['plan', 'store', 'write'] as const).find((k) => k in (event as object))!;
      if (failNext[kind]) {
        failNext[kind] = false;
        throw new Error(`the part writer stopped while it would ${kind}`);
      }
      return part(event, lambdaContext(PLACE, PART_FUNCTION, { memoryMb: 1769 }));
    },
  });
  Object.assign(process.env, {
    ...stand.environment,
    SEQUENCER_PART_FUNCTION: PART_FUNCTION,
    SEQUENCER_PARTS: '4',
    SEQUENCER_EVENTS_PER_PART: '1',
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
  });
  await stand.loadDemo(REFERENCES, ANCHOR);
  sequencer = load<typeof sequencerHandler>('../../functions/handlers/sequence-events');
}, 60_000);

afterAll(async () => {
  for (const name of ['SEQUENCER_PART_FUNCTION', 'SEQUENCER_PARTS', 'SEQUENCER_EVENTS_PER_PART', 'AWS_ENDPOINT_URL_LAMBDA']) delete process.env[name];
  await lambda?.close();
  await stand?.close();
});

test('a stream batch over several records is planned and written in parts by the part writers\' function, each invoked once to plan and once to write; the credential\'s status list follows in the sequencer, and every new version verifies', async () => {
  const before = (await stores.ledger.lock.read())!.treeSize;
  const keys = [
    await deliver('svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' }, iso(10 * MINUTE)),
    await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, iso(11 * MINUTE)),
    await deliver('svc.commercial-proof.source-snapshot.v1', DEMO_PROOFS.current, { sourceState: 'DELIVERED' }, iso(12 * MINUTE)),
    await deliver('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso(13 * MINUTE)),
  ];
  lambda.invocations.length = 0;
  const summary = await run(await streamEvent(stand.client, PLACE, keys));
  expect(summary).toMatchObject({ batches: 1, deliveries: 4, sequenced: 4, setAside: 0 });
  expect(await sequencingOf(stores.pending, keys)).toEqual(['SEQUENCED', 'SEQUENCED', 'SEQUENCED', 'SEQUENCED']);
  // Three references (the batch may take four parts), so at most three parts: each planned once and written once, by the function the stack names.
  const parts = lambda.invocations.length / 2;
  expect(parts).toBeGreaterThan(1);
  expect(parts).toBeLessThanOrEqual(3);
  expect(new Set(lambda.invocations)).toEqual(new Set([PART_FUNCTION]));
  // Two new versions (the object's RETURNED, the credential's SUSPENDED) and the suspension list's.
  expect((await stores.ledger.lock.read())!.treeSize).toBe(before + 3);
  const list = (await wholeRecord(stores.records, statusListReference('demo-2026-suspension')))!;
  expect(list[list.length - 1].at).toBe(iso(11 * MINUTE));
  await expectVerifiedLog([DEMO_OBJECTS.current, CREDENTIAL, statusListReference('demo-2026-suspension')]);
});

test.each(['plan', 'store'] as const)('a part writer that fails (invoked to %s: a part, or the tile log\'s new tiles) fails the batch before anything is published: its events wait, and the next run integrates them', async (kind) => {
  const before = (await stores.ledger.lock.read())!;
  // Planning fails whatever the batch holds; the tiles are stored only for a batch with a new version.
  const keys = [
    kind === 'plan'
      ? await deliver('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'RETURNED' }, iso(20 * MINUTE))
      : await deliver('svc.living-object.state-changed.v1', DEMO_OBJECTS.current, { previousState: 'RETURNED', state: 'ARCHIVED' }, iso(22 * MINUTE)),
    await deliver('svc.commercial-proof.source-snapshot.v1', DEMO_PROOFS.current, { sourceState: 'DELIVERED' }, iso(kind === 'plan' ? 21 * MINUTE : 23 * MINUTE)),
  ];
  failNext[kind] = true;
  await expect(run(await streamEvent(stand.client, PLACE, keys))).rejects.toThrow(new RegExp(`part writer .* failed .*stopped while it would ${kind}`));
  expect((await stores.ledger.lock.read())!).toMatchObject({ treeSize: before.treeSize, checkpoint: before.checkpoint, lock: null });
  expect(await sequencingOf(stores.pending, keys)).toEqual(['PENDING', 'PENDING']);
  // Stopped while storing tiles, the batch had journaled what it would write after a head it never published: no writer finishes that (it names another size).
  // The minute's tick: the index lists them (keys only), the part writers read them and say each one's reference, and the sequencer sends each to its part.
  expect(await run({ source: 'aws.events' })).toMatchObject({ deliveries: 2, sequenced: 2 });
  expect(await stores.ledger.journal.unfinished()).toBe(false);
  expect(await sequencingOf(stores.pending, keys)).toEqual(['SEQUENCED', 'SEQUENCED']);
  await expectVerifiedLog([DEMO_OBJECTS.current]);
});

test('a part writer that fails while writing, after the head is published: the next run finishes the batch\'s journal, placing the part\'s new versions from the leaves the batch stored', async () => {
  const before = (await stores.ledger.lock.read())!.treeSize;
  const keys = [
    await deliver('svc.credential.status-changed.v1', CREDENTIAL, { previousStatus: 'SUSPENDED', status: 'ACTIVE' }, iso(30 * MINUTE)),
    await deliver('svc.living-object.authority-observed.v1', DEMO_OBJECTS.stale, { objectType: 'WARRANTY', state: 'ACTIVE' }, iso(31 * MINUTE)),
  ];
  failNext.write = true;
  await expect(run(await streamEvent(stand.client, PLACE, keys))).rejects.toThrow(/part writer .* failed .*stopped while it would write/);
  // Published: the credential's reinstatement and its list's new version are in the log, the journal holds what is left.
  expect((await stores.ledger.lock.read())!.treeSize).toBe(before + 2);
  expect(await stores.ledger.journal.unfinished()).toBe(true);
  expect(await run({ source: 'aws.events' })).toMatchObject({ deliveries: 0 });
  expect(await stores.ledger.journal.unfinished()).toBe(false);
  expect(await sequencingOf(stores.pending, keys)).toEqual(['SEQUENCED', 'SEQUENCED']);
  await expectVerifiedLog([CREDENTIAL, statusListReference('demo-2026-suspension')]);
  const credential = (await wholeRecord(stores.records, CREDENTIAL))!;
  expect(credential[credential.length - 1]).toMatchObject({ at: iso(30 * MINUTE), view: { status: 'ACTIVE' } });
});

test('the part writers\' function refuses what is not an invocation of theirs, saying what was wrong: Lambda answers it as the function\'s error', async () => {
  const client = new LambdaClient({ endpoint: lambda.endpoint, region: REGION, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  try {
    for (const [payload, message] of [
      [{ write: { chunks: ['not base64!'] } }, /^a part writer's invocation is not a part to write/],
      [{ plan: { keys: [], events: [], named: [] }, store: { dir: '', resources: [] } }, /^a part writer is invoked with one of/],
    ] as const) {
      const out = await client.send(new InvokeCommand({ FunctionName: PART_FUNCTION, Payload: Buffer.from(JSON.stringify(payload)) }));
      expect(out.FunctionError).toBe('Unhandled');
      expect(JSON.parse(Buffer.from(out.Payload!).toString('utf8'))).toEqual({ errorType: 'TypeError', errorMessage: expect.stringMatching(message) });
    }
  } finally {
    client.destroy();
  }
});
