import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { readCanonicalEvent } from '../../functions/domain/ingress/event';
import { eventIdentityDigest, sha256Hex } from '../../functions/domain/ingress/identity';
import { receiveDelivery, type Delivery, type ReadBody } from '../../functions/domain/ingress/receive';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { memoryTileStore } from '../../functions/ledger-writer/tile-store';
import { eventPk } from '../../functions/store/layout';
import { memoryStores, type MemoryStores } from '../../functions/store/memory';
import { buildEvent } from '../../lib/ingress/emit';
import { loadDocument } from '../../lib/loader/load';
import { wholeRecord } from '../support/stores';

/**
 * Exactly once per event (docs/ingress.md#exactly-once-per-event, #idempotency-and-durability),
 * in the domain (functions/domain/ingress/receive.ts) and the pending store's promises, on the
 * stores in memory: the event's identity first, then the webhook-id, then the kind's rules; the
 * claim of the identity is the event's durable store; a delivery stopped with its claim stored
 * and its note not is answered from the stored event, one with its note stored and its claim not
 * is judged again. The same through HTTP and DynamoDB: test/e2e/ingress-exactly-once.test.ts.
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

test('a receiver stopped with its claim stored and its note not: the retry and a copy under another webhook-id are answered as its first delivery, one fact', async () => {
  const body = change('RETURNED', 'e-6');
  const stopped = delivery(body, 'msg_stopped');
  const claimNoted = stores.pending.claimNoted.bind(stores.pending);
  stores.pending.claimNoted = (event) => stores.pending.claim(event).then(() => new Promise(() => undefined));
  void receive(stopped);
  await new Promise((r) => setTimeout(r, 20));
  stores.pending.claimNoted = claimNoted;
  const retried = await receive(stopped);
  const copy = await receive(delivery(body));
  for (const answer of [retried, copy]) expect(answer).toMatchObject({ replayed: true, outcome: { status: 202, receipt: { webhookId: 'msg_stopped', eventId: 'e-6' } } });
  expect(await waiting()).toHaveLength(1);
  await sequenceAll({ ...stores, signer, tiles });
  expect((await wholeRecord(stores.records, REFERENCE))!.filter((e) => e.entry.state === 'RETURNED')).toHaveLength(1);
});

describe('a receiver stopped with its note stored and its claim not (the two are sent together)', () => {
  /** What such a stop leaves: the delivery noted as carrying the event of `body`, which is not stored. */
  async function noteOnly(body: string, webhookId: string) {
    const [d, read] = delivery(body, webhookId);
    if (!('event' in read)) throw new Error('a canonical event was expected');
    const key = eventPk(SOURCE, eventIdentityDigest(read.event));
    await stores.pending.noteDelivery({ ...d, status: 202, answer: { never: 'answered' } }, key);
    expect((await stores.pending.lookUp(d, '')).delivery).toMatchObject({ status: 202, eventKey: key, event: null });
  }

  test('the retry is judged and stored as a first delivery: 202 not replayed, one event, and the note then names it', async () => {
    const body = change('RETURNED', 'e-10');
    await noteOnly(body, 'msg_note_only');
    const retried = await receive(delivery(body, 'msg_note_only'));
    expect(retried).toMatchObject({ replayed: false, outcome: { status: 202, receipt: { webhookId: 'msg_note_only', eventId: 'e-10' } } });
    expect(await waiting()).toHaveLength(1);
    expect(await receive(delivery(body, 'msg_note_only'))).toMatchObject({ replayed: true, outcome: retried.outcome });
    expect((await stores.pending.lookUp({ sourceId: SOURCE, webhookId: 'msg_note_only' }, '')).delivery).toMatchObject({ status: 202, event: { contentSha256: expect.any(String) } });
  });

  test('another body under its webhook-id is taken as the first answer (the stopped one answered nothing), and the stopped body is then 409 WEBHOOK_ID_REUSED', async () => {
    const stoppedBody = change('RETURNED', 'e-11');
    await noteOnly(stoppedBody, 'msg_reused');
    expect((await receive(delivery(change('CANCELLED', 'e-12'), 'msg_reused'))).outcome).toMatchObject({ status: 202, receipt: { eventId: 'e-12' } });
    expect((await receive(delivery(stoppedBody, 'msg_reused'))).outcome).toMatchObject({ status: 409, code: 'WEBHOOK_ID_REUSED' });
    expect(await waiting()).toHaveLength(1);
  });
});

test('an event lost to another under its identity while its delivery was noted: 409 EVENT_ID_REUSED, and so on every retry', async () => {
  // Two deliveries of different events under one identity at once: each claim is sent with its note.
  const [a, b] = [delivery(change('RETURNED', 'e-13'), 'msg_race_a'), delivery(change('CANCELLED', 'e-13'), 'msg_race_b')];
  const answers = await Promise.all([receive(a), receive(b)]);
  expect(answers.map((x) => x.outcome.status).sort()).toEqual([202, 409]);
  const loser = answers[0].outcome.status === 409 ? a : b;
  for (let i = 0; i < 2; i++) expect((await receive(loser)).outcome).toMatchObject({ status: 409, code: 'EVENT_ID_REUSED' });
  expect(await waiting()).toHaveLength(1);
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
