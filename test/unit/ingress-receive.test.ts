import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { readCanonicalEvent } from '../../functions/domain/ingress/event';
import { sha256Hex } from '../../functions/domain/ingress/identity';
import { receiveDelivery, type Delivery, type ReadBody } from '../../functions/domain/ingress/receive';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { memoryTileStore } from '../../functions/ledger-writer/tile-store';
import { memoryStores, type MemoryStores } from '../../functions/store/memory';
import { buildEvent } from '../../lib/ingress/emit';
import { loadDocument } from '../../lib/loader/load';
import { wholeRecord } from '../support/stores';

/**
 * Exactly once per event (docs/ingress.md#exactly-once-per-event, #idempotency-and-durability),
 * in the domain (functions/domain/ingress/receive.ts) and the pending store's promises, on the
 * stores in memory: the event's identity first, then the webhook-id, then the kind's rules; the
 * claim of the identity is the event's durable store; a delivery stopped between its two writes
 * is answered from the stored event. The same through HTTP and DynamoDB: test/e2e/ingress-exactly-once.test.ts.
 */
const REFERENCE = DEMO_OBJECTS.current;
const SOURCE = 'service-platform';
const ACCEPTS = ['svc.living-object.state-changed.v1', 'svc.living-object.authority-observed.v1'];
const signer = signerFromKey(formatSignerKey('ingress-receive.test/ledger', Buffer.alloc(32, 43)));

let stores: MemoryStores;
let tiles: ReturnType<typeof memoryTileStore>;
beforeEach(async () => {
  stores = memoryStores();
  tiles = memoryTileStore();
  const document = demoDocument(new Date(Date.now() - 60 * 60_000));
  document.records = (document.records as Array<{ reference: string }>).filter((r) => r.reference === REFERENCE);
  await loadDocument(document, { stores, signer, tiles });
});

let deliveries = 0;
/** A verified delivery of `body` (its webhook-id new unless given), read as a receiver reads it. */
function delivery(body: string, webhookId = `msg_${deliveries++}`): [Delivery, ReadBody] {
  const read = readCanonicalEvent(body, ACCEPTS);
  return [{ sourceId: SOURCE, webhookId, bodySha256: sha256Hex(body), receivedAt: new Date().toISOString() }, { ...read, raw: body }];
}
const receive = (d: [Delivery, ReadBody]) => receiveDelivery(stores, d[0], d[1]);
const change = (state: string, id?: string) => JSON.stringify(buildEvent('svc.living-object.state-changed.v1', REFERENCE, { previousState: 'DELIVERED', state }, new Date(Date.now() - 1000).toISOString(), id));
const waiting = () => stores.pending.listWaiting(100);

test('an event is stored once, waiting for the sequencer, and answered 202 with its receipt', async () => {
  const answer = await receive(delivery(change('RETURNED', 'e-1'), 'msg_first'));
  expect(answer).toMatchObject({ replayed: false, outcome: { status: 202, receipt: { webhookId: 'msg_first', eventId: 'e-1', effect: 'ADVANCES_CURRENT_STATE', sequencing: 'PENDING' } } });
  expect(answer.notes).toEqual([{ level: 'info', message: 'event stored', fields: expect.objectContaining({ eventId: 'e-1', webhookId: 'msg_first' }) }]);
  expect(await waiting()).toHaveLength(1);
});

test('the same event under other webhook-ids, twenty at once: one stored, every answer the first delivery\'s receipt, replayed', async () => {
  const body = change('RETURNED', 'e-2');
  const answers = await Promise.all(Array.from({ length: 20 }, () => receive(delivery(body))));
  expect(await waiting()).toHaveLength(1);
  const receipts = answers.map((a) => (a.outcome as { receipt: unknown }).receipt);
  expect(new Set(receipts.map((r) => JSON.stringify(r))).size).toBe(1);
  expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
});

test('another event under a used id is 409 EVENT_ID_REUSED, logged with the first delivery, and the first event stays; a retry is refused the same way', async () => {
  await receive(delivery(change('RETURNED', 'e-3'), 'msg_a'));
  const reused = delivery(change('CANCELLED', 'e-3'), 'msg_b');
  const refused = await receive(reused);
  expect(refused.outcome).toMatchObject({ status: 409, code: 'EVENT_ID_REUSED', extra: { eventId: 'e-3' } });
  expect(refused.notes).toEqual([{ level: 'warn', message: 'event id reused with other content: refused', fields: expect.objectContaining({ firstWebhookId: 'msg_a', webhookId: 'msg_b' }) }]);
  expect((await receive(reused)).outcome).toMatchObject({ status: 409, code: 'EVENT_ID_REUSED' });
  expect(await waiting()).toHaveLength(1);
});

test('a webhook-id answered before: the same body gets the same answer, replayed; another body is 409 WEBHOOK_ID_REUSED', async () => {
  const refusal = delivery(change('DELIVERED'), 'msg_refused');
  const first = await receive(refusal);
  expect(first.outcome).toMatchObject({ status: 409, code: 'TRANSITION_FORBIDDEN' });
  expect(await receive(refusal)).toEqual({ outcome: first.outcome, replayed: true, notes: [] });
  expect((await receive(delivery(change('RETURNED'), 'msg_refused'))).outcome).toMatchObject({ status: 409, code: 'WEBHOOK_ID_REUSED' });
  expect(await waiting()).toHaveLength(0);
});

test('the identity first: an event accepted under another webhook-id since a refusal of the same delivery is the answer from then on', async () => {
  // A copy of a delivery refused while the record stood otherwise (the narrow race, stated), then its event accepted under another id.
  const body = change('RETURNED', 'e-5');
  const [refusedCopy, read] = delivery(body, 'msg_raced');
  await stores.pending.refuse({ ...refusedCopy, status: 409, answer: { status: 409, code: 'TRANSITION_FORBIDDEN', detail: 'raced', extra: {} } });
  await receive(delivery(body, 'msg_other'));
  const again = await receiveDelivery(stores, refusedCopy, read);
  expect(again).toMatchObject({ replayed: true, outcome: { status: 202, receipt: { webhookId: 'msg_other' } } });
  expect((await stores.pending.lookUp({ sourceId: SOURCE, webhookId: 'msg_raced' }, '')).delivery).toMatchObject({ status: 202, eventKey: expect.any(String) });
});

test('a receiver stopped between its two writes stored the event: the retry and a copy under another webhook-id are answered as its first delivery, one fact', async () => {
  const body = change('RETURNED', 'e-6');
  const stopped = delivery(body, 'msg_stopped');
  const noting = stores.pending.noteDelivery.bind(stores.pending);
  stores.pending.noteDelivery = () => new Promise(() => undefined);
  void receive(stopped);
  await new Promise((r) => setTimeout(r, 20));
  stores.pending.noteDelivery = noting;
  const retried = await receive(stopped);
  const copy = await receive(delivery(body));
  for (const answer of [retried, copy]) expect(answer).toMatchObject({ replayed: true, outcome: { status: 202, receipt: { webhookId: 'msg_stopped', eventId: 'e-6' } } });
  expect(await waiting()).toHaveLength(1);
  await sequenceAll({ ...stores, signer, tiles });
  expect((await wholeRecord(stores.records, REFERENCE))!.filter((e) => e.entry.state === 'RETURNED')).toHaveLength(1);
});

test('once sequenced, a retry says where it stands: SEQUENCED with the version it made; a set-aside one says why', async () => {
  const accepted = delivery(change('RETURNED', 'e-7'));
  await receive(accepted);
  // A change from the state held (accepted against the record as read, set aside against the one sequenced before it).
  const late = delivery(change('RETURNED', 'e-8'));
  await receive(late);
  await sequenceAll({ ...stores, signer, tiles });
  expect((await receive(accepted)).outcome).toMatchObject({ status: 202, receipt: { sequencing: 'SEQUENCED', recordVersion: expect.any(Number), sequencedAt: expect.any(String) } });
  expect((await receive(late)).outcome).toMatchObject({ status: 202, receipt: { sequencing: 'SET_ASIDE', setAsideReason: expect.stringContaining('already RETURNED') } });
});

test('a body that is not one canonical event is refused 422, stored under its webhook-id, and answered so again', async () => {
  const [d] = delivery(change('RETURNED'));
  const invalid: ReadBody = { invalid: { status: 422, code: 'INVALID_REQUEST', detail: "Field 'subject' is wrong.", extra: { field: 'subject' } } };
  expect(await receiveDelivery(stores, d, invalid)).toMatchObject({ replayed: false, outcome: { status: 422, code: 'INVALID_REQUEST' } });
  expect(await receiveDelivery(stores, d, invalid)).toMatchObject({ replayed: true, outcome: { status: 422 } });
});
