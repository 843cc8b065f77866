import { DeleteItemCommand, GetItemCommand, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { tableStores, type TableStores } from '../../functions/store/dynamodb';
import { GENESIS_SK, PENDING_INDEX, TTL_ATTRIBUTE } from '../../functions/store/layout';
import { buildEvent } from '../../lib/ingress/emit';
import { localClient } from '../../lib/local/service';
import { startDemoTable, type DemoTable } from '../support/demo-table';
import { claimAccepted, wholeRecord } from '../support/stores';

/**
 * The sequencer's own guard (defence in depth behind the receivers' claim of an event's identity,
 * docs/ingress.md#exactly-once-per-event): every entry names the identity of the event that made
 * it, so an event found waiting again once it is integrated (its item as a table restored from an
 * earlier backup holds it) makes no second entry and no leaf, and is settled with the version it made.
 */
const TABLE = 'exactly-once';
const signer = signerFromKey(formatSignerKey('exactly-once.test/ledger', Buffer.alloc(32, 11)));
const REFERENCE = DEMO_OBJECTS.current;

let demo: DemoTable;
let stores: TableStores;
let client: ReturnType<typeof localClient>;
beforeAll(async () => {
  demo = await startDemoTable(TABLE, signer, [REFERENCE]);
  client = localClient(demo.store.endpoint);
  stores = tableStores(client, TABLE);
});
afterAll(async () => {
  client?.destroy();
  await demo?.close();
});

const sequence = (batchSize?: number) => sequenceAll({ ...stores, signer, tiles: directoryTileStore(demo.tiles), batchSize });

let received = 0;
const receivedAt = () => new Date(Date.now() - 10_000 + received++).toISOString();

const itemOf = async (key: string) => (await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: key }, sk: { S: GENESIS_SK } }, ConsistentRead: true }))).Item!;

/** The event's item put back as the table held it before the sequencer settled it (a table restored from an earlier backup): waiting again. */
async function waitingAgain(waiting: Record<string, AttributeValue>): Promise<void> {
  await client.send(new PutItemCommand({ TableName: TABLE, Item: waiting }));
}

/** Where the event's item stands: its sequencing, what the sequencer did (the version it made), whether it waits. */
const outcomeOf = async (key: string) => {
  const item = await itemOf(key);
  return { sequencing: item.sequencing?.S, outcome: item.outcome?.S ? JSON.parse(item.outcome.S) : null, waiting: item[PENDING_INDEX.partitionKey] !== undefined };
};

test.each([
  ['a state change (a version)', 'svc.living-object.state-changed.v1', { previousState: 'DELIVERED', state: 'RETURNED' }],
  ['an observation (no version)', 'svc.living-object.authority-observed.v1', { state: 'RETURNED' }],
])('%s integrated, then waiting again: no second entry, no leaf, settled again with what it made', async (_name, type, fields) => {
  const at = new Date(Date.now() - 30_000 + received * 1000).toISOString();
  const key = await claimAccepted(stores.pending, { webhookId: `first-${received}`, raw: JSON.stringify(buildEvent(type, REFERENCE, fields, at)), receivedAt: receivedAt() });
  const waiting = await itemOf(key);
  const before = (await stores.ledger.lock.read())!.treeSize;
  const first = await sequence();
  expect(first.map((r) => [r.deliveries, r.sequenced, r.setAside])).toEqual([[1, 1, 0]]);
  const timeline = (await wholeRecord(stores.records, REFERENCE))!;
  const carrying = timeline.filter((e) => e.at === at);
  expect(carrying.map((e) => e.eventKey)).toEqual([key]);
  const size = (await stores.ledger.lock.read())!.treeSize;
  expect(size).toBe(before + first[0].appended);
  if (carrying[0].entry.type === 'STATE_CHANGED') expect(verifyEvidence(carrying[0].head.content, carrying[0].head.evidence as never, [signer.verifierKey]).ok).toBe(true);
  const settled = await outcomeOf(key);
  expect(settled).toEqual({ sequencing: 'SEQUENCED', outcome: { sequenced: true, version: carrying[0].entry.type === 'STATE_CHANGED' ? carrying[0].head.version : null }, waiting: false });

  await waitingAgain(waiting);
  expect(await outcomeOf(key)).toEqual({ sequencing: 'PENDING', outcome: null, waiting: true });
  const again = await sequence(1);
  expect(again.map((r) => [r.deliveries, r.sequenced, r.appended])).toEqual([[1, 1, 0]]);
  expect(await wholeRecord(stores.records, REFERENCE)).toEqual(timeline);
  expect((await stores.ledger.lock.read())!.treeSize).toBe(size);
  expect(await outcomeOf(key)).toEqual(settled);
});

test('an integrated event\'s claim is kept for good; were it lost (a table restored without it), the event sent again is claimed anew, but makes no second entry and no leaf', async () => {
  const at = new Date(Date.now() - 30_000 + received * 1000).toISOString();
  // An authority's observation of the state the object is in (the tests above left it RETURNED).
  const event = buildEvent('svc.living-object.authority-observed.v1', REFERENCE, { state: 'RETURNED' }, at) as { id: string; data: Record<string, unknown> };
  const raw = JSON.stringify(event);
  const key = await claimAccepted(stores.pending, { webhookId: `kept-${received}`, raw, receivedAt: receivedAt() });
  const [first] = await sequence();
  expect([first.sequenced, first.reasons]).toEqual([1, {}]);
  // Integrated: no TTL, the raw event gone, what it stated kept.
  const item = await itemOf(key);
  expect([item[TTL_ATTRIBUTE], item.event, item.eventId?.S, item.reference?.S]).toEqual([undefined, undefined, event.id, REFERENCE]);
  // The same event, and another under its identity (a later instant), both meet the claim (a replay, and 409 EVENT_ID_REUSED, at the receiver).
  await expect(claimAccepted(stores.pending, { webhookId: `kept-again-${received}`, raw, receivedAt: receivedAt() })).rejects.toThrow('was claimed before');
  const reused = JSON.stringify({ ...event, data: { ...event.data, observedAt: new Date(Date.parse(at) + 1000).toISOString() } });
  await expect(claimAccepted(stores.pending, { webhookId: `kept-reused-${received}`, raw: reused, receivedAt: receivedAt() })).rejects.toThrow('was claimed before');
  const timeline = (await wholeRecord(stores.records, REFERENCE))!;
  const size = (await stores.ledger.lock.read())!.treeSize;

  // The claim lost (a table restored from an export without it); then the sender sends the same CloudEvent again, under a new webhook-id.
  await client.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: { S: key }, sk: { S: GENESIS_SK } } }));
  expect(await claimAccepted(stores.pending, { webhookId: `lost-again-${received}`, raw, receivedAt: receivedAt() })).toBe(key);
  const again = await sequence();
  expect(again.map((r) => [r.deliveries, r.sequenced, r.appended])).toEqual([[1, 1, 0]]);
  expect(await wholeRecord(stores.records, REFERENCE)).toEqual(timeline);
  expect((await stores.ledger.lock.read())!.treeSize).toBe(size);
  expect(timeline.filter((e) => e.eventKey === key)).toHaveLength(1);
  expect((await outcomeOf(key)).outcome).toEqual({ sequenced: true, version: null });
});
