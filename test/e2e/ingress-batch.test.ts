// First: the service's functions log WARN lines here (the Powertools Logger reads its level when it is made).
import '../support/log-level-warn';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { IngressBatchReceipt } from '../../functions/contract/ingress';
import { INGRESS_BATCH_MAX_BODY_BYTES, INGRESS_BATCH_MEDIA_TYPE } from '../../functions/contract/ingress-values';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { storeClient } from '../../functions/store/client';
import { tableStores } from '../../functions/store/dynamodb';
import { buildBatch, buildEvent, deliver, devSecrets, newWebhookId, signedHeaders } from '../../lib/ingress/emit';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { DEV_INGRESS_SECRETS_FILE, localClient, LOCAL_TABLE, startLocalService, type LocalService } from '../../lib/local/service';
import { wholeRecord } from '../support/stores';
import { expectProblem, OBSERVED, STATE_CHANGED } from '../support/ingress';
import { getJson } from '../support/local';

/**
 * Many events in one delivery (docs/ingress.md#many-events-in-one-delivery) through the local HTTP
 * server `npm start` runs, signed with the development secret as a source signs, on the embedded
 * store: each event its own answer (the body held to the contract's schema), the same answer to a
 * retry, the limits, a store that stops mid-batch (fault injection on the store client) completed by
 * the retry with nothing stored twice, and seeded random batch bodies never answered 500.
 */
const SOURCE = 'service-platform';
const secret = devSecrets(DEV_INGRESS_SECRETS_FILE)[SOURCE];

let store: EmbeddedStore;
let tilesDir: string;
let service: LocalService;
let sequencerClient: DynamoDBClient;
let stores: ReturnType<typeof tableStores>;
let drain: () => Promise<unknown>;
beforeAll(async () => {
  store = await startEmbeddedStore();
  tilesDir = await mkdtemp(path.join(os.tmpdir(), 'batch-tiles-'));
  service = await startLocalService({ port: 0, endpoint: store.endpoint, loadDemo: true, tilesDir, sequencer: false });
  sequencerClient = localClient(store.endpoint);
  const { signer } = await devLedgerSigner();
  stores = tableStores(sequencerClient, LOCAL_TABLE);
  drain = () => sequenceAll({ ...stores, signer, tiles: directoryTileStore(tilesDir) });
});
afterAll(async () => {
  sequencerClient?.destroy();
  await service?.close();
  await store?.close();
  await rm(tilesDir, { recursive: true, force: true });
});

const justBefore = (ms: number) => new Date(Date.now() - ms).toISOString();
/** Sends a batch body, signed, under a webhook-id of its own unless one is given. */
const sendBatch = (body: string, id: string = newWebhookId(), headers: Record<string, string> = {}) =>
  deliver(service.url, '/v1/lifecycle/events', body, { 'content-type': INGRESS_BATCH_MEDIA_TYPE, ...signedHeaders(body, [secret], { id }), ...headers });
const results = (body: { items: Array<{ index: number; result: string; status: number; problem?: { code: string } }> }) =>
  body.items.map((i) => `${i.index}:${i.result}:${i.status}${i.problem ? `:${i.problem.code}` : ''}`);

test('a mixed batch is answered 200 with each event\'s own result, as the contract describes it; the same webhook-id again answers the same, replayed', async () => {
  const observation = buildEvent(OBSERVED, DEMO_OBJECTS.stale, { objectType: 'WARRANTY', state: 'ACTIVE' }, justBefore(900));
  const body = JSON.stringify([
    buildEvent(STATE_CHANGED, DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' }, justBefore(1000)),
    buildEvent(STATE_CHANGED, DEMO_OBJECTS.revoked, { state: 'SHIPPED' }, justBefore(1000)),
    { ...observation, data: { ...(observation.data as object), cardNumber: '4111111111111111' } },
    observation,
    buildEvent(OBSERVED, 'ORD-NOT-HELD', { state: 'PLACED' }, justBefore(900)),
  ]);
  const id = newWebhookId();
  const first = await sendBatch(body, id);
  expect(first.status).toBe(200);
  expect(first.headers.get('content-type')).toMatch(/^application\/json/);
  expect(IngressBatchReceipt.safeParse(first.body).error).toBeUndefined();
  expect(results(first.body)).toEqual(['0:ACCEPTED:202', '1:REFUSED:409:TRANSITION_FORBIDDEN', '2:REFUSED:422:INVALID_REQUEST', '3:ACCEPTED:202', '4:REFUSED:404:NOT_FOUND']);
  expect(first.body).toMatchObject({ webhookId: id, events: 5, accepted: 2, alreadyStored: 0, refused: 3 });
  expect(first.body.items[2].problem).toMatchObject({ type: 'urn:svc:problem:invalid-request', title: expect.any(String), field: 'data.cardNumber' });

  const again = await sendBatch(body, id);
  expect([again.status, again.headers.get('webhook-replayed')]).toEqual([200, 'true']);
  expect(again.body).toEqual(first.body);

  await drain();
  const sequenced = await sendBatch(body, id);
  expect(sequenced.body.items[0].receipt).toMatchObject({ sequencing: 'SEQUENCED', recordVersion: expect.any(Number) });
  expect((await getJson(`${service.url}/v1/objects/${DEMO_OBJECTS.current}`)).body.current.state).toBe('RETURNED');
  // Another body under the same webhook-id, and a new event sent alone under it: 409. (An event the
  // batch stored, sent alone under it, is answered from that event: the event's identity comes first.)
  expectProblem(await sendBatch('[]', id), 409, 'WEBHOOK_ID_REUSED');
  const alone = JSON.stringify(buildEvent(OBSERVED, DEMO_OBJECTS.stale, { objectType: 'WARRANTY', state: 'ACTIVE' }, justBefore(850)));
  expectProblem(await deliver(service.url, '/v1/lifecycle/events', alone, signedHeaders(alone, [secret], { id })), 409, 'WEBHOOK_ID_REUSED');
  const storedAlone = JSON.stringify(observation);
  const answered = await deliver(service.url, '/v1/lifecycle/events', storedAlone, signedHeaders(storedAlone, [secret], { id }));
  expect([answered.status, answered.headers.get('webhook-replayed'), answered.body.eventId]).toEqual([202, 'true', observation.id]);
});

test('events of a batch sent again in a batch of their own, or alone, are answered as their first delivery and make no second fact', async () => {
  const events = buildBatch(OBSERVED, DEMO_OBJECTS.stale, { objectType: 'WARRANTY', state: 'ACTIVE' }, 3, new Date(Date.now() - 800_000));
  const first = await sendBatch(JSON.stringify(events));
  expect(results(first.body)).toEqual(['0:ACCEPTED:202', '1:ACCEPTED:202', '2:ACCEPTED:202']);
  const replay = await sendBatch(JSON.stringify([events[2], events[0]]));
  expect(results(replay.body)).toEqual(['0:ALREADY_STORED:202', '1:ALREADY_STORED:202']);
  expect(replay.body.items[0].receipt).toEqual(first.body.items[2].receipt);
  const alone = JSON.stringify(events[1]);
  const single = await deliver(service.url, '/v1/lifecycle/events', alone, signedHeaders(alone, [secret]));
  expect([single.status, single.headers.get('webhook-replayed'), single.body.webhookId]).toEqual([202, 'true', first.body.webhookId]);
  await drain();
  const entries = (await wholeRecord(stores.records, DEMO_OBJECTS.stale))!;
  for (const event of events) expect(entries.filter((e) => e.at === (event.data as { observedAt: string }).observedAt)).toHaveLength(1);
});

test('the limits: a batch of 100 events is taken, 101 are 413, over 1 MiB is 413, a body that is not an array 422, a bad signature 401', async () => {
  const hundred = buildBatch(OBSERVED, DEMO_OBJECTS.stale, { objectType: 'WARRANTY', state: 'ACTIVE' }, 100, new Date(Date.now() - 700_000));
  const full = await sendBatch(JSON.stringify(hundred));
  expect([full.status, full.body.accepted]).toEqual([200, 100]);
  const over = buildBatch(OBSERVED, DEMO_OBJECTS.stale, { objectType: 'WARRANTY', state: 'ACTIVE' }, 101, new Date(Date.now() - 600_000));
  expect(expectProblem(await sendBatch(JSON.stringify(over)), 413, 'PAYLOAD_TOO_LARGE')).toMatchObject({ maxEvents: 100 });
  const padded = `[${' '.repeat(INGRESS_BATCH_MAX_BODY_BYTES)}]`;
  expect(expectProblem(await sendBatch(padded), 413, 'PAYLOAD_TOO_LARGE')).toMatchObject({ maxBodyBytes: INGRESS_BATCH_MAX_BODY_BYTES });
  expectProblem(await sendBatch(JSON.stringify(hundred[0])), 422, 'INVALID_REQUEST');
  expectProblem(await sendBatch('[]', newWebhookId(), { 'webhook-signature': 'v1,AAAA' }), 401, 'WEBHOOK_SIGNATURE_INVALID');
  // A batch sent as one event (its media type says one event): refused as one event, not read as a batch.
  const asOne = JSON.stringify(hundred.slice(0, 2));
  expectProblem(await deliver(service.url, '/v1/lifecycle/events', asOne, signedHeaders(asOne, [secret])), 422, 'INVALID_REQUEST');
  await drain();
});

test('a store that stops mid-batch: the events stored are listed, the rest answered not stored (503); the retry completes the batch and each event makes one fact', async () => {
  const events = buildBatch(OBSERVED, DEMO_OBJECTS.stale, { objectType: 'WARRANTY', state: 'ACTIVE' }, 8, new Date(Date.now() - 500_000));
  const body = JSON.stringify(events);
  const id = newWebhookId();
  const client = storeClient();
  const realSend = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let puts = 0;
  // Fault injection: from the fourth event's write on, the store does not answer.
  const spy = jest.spyOn(client, 'send').mockImplementation(((command: any, ...rest: unknown[]) => {
    if (command.constructor.name === 'PutItemCommand' && String(command.input.Item?.pk?.S).includes('#event:') && ++puts > 3) {
      return Promise.reject(Object.assign(new Error('connection reset'), { name: 'TimeoutError' }));
    }
    return realSend(command, ...rest);
  }) as any);
  let stopped;
  try {
    stopped = await sendBatch(body, id);
  } finally {
    spy.mockRestore();
  }
  const problem = expectProblem(stopped, 503, 'DEPENDENCY_UNAVAILABLE');
  expect(stopped.headers.get('retry-after')).toBe('1');
  const stored = problem.items.filter((i: { result: string }) => i.result === 'ACCEPTED').length;
  expect(stored).toBe(3);
  expect(problem.items.filter((i: { result: string }) => i.result === 'NOT_STORED')).toHaveLength(5);

  const retry = await sendBatch(body, id);
  expect(results(retry.body)).toEqual(events.map((_, i) => `${i}:ACCEPTED:202`));
  expect(new Set(retry.body.items.map((i: { receipt: { webhookId: string } }) => i.receipt.webhookId))).toEqual(new Set([id]));
  await drain();
  const entries = (await wholeRecord(stores.records, DEMO_OBJECTS.stale))!;
  for (const event of events) expect(entries.filter((e) => e.at === (event.data as { observedAt: string }).observedAt)).toHaveLength(1);
});

/** Runs `npm run emit` (its script, as npm runs it) against the service; its exit code and output. */
function emit(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npx', ['tsx', 'bin/emit.ts', ...args, '--url', service.url], { cwd: path.resolve(__dirname, '../..'), timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('npm run emit sends a batch (--batch N, or a file of events), signed once, and prints each event\'s result', async () => {
  const sent = await emit([OBSERVED, DEMO_OBJECTS.stale, 'objectType=WARRANTY', 'state=ACTIVE', '--batch', '3', '--at', justBefore(300_000)]);
  expect(sent.stdout).toContain('a batch');
  expect(sent.stdout).toMatch(/-> 200/);
  expect(sent.stdout.match(/^ {2}\d: ACCEPTED/gm)).toHaveLength(3);
  expect(sent.code).toBe(0);

  const dir = await mkdtemp(path.join(os.tmpdir(), 'emit-file-'));
  try {
    const file = path.join(dir, 'events.json');
    const good = buildEvent(OBSERVED, DEMO_OBJECTS.stale, { objectType: 'WARRANTY', state: 'ACTIVE' }, justBefore(290_000));
    await writeFile(file, JSON.stringify([good, buildEvent(STATE_CHANGED, DEMO_OBJECTS.revoked, { state: 'SHIPPED' }, justBefore(290_000))], null, 2));
    const mixed = await emit(['--file', file]);
    expect(mixed.stdout).toMatch(/^ {2}0: ACCEPTED/m);
    expect(mixed.stdout).toMatch(/^ {2}1: REFUSED \S+ TRANSITION_FORBIDDEN/m);
    expect(mixed.code).toBe(1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await drain();
}, 120_000);

test('seeded random batch bodies, signed, are answered 200, 413 or 422, never 500', async () => {
  const valid = fc.integer({ min: 0, max: 400 }).map((n) => buildEvent(OBSERVED, DEMO_OBJECTS.stale, { objectType: 'WARRANTY', state: 'ACTIVE' }, justBefore(400_000 - n), `fuzz-${n}`));
  const item = fc.oneof(
    valid.map((e) => JSON.stringify(e)),
    valid.map((e) => JSON.stringify({ ...e, specversion: '0.3' })),
    valid.map((e) => JSON.stringify(e).replace('"data":{', '"data":{"state":"X",')),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  );
  const body = fc.oneof(
    { weight: 5, arbitrary: fc.array(item, { maxLength: 8 }).map((items) => `[${items.join(' ,\n')}]`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  );
  const statuses = new Set<number>();
  await fc.assert(
    fc.asyncProperty(body, async (text) => {
      const res = await sendBatch(text);
      statuses.add(res.status);
      expect([200, 413, 422]).toContain(res.status);
      if (res.status === 200) expect(IngressBatchReceipt.safeParse(res.body).error).toBeUndefined();
    }),
    { numRuns: 60, seed: 20261126 },
  );
  expect(statuses).toEqual(new Set([200, 422]));
});
