// First: the service's functions log WARN lines here (the Powertools Logger reads its level when it is made).
import '../support/log-level-warn';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { eventIdentityDigest } from '../../functions/domain/ingress/identity';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { tableStores } from '../../functions/store/dynamodb';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { storeClient } from '../../functions/store/client';
import { waitingOf } from '../../functions/store/dynamodb/pending-items';
import { eventPk, pendingPk } from '../../functions/store/layout';
import { buildEvent, deliver, devSecrets, newWebhookId, signedHeaders } from '../../lib/ingress/emit';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { DEV_INGRESS_SECRETS_FILE, localClient, LOCAL_TABLE, startLocalService, type LocalService } from '../../lib/local/service';
import { collectLogLines } from '../support/log-lines';
import { CREDENTIAL_CHANGED, expectProblem, OBSERVED, STATE_CHANGED } from '../support/ingress';
import { getJson } from '../support/local';

/**
 * Exactly once per event, not per delivery (docs/ingress.md#exactly-once-per-event), through the
 * local HTTP server and the sequencer: a CloudEvent sent again under a new webhook-id (a sender's
 * replay, a second sender instance) is answered as its first delivery was and makes no second
 * fact; its id reused for other content is 409 EVENT_ID_REUSED. The store is started apart from
 * the service, so a second service instance can be started on it (a restart), and the sequencer is
 * run by the test (the same module `npm start` runs), so every answer is compared at a known point.
 */
const SOURCE = 'service-platform';
const secret = devSecrets(DEV_INGRESS_SECRETS_FILE)[SOURCE];

let store: EmbeddedStore;
let tilesDir: string;
let service: LocalService;
let sequencerClient: DynamoDBClient;
let drain: () => Promise<unknown>;
beforeAll(async () => {
  store = await startEmbeddedStore();
  tilesDir = await mkdtemp(path.join(os.tmpdir(), 'exactly-once-tiles-'));
  service = await startLocalService({ port: 0, endpoint: store.endpoint, loadDemo: true, tilesDir, sequencer: false });
  sequencerClient = localClient(store.endpoint);
  const { signer } = await devLedgerSigner();
  const stores = tableStores(sequencerClient, LOCAL_TABLE);
  drain = () => sequenceAll({ ...stores, signer, tiles: directoryTileStore(tilesDir) });
});
afterAll(async () => {
  sequencerClient?.destroy();
  await service?.close();
  await store?.close();
  await rm(tilesDir, { recursive: true, force: true });
});

const get = async (p: string) => (await getJson(`${service.url}${p}`)).body;
/** The size of the published log (the tile log's checkpoint, second line). */
const treeSize = async () => Number((await (await fetch(`${service.url}/ledger/checkpoint`)).text()).split('\n')[1]);
/** An instant just before now: newer than every demo entry, and already past, so a current read shows it. */
const justBefore = (ms: number) => new Date(Date.now() - ms).toISOString();

/** Sends a body (signed with the source's development secret) under a webhook-id of its own unless one is given. */
const send = async (body: string, id: string = newWebhookId()) => ({ ...(await deliver(service.url, '/v1/lifecycle/events', body, signedHeaders(body, [secret], { id }))), id });

async function itemAt(pk: string) {
  const client = localClient(store.endpoint);
  try {
    return (await client.send(new GetItemCommand({ TableName: LOCAL_TABLE, Key: { pk: { S: pk }, sk: { S: '#' } }, ConsistentRead: true }))).Item;
  } finally {
    client.destroy();
  }
}

const entriesAt = async (reference: string, at: string) => (await get(`/v1/objects/${reference}?limit=200`)).timeline.filter((e: any) => e.at === at);

interface Change {
  reference: string;
  state: string;
  at: string;
  body: string;
  /** The object's version and the log's size before it. */
  version: number;
  size: number;
}

/** A state change of a demo object from the state it holds to `state`, stated `msAgo` before now (everything delivered before is integrated first). */
async function changeOf(reference: string, state: string, msAgo: number): Promise<Change> {
  await drain();
  const at = justBefore(msAgo);
  const before = await get(`/v1/objects/${reference}`);
  const event = buildEvent(STATE_CHANGED, reference, { objectType: before.object.objectType, previousState: before.current.state, state }, at);
  return { reference, state, at, body: JSON.stringify(event), version: before.object.version, size: await treeSize() };
}

/** Once integrated, the change is one fact: one timeline entry at its instant, one new leaf, the object in its state one version on. */
async function expectOneFact(change: Change): Promise<void> {
  expect(await entriesAt(change.reference, change.at)).toHaveLength(1);
  expect(await treeSize()).toBe(change.size + 1);
  expect((await get(`/v1/objects/${change.reference}`)).object).toMatchObject({ state: change.state, version: change.version + 1 });
}

describe('the same event under another webhook-id', () => {
  test('is answered as its first delivery was (202, the same receipt), and makes one timeline entry and one ledger leaf', async () => {
    const change = await changeOf(DEMO_OBJECTS.stale, 'IN_SERVICE', 2_000);
    const { body, version } = change;
    const first = await send(body);
    expect([first.status, first.headers.get('webhook-replayed')]).toEqual([202, null]);
    // The sender's dead-letter replay: the same body under a new webhook-id, before and after sequencing.
    const replay = await send(body);
    expect([replay.status, replay.headers.get('webhook-replayed')]).toEqual([202, 'true']);
    expect(replay.body).toEqual(first.body);
    await drain();
    const later = await send(body);
    // Without the event's identity this would be 409 TRANSITION_FORBIDDEN (the object is IN_SERVICE now).
    const sequenced = { ...first.body, sequencing: 'SEQUENCED', sequencedAt: expect.any(String), recordVersion: version + 1 };
    expect([later.status, later.headers.get('webhook-replayed')]).toEqual([202, 'true']);
    expect(later.body).toEqual(sequenced);
    // A retry of the replay's own webhook-id says the same; so does the event written another way
    // (whitespace, a number spelled 1.0): the same JSON value is the same event.
    expect((await send(body, replay.id)).body).toEqual(sequenced);
    const respelled = JSON.stringify(JSON.parse(body), null, 1).replace('"recordVersion": 1', '"recordVersion": 1.0');
    expect(respelled).toContain('1.0');
    expect((await send(respelled)).body).toEqual(sequenced);
    await drain();

    await expectOneFact(change);
  });

  test('with its members in another order and other whitespace it is still the same event', async () => {
    const event: any = buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }, justBefore(1_500));
    const first = await send(JSON.stringify(event));
    expect(first.status).toBe(202);
    const { data, ...envelope } = event;
    const reordered = JSON.stringify({ data: Object.fromEntries(Object.entries(data).reverse()), ...Object.fromEntries(Object.entries(envelope).reverse()) }, null, 2);
    const res = await send(reordered);
    expect([res.status, res.headers.get('webhook-replayed')]).toEqual([202, 'true']);
    expect(res.body).toEqual(first.body);
  });

  test('twenty concurrent copies under twenty webhook-ids: one stored event, one answered first, twenty equal receipts, one fact and one leaf', async () => {
    const change = await changeOf(DEMO_OBJECTS.modified, 'CANCELLED', 1_000);
    const { body } = change;
    const ids = Array.from({ length: 20 }, () => newWebhookId());
    const answers = await Promise.all(ids.map((id) => send(body, id)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
    const firsts = answers.filter((a) => a.headers.get('webhook-replayed') !== 'true');
    expect(firsts).toHaveLength(1);
    for (const a of answers) expect(a.body).toEqual(firsts[0].body);
    // In the store: one event under the identity, and every delivery pointing to it.
    const key = eventPk(SOURCE, eventIdentityDigest(JSON.parse(body)));
    expect(waitingOf((await itemAt(key))!).identity.id).toBe(JSON.parse(body).id);
    for (const id of ids) expect((await itemAt(pendingPk(SOURCE, id)))?.eventKey?.S).toBe(key);

    await drain();
    await expectOneFact(change);
  });
});

describe('the same event id with other content', () => {
  test('is refused with 409 EVENT_ID_REUSED, logged; the first event stays, and a retry is refused the same way', async () => {
    const event: any = buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }, justBefore(1_200));
    const first = await send(JSON.stringify(event));
    expect(first.status).toBe(202);
    const other = JSON.stringify({ ...event, data: { ...event.data, observedAt: justBefore(1_100) } });
    const logs = collectLogLines();
    let refused;
    try {
      refused = await send(other);
    } finally {
      logs.restore();
    }
    const problem = expectProblem(refused, 409, 'EVENT_ID_REUSED');
    expect(problem).toMatchObject({ eventId: event.id, eventSource: event.source });
    expect(problem.detail).toContain(event.id);
    const line = logs.lines.find((l) => l.message === 'event id reused with other content: refused');
    expect(line).toMatchObject({ level: 'WARN', eventId: event.id, eventSource: event.source, firstWebhookId: first.body.webhookId });
    expect(expectProblem(await send(other, refused.id), 409, 'EVENT_ID_REUSED').eventId).toBe(event.id);
    // The first stays what is stored, and what a replay of it is answered.
    const replay = await send(JSON.stringify(event));
    expect([replay.status, replay.body.webhookId]).toEqual([202, first.body.webhookId]);
    await drain();
    expect(await entriesAt(DEMO_OBJECTS.current, event.data.observedAt)).toHaveLength(1);
    expect(await entriesAt(DEMO_OBJECTS.current, JSON.parse(other).data.observedAt)).toHaveLength(0);
  });

  test('the same id under another CloudEvents source is another event: the identity is (source, id)', async () => {
    const id = `shared-${newWebhookId()}`;
    const observed = buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }, justBefore(900), id);
    const credential = buildEvent(CREDENTIAL_CHANGED, DEMO_CREDENTIALS.active, { previousStatus: 'ACTIVE', status: 'SUSPENDED' }, justBefore(800), id);
    expect([observed.source, credential.source]).toEqual(['/v1/objects', '/v1/credentials']);
    expect((await send(JSON.stringify(observed))).status).toBe(202);
    const other = await send(JSON.stringify(credential));
    expect([other.status, other.headers.get('webhook-replayed'), other.body.eventType]).toEqual([202, null, CREDENTIAL_CHANGED]);
  });

  test('a refused event claims nothing: its id may carry a corrected event', async () => {
    const id = `corrected-${newWebhookId()}`;
    const wrong = JSON.stringify(buildEvent(STATE_CHANGED, DEMO_OBJECTS.revoked, { state: 'SHIPPED' }, justBefore(700), id));
    expectProblem(await send(wrong), 409, 'TRANSITION_FORBIDDEN');
    const corrected = JSON.stringify(buildEvent(STATE_CHANGED, DEMO_OBJECTS.revoked, { previousState: 'CANCELLED', state: 'ARCHIVED' }, justBefore(600), id));
    expect((await send(corrected)).status).toBe(202);
  });
});

describe('a receiver whose two writes (the claim and the note, sent together) do not both land', () => {
  /** Sends a delivery while every PutItem of an item whose key `loses` says never reaches the store (the connection reset). */
  async function sendLosing(body: string, id: string, loses: (pk: string) => boolean) {
    const client = storeClient();
    const realSend = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
    const spy = jest.spyOn(client, 'send').mockImplementation(((command: any, ...rest: unknown[]) => {
      if (command.constructor.name === 'PutItemCommand' && loses(String(command.input.Item?.pk?.S))) return Promise.reject(Object.assign(new Error('connection reset'), { name: 'TimeoutError' }));
      return realSend(command, ...rest);
    }) as any);
    try {
      return await send(body, id);
    } finally {
      spy.mockRestore();
    }
  }

  test('the claim lands, the note does not: the event is stored; the retry, and a copy under another webhook-id, are answered as its first delivery, and one fact is made', async () => {
    const change = await changeOf(DEMO_OBJECTS.longHistory, 'RECALLED', 500);
    const { body } = change;
    const id = newWebhookId();
    // Fault injection: the delivery's own item never reaches the store.
    const stopped = await sendLosing(body, id, (pk) => pk === pendingPk(SOURCE, id));
    expectProblem(stopped, 503, 'DEPENDENCY_UNAVAILABLE');
    expect(await itemAt(pendingPk(SOURCE, id))).toBeUndefined();
    const retry = await send(body, id);
    expect([retry.status, retry.headers.get('webhook-replayed'), retry.body.webhookId]).toEqual([202, 'true', id]);
    const copy = await send(body);
    expect(copy.body).toEqual(retry.body);
    await drain();
    await expectOneFact(change);
  });

  test('the note lands, the claim does not: 503 and nothing stored for the sequencer; the retry is judged and accepted as a first delivery, and one fact is made', async () => {
    const change = await changeOf(DEMO_OBJECTS.longHistory, 'ARCHIVED', 400);
    const { body } = change;
    const id = newWebhookId();
    // Fault injection: the event's claim never reaches the store; the delivery's note, sent with it, does.
    const stopped = await sendLosing(body, id, (pk) => pk.includes('#event:'));
    expectProblem(stopped, 503, 'DEPENDENCY_UNAVAILABLE');
    expect(await itemAt(pendingPk(SOURCE, id))).toMatchObject({ status: { N: '202' }, eventKey: { S: expect.stringContaining('#event:') } });
    const retry = await send(body, id);
    expect([retry.status, retry.headers.get('webhook-replayed'), retry.body.webhookId]).toEqual([202, null, id]);
    const again = await send(body, id);
    expect([again.status, again.headers.get('webhook-replayed')]).toEqual([202, 'true']);
    await drain();
    await expectOneFact(change);
  });
});

describe('across a restart', () => {
  // Last: it replaces the service. A new instance on the same store, with fresh handler modules
  // (nothing a receiver kept in memory survives), as a new Lambda execution environment would be.
  test('a new service instance on the same store answers the replay as the first delivery, refuses other content, and the sequencer makes one fact', async () => {
    const change = await changeOf(DEMO_OBJECTS.current, 'RETURNED', 300);
    const { body, version } = change;
    const first = await send(body);
    expect(first.status).toBe(202);
    await service.close();

    jest.resetModules();
    service = await startLocalService({ port: 0, endpoint: store.endpoint, loadDemo: false, tilesDir, sequencer: false });
    const replay = await send(body);
    expect([replay.status, replay.headers.get('webhook-replayed')]).toEqual([202, 'true']);
    expect(replay.body).toEqual(first.body);
    const event = JSON.parse(body);
    expectProblem(await send(JSON.stringify({ ...event, data: { ...event.data, state: 'CANCELLED' } })), 409, 'EVENT_ID_REUSED');

    const runs = (await drain()) as Array<{ sequenced: number }>;
    expect(runs.reduce((n, r) => n + r.sequenced, 0)).toBe(1);
    expect((await send(body)).body).toMatchObject({ sequencing: 'SEQUENCED', recordVersion: version + 1 });
    expect(await drain()).toEqual([]);
    await expectOneFact(change);
  });
});
