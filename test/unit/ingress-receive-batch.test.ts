import fc from 'fast-check';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { arrayItemTexts, readBatchBody, BatchRefused } from '../../functions/domain/ingress/batch-body';
import { sha256Hex } from '../../functions/domain/ingress/identity';
import { receiveDelivery, type Delivery, type ReceiverStores } from '../../functions/domain/ingress/receive';
import { receiveBatch, type BatchAnswer } from '../../functions/domain/ingress/receive-batch';
import { readCanonicalEvent } from '../../functions/domain/ingress/event';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { memoryTileStore } from '../../functions/ledger-writer/tile-store';
import { StoreUnavailable } from '../../functions/store/errors';
import { memoryStores, type MemoryStores } from '../../functions/store/memory';
import { buildEvent } from '../../lib/ingress/emit';
import { loadDocument } from '../../lib/loader/load';
import { wholeRecord } from '../support/stores';

/**
 * Many events in one delivery (docs/ingress.md#many-events-in-one-delivery), in the domain
 * (functions/domain/ingress/receive-batch.ts) on the stores in memory: each event its own identity,
 * rules and answer; the webhook-id answered once; the reads sent together and the claims at once;
 * a store that stops mid-batch leaves every event stored once or answered as not stored, and the
 * retry completes it. The same through HTTP and DynamoDB: test/e2e/ingress-batch.test.ts.
 */
const OBJECT = DEMO_OBJECTS.current;
const OTHER = DEMO_OBJECTS.revoked;
const SOURCE = 'service-platform';
const ACCEPTS = ['svc.living-object.state-changed.v1', 'svc.living-object.authority-observed.v1'];
const signer = signerFromKey(formatSignerKey('ingress-batch.test/ledger', Buffer.alloc(32, 44)));

let stores: MemoryStores;
let tiles: ReturnType<typeof memoryTileStore>;
beforeEach(async () => {
  stores = memoryStores();
  tiles = memoryTileStore();
  const document = demoDocument(new Date(Date.now() - 60 * 60_000));
  document.records = (document.records as Array<{ reference: string }>).filter((r) => r.reference === OBJECT || r.reference === OTHER);
  await loadDocument(document, { stores, signer, tiles });
});

const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();
const change = (reference: string, previousState: string, state: string, id: string, secondsAgo = 5) =>
  buildEvent('svc.living-object.state-changed.v1', reference, { previousState, state }, at(secondsAgo), id);
const observe = (reference: string, state: string, id: string, secondsAgo = 5) => buildEvent('svc.living-object.authority-observed.v1', reference, { objectType: 'ORDER', state }, at(secondsAgo), id);

/** A verified batch delivery of `events` (a JSON text each, or a value), read as a receiver reads it. */
function batch(events: readonly unknown[], webhookId: string): [Delivery, string] {
  const body = `[${events.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join(',')}]`;
  return [{ sourceId: SOURCE, webhookId, bodySha256: sha256Hex(body), receivedAt: new Date().toISOString() }, body];
}
const send = ([d, body]: [Delivery, string]) => receiveBatch(stores, d, readBatchBody(body, ACCEPTS));
const results = (answer: BatchAnswer) => ('items' in answer ? answer.items.map((i) => `${i.index}:${i.result}:${i.status}${i.problem ? `:${i.problem.code}` : ''}`) : answer);
const waiting = () => stores.pending.listWaiting(1000);

test('a mixed batch: each event its own answer in order, a bad one never sinking the good ones, the answer 200', async () => {
  const seenBefore = observe(OBJECT, 'DELIVERED', 'seen-before');
  await receiveDelivery(stores, ...(() => {
    const body = JSON.stringify(seenBefore);
    return [{ sourceId: SOURCE, webhookId: 'msg_single', bodySha256: sha256Hex(body), receivedAt: new Date().toISOString() }, { ...readCanonicalEvent(body, ACCEPTS), raw: body }] as const;
  })());
  const first = change(OBJECT, 'DELIVERED', 'RETURNED', 'b-1');
  const answer = await send(
    batch(
      [
        first,
        change(OTHER, 'PLACED', 'SHIPPED', 'b-2'), // the demo's cancelled order: may only be archived
        '{"specversion":"1.0","id":"b-3"}', // not an event
        seenBefore, // stored before, by a delivery of one event
        first, // the first item again
        change(OBJECT, 'DELIVERED', 'ARCHIVED', 'b-1'), // its id again, other content
        '{"specversion":"1.0","specversion":"1.0"}', // a member name twice
      ],
      'msg_mixed',
    ),
  );
  expect(answer.status).toBe(200);
  expect(results(answer)).toEqual([
    '0:ACCEPTED:202',
    '1:REFUSED:409:TRANSITION_FORBIDDEN',
    '2:REFUSED:422:INVALID_REQUEST',
    '3:ALREADY_STORED:202',
    '4:ALREADY_STORED:202',
    '5:REFUSED:409:EVENT_ID_REUSED',
    '6:REFUSED:422:INVALID_REQUEST',
  ]);
  const items = (answer as Extract<BatchAnswer, { status: 200 }>).items;
  expect(items[0].receipt).toMatchObject({ webhookId: 'msg_mixed', eventId: 'b-1', effect: 'ADVANCES_CURRENT_STATE', sequencing: 'PENDING' });
  expect(items[3].receipt).toMatchObject({ webhookId: 'msg_single', eventId: 'seen-before' });
  expect(items[4].receipt).toEqual(items[0].receipt);
  expect(items[6].problem!.extra).toMatchObject({ field: 'specversion' });
  expect(await waiting()).toHaveLength(2);
  expect(answer.notes[0]).toEqual({ level: 'info', message: 'batch received', fields: expect.objectContaining({ events: 7, accepted: 1, alreadyStored: 2, refused: 4 }) });
});

test('the same webhook-id again: the same answer, replayed, with where each event stands now; another body is 409, and so is one event under it', async () => {
  const delivery = batch([change(OBJECT, 'DELIVERED', 'RETURNED', 'r-1'), change(OTHER, 'PLACED', 'SHIPPED', 'r-2'), '[]'], 'msg_repeat');
  const first = await send(delivery);
  await sequenceAll({ ...stores, signer, tiles });
  const again = await send([{ ...delivery[0], receivedAt: new Date(Date.now() + 1000).toISOString() }, delivery[1]]);
  expect(again).toMatchObject({ status: 200, replayed: true, receivedAt: (first as { receivedAt: string }).receivedAt });
  expect(results(again)).toEqual(results(first));
  const [accepted] = (again as Extract<BatchAnswer, { status: 200 }>).items;
  expect(accepted.receipt).toMatchObject({ webhookId: 'msg_repeat', sequencing: 'SEQUENCED', recordVersion: expect.any(Number) });
  expect((await send(batch([change(OBJECT, 'RETURNED', 'ARCHIVED', 'r-3')], 'msg_repeat'))).status).toBe(409);
  const single = JSON.stringify(change(OBJECT, 'RETURNED', 'ARCHIVED', 'r-4'));
  const alone = await receiveDelivery(stores, { ...delivery[0], bodySha256: sha256Hex(single) }, { ...readCanonicalEvent(single, ACCEPTS), raw: single });
  expect(alone.outcome).toMatchObject({ status: 409, code: 'WEBHOOK_ID_REUSED' });
  expect(await waiting()).toHaveLength(0);
});

test('a batch under the webhook-id of a delivery of one event is 409 WEBHOOK_ID_REUSED, whatever the body', async () => {
  const body = JSON.stringify(change(OBJECT, 'DELIVERED', 'RETURNED', 's-1'));
  await receiveDelivery(stores, { sourceId: SOURCE, webhookId: 'msg_one', bodySha256: sha256Hex(body), receivedAt: new Date().toISOString() }, { ...readCanonicalEvent(body, ACCEPTS), raw: body });
  const answer = await send(batch([change(OBJECT, 'DELIVERED', 'RETURNED', 's-2')], 'msg_one'));
  expect(answer).toMatchObject({ status: 409, refusal: { code: 'WEBHOOK_ID_REUSED' } });
});

test('the reads are sent together and the claims at once, not one event after another', async () => {
  const inFlight = { now: 0, most: 0 };
  const track = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    inFlight.most = Math.max(inFlight.most, ++inFlight.now);
    await new Promise((r) => setTimeout(r, 5));
    try {
      return await fn(...args);
    } finally {
      inFlight.now--;
    }
  };
  const calls: string[] = [];
  const pending = stores.pending;
  const records = stores.records;
  const tracked = {
    pending: Object.assign(Object.create(pending), {
      lookUpBatch: track((...a: Parameters<typeof pending.lookUpBatch>) => (calls.push('lookUpBatch'), pending.lookUpBatch(...a))),
      claim: track((...a: Parameters<typeof pending.claim>) => (calls.push('claim'), pending.claim(...a))),
      answerOnce: (...a: Parameters<typeof pending.answerOnce>) => (calls.push('answerOnce'), pending.answerOnce(...a)),
    }),
    records: { readWindow: track((...a: Parameters<typeof records.readWindow>) => (calls.push('readWindow'), records.readWindow(...a))) } as ReceiverStores['records'],
  };
  const events = Array.from({ length: 40 }, (_, i) => observe(OBJECT, 'DELIVERED', `o-${i}`, 40 - i));
  const answer = await receiveBatch(tracked, batch([...events, observe(OTHER, 'CANCELLED', 'o-other', 1)], 'msg_overlap')[0], readBatchBody(batch([...events, observe(OTHER, 'CANCELLED', 'o-other', 1)], 'x')[1], ACCEPTS));
  expect(results(answer)).toEqual(Array.from({ length: 41 }, (_, i) => `${i}:ACCEPTED:202`));
  // One look-up for every identity and the webhook-id, one read per record, sent together, then the 41 claims 25 at once.
  expect(calls.filter((c) => c === 'lookUpBatch')).toHaveLength(1);
  expect(calls.filter((c) => c === 'readWindow')).toHaveLength(2);
  expect(calls.filter((c) => c === 'answerOnce')).toHaveLength(1);
  expect(inFlight.most).toBe(25);
});

test('a store that stops mid-batch: every event stored once or answered NOT_STORED (503, the answer not kept); the retry completes it, nothing twice', async () => {
  const events = Array.from({ length: 10 }, (_, i) => observe(OBJECT, 'DELIVERED', `f-${i}`, 20 - i));
  const delivery = batch([...events, change(OTHER, 'PLACED', 'SHIPPED', 'f-refused')], 'msg_fault');
  const claim = stores.pending.claim.bind(stores.pending);
  let claims = 0;
  stores.pending.claim = async (event) => {
    if (++claims > 4) throw new StoreUnavailable('PutItem event');
    return claim(event);
  };
  const first = await send(delivery);
  expect(first.status).toBe(503);
  const firstItems = (first as Extract<BatchAnswer, { status: 503 }>).items;
  expect(firstItems.filter((i) => i.result === 'ACCEPTED')).toHaveLength(4);
  expect(firstItems.filter((i) => i.result === 'NOT_STORED')).toHaveLength(6);
  expect(await waiting()).toHaveLength(4);
  expect((await stores.pending.lookUpBatch({ sourceId: SOURCE, webhookId: 'msg_fault' }, [])).delivery).toBeNull();

  stores.pending.claim = claim;
  const retried = await send(delivery);
  expect(results(retried)).toEqual([...Array.from({ length: 10 }, (_, i) => `${i}:ACCEPTED:202`), '10:REFUSED:409:TRANSITION_FORBIDDEN']);
  expect((retried as Extract<BatchAnswer, { status: 200 }>).items.every((i) => !i.receipt || i.receipt.webhookId === 'msg_fault')).toBe(true);
  expect(await waiting()).toHaveLength(10);
  await sequenceAll({ ...stores, signer, tiles });
  const observed = (await wholeRecord(stores.records, OBJECT))!.filter((e) => e.eventKey);
  expect(observed).toHaveLength(10);
});

test('the answer itself not kept (the store stops at the last write): the events are stored, the retry answers them ACCEPTED and keeps the answer', async () => {
  const delivery = batch([observe(OBJECT, 'DELIVERED', 'k-1'), observe(OBJECT, 'DELIVERED', 'k-2')], 'msg_keep');
  const answerOnce = stores.pending.answerOnce.bind(stores.pending);
  stores.pending.answerOnce = async () => {
    throw new StoreUnavailable('PutItem pending delivery');
  };
  await expect(send(delivery)).rejects.toThrow(StoreUnavailable);
  stores.pending.answerOnce = answerOnce;
  expect(results(await send(delivery))).toEqual(['0:ACCEPTED:202', '1:ACCEPTED:202']);
  expect(await send(delivery)).toMatchObject({ replayed: true });
  expect(await waiting()).toHaveLength(2);
});

test('twenty copies of one batch at once: each event stored once, every copy answered with every event stored', async () => {
  const delivery = batch(Array.from({ length: 5 }, (_, i) => observe(OBJECT, 'DELIVERED', `c-${i}`, 10 - i)), 'msg_copies');
  const answers = await Promise.all(Array.from({ length: 20 }, () => send(delivery)));
  for (const answer of answers) expect(results(answer)).toEqual(Array.from({ length: 5 }, (_, i) => `${i}:ACCEPTED:202`));
  expect(await waiting()).toHaveLength(5);
});

test('an empty batch is answered with no items and stores nothing; a body that is not an array, or holds over 100 events, is refused whole', async () => {
  expect(await send(batch([], 'msg_empty'))).toMatchObject({ status: 200, items: [] });
  expect((await stores.pending.lookUpBatch({ sourceId: SOURCE, webhookId: 'msg_empty' }, [])).delivery).toBeNull();
  expect(() => readBatchBody('{"specversion":"1.0"}', ACCEPTS)).toThrow(expect.objectContaining({ status: 422 }));
  expect(() => readBatchBody('[1,', ACCEPTS)).toThrow(BatchRefused);
  expect(() => readBatchBody(JSON.stringify(Array.from({ length: 101 }, () => ({}))), ACCEPTS)).toThrow(expect.objectContaining({ status: 413 }));
  const big = JSON.stringify({ ...observe(OBJECT, 'DELIVERED', 'big'), padding: 'x'.repeat(17 * 1024) });
  expect(readBatchBody(`[${big}]`, ACCEPTS)[0]).toMatchObject({ invalid: { status: 413, code: 'PAYLOAD_TOO_LARGE' } });
});

describe('seeded fuzzing', () => {
  const jsonValue = fc.jsonValue({ maxDepth: 4 });
  const spacing = fc.constantFrom('', ' ', '\n', '\t ', ' \r\n');

  test('the items of any JSON array are cut as JSON.parse reads them, whatever the spacing and strings', () => {
    fc.assert(
      fc.property(fc.array(jsonValue, { maxLength: 12 }), spacing, (values, space) => {
        const text = `${space}[${space}${values.map((v) => JSON.stringify(v, null, space.includes('\n') ? 1 : undefined)).join(`${space},${space}`)}${space}]${space}`;
        const cut = arrayItemTexts(text);
        expect(cut.map((t) => JSON.parse(t))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300, seed: 20261126 },
    );
  });

  test('any batch body is answered (200, or refused whole with 413/422), never an unexpected error, and each event is stored at most once', async () => {
    const valid = fc.integer({ min: 0, max: 5 }).map((n) => JSON.stringify(observe(OBJECT, 'DELIVERED', `z-${n}`, 10 + n)));
    const broken = fc.oneof(
      jsonValue.map((v) => JSON.stringify(v)),
      valid.map((e) => e.replace('"data"', '"data2"')),
      valid.map((e) => e.replace('{', '{"id":"dup",')),
      valid.map((e) => e.replace('DELIVERED', 'RETURNED')),
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: fc.array(fc.oneof(valid, broken), { maxLength: 12 }).map((items) => `[${items.join(',')}]`) },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
      { weight: 1, arbitrary: jsonValue.map((v) => JSON.stringify(v)) },
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const delivery: Delivery = { sourceId: SOURCE, webhookId: `msg_fuzz_${n++}`, bodySha256: sha256Hex(text), receivedAt: new Date().toISOString() };
        let items;
        try {
          items = readBatchBody(text, ACCEPTS);
        } catch (error) {
          expect(error).toBeInstanceOf(BatchRefused);
          return;
        }
        const answer = await receiveBatch(stores, delivery, items);
        expect(answer.status).toBe(200);
        expect((answer as Extract<BatchAnswer, { status: 200 }>).items).toHaveLength(items.length);
        const keys = await stores.pending.listWaiting(1000);
        expect(new Set(keys).size).toBe(keys.length);
      }),
      { numRuns: 150, seed: 20261126 },
    );
    expect((await waiting()).length).toBeLessThanOrEqual(6);
  });
});
