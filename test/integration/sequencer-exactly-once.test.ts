import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { eventContentDigest, eventIdentityDigest } from '../../functions/domain/ingress/identity';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { eventPk, pendingPk } from '../../functions/store/layout';
import { readLedgerHead } from '../../functions/store/ledger';
import { claimEvent, storeDeliveryOnce } from '../../functions/store/pending';
import { readWholeRecord } from '../../functions/store/records';
import { buildEvent } from '../../lib/ingress/emit';
import { localClient } from '../../lib/local/service';
import { startDemoTable, type DemoTable } from '../support/demo-table';

/**
 * The sequencer's own guard (defence in depth behind the receivers' claim of an event's identity,
 * docs/ingress.md#exactly-once-per-event): whatever pending items carry one event (its own event
 * item, deliveries that carry the event themselves, as accepted events were stored before events
 * had items of their own), in one batch or in later ones, it is integrated once: one entry, one
 * leaf, and every item reports the version it made.
 */
const TABLE = 'exactly-once';
const SOURCE = 'service-platform';
const signer = signerFromKey(formatSignerKey('exactly-once.test/ledger', Buffer.alloc(32, 11)));
const REFERENCE = DEMO_OBJECTS.current;

let demo: DemoTable;
beforeAll(async () => (demo = await startDemoTable(TABLE, signer, [REFERENCE])));
afterAll(() => demo?.close());

async function sequence(batchSize?: number) {
  const client = localClient(demo.store.endpoint);
  try {
    return await sequenceAll({ client, table: TABLE, signer, tiles: directoryTileStore(demo.tiles), batchSize });
  } finally {
    client.destroy();
  }
}

async function itemAt(pk: string) {
  const client = localClient(demo.store.endpoint);
  try {
    return (await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: pk }, sk: { S: '#' } }, ConsistentRead: true }))).Item!;
  } finally {
    client.destroy();
  }
}

async function entries() {
  const client = localClient(demo.store.endpoint);
  try {
    return (await readWholeRecord(client, TABLE, REFERENCE))!.entries;
  } finally {
    client.destroy();
  }
}

let received = 0;
const receivedAt = () => new Date(Date.now() - 10_000 + received++).toISOString();
const effect = 'ADVANCES_CURRENT_STATE';

/** The event stored under its identity, as a receiver claims it; its key. */
async function storeAsEvent(raw: string, webhookId: string): Promise<string> {
  const event = JSON.parse(raw);
  const identity = { source: event.source, id: event.id, digest: eventIdentityDigest(event), contentSha256: eventContentDigest(event) };
  const claimed = await claimEvent({ sourceId: SOURCE, webhookId, status: 202, answer: {}, bodySha256: webhookId, receivedAt: receivedAt(), identity, event: { raw, type: event.type, reference: REFERENCE, at: event.data.changedAt ?? event.data.observedAt, effect } });
  expect(claimed.stored).toBe(true);
  return eventPk(SOURCE, identity.digest);
}

/** A delivery that carries its event itself, waiting in the pending index; its key. */
async function storeAsDelivery(raw: string, webhookId: string): Promise<string> {
  const event = JSON.parse(raw);
  const stored = await storeDeliveryOnce({ sourceId: SOURCE, webhookId, status: 202, answer: {}, bodySha256: webhookId, receivedAt: receivedAt(), sequencing: 'PENDING', event: { raw, type: event.type, reference: REFERENCE, at: event.data.changedAt ?? event.data.observedAt, effect } });
  expect(stored.stored).toBe(true);
  return pendingPk(SOURCE, webhookId);
}

const outcomeOf = async (key: string) => {
  const item = await itemAt(key);
  return { sequencing: item.sequencing?.S, outcome: JSON.parse(item.outcome!.S!), waiting: item.queue !== undefined };
};

test('one event carried by its event item and two deliveries of the same batch: one entry, one leaf, each item SEQUENCED with that version', async () => {
  const at = new Date(Date.now() - 30_000).toISOString();
  const raw = JSON.stringify(buildEvent('svc.living-object.state-changed.v1', REFERENCE, { previousState: 'DELIVERED', state: 'RETURNED' }, at));
  const before = (await readLedgerHead())!.treeSize;
  const keys = [await storeAsDelivery(raw, 'older-a'), await storeAsEvent(raw, 'first'), await storeAsDelivery(raw, 'older-b')];
  const runs = await sequence();
  expect(runs.map((r) => [r.deliveries, r.sequenced, r.setAside, r.appended])).toEqual([[3, 3, 0, 1]]);
  const carrying = (await entries()).filter((e) => e.at === at);
  expect(carrying).toHaveLength(1);
  expect(carrying[0].eventKey).toBe(keys[1]);
  expect((await readLedgerHead())!.treeSize).toBe(before + 1);
  for (const key of keys) expect(await outcomeOf(key)).toEqual({ sequencing: 'SEQUENCED', outcome: { sequenced: true, version: carrying[0].head.version }, waiting: false });
  expect(verifyEvidence(carrying[0].head.content, carrying[0].head.evidence!, [signer.verifierKey]).ok).toBe(true);
});

test('a delivery of an integrated event, stored later and sequenced one item a batch, makes no second entry and no leaf', async () => {
  const at = new Date(Date.now() - 20_000).toISOString();
  const raw = JSON.stringify(buildEvent('svc.living-object.authority-observed.v1', REFERENCE, { state: 'RETURNED' }, at));
  const first = await storeAsEvent(raw, 'observed');
  await sequence();
  const size = (await readLedgerHead())!.treeSize;
  const timeline = await entries();
  const again = [await storeAsDelivery(raw, 'replayed-1'), await storeAsDelivery(raw, 'replayed-2')];
  const runs = await sequence(1);
  expect(runs.map((r) => [r.deliveries, r.sequenced, r.appended])).toEqual([
    [1, 1, 0],
    [1, 1, 0],
  ]);
  expect(await entries()).toEqual(timeline);
  expect(timeline.filter((e) => e.at === at).map((e) => e.eventKey)).toEqual([first]);
  expect((await readLedgerHead())!.treeSize).toBe(size);
  for (const key of again) expect(await outcomeOf(key)).toEqual({ sequencing: 'SEQUENCED', outcome: { sequenced: true, version: null }, waiting: false });
});
