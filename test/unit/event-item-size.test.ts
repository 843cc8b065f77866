import { itemSize, writeUnits, type Item as PricedItem } from '../../bench/lib/capacity/units';
import { readCanonicalEvent } from '../../functions/domain/ingress/event';
import { eventContentDigest, eventIdentityDigest, sha256Hex } from '../../functions/domain/ingress/identity';
import { receiptOf } from '../../functions/domain/ingress/receive';
import { eventItem, eventOf, type Item, settledItem, waitingOf } from '../../functions/store/dynamodb/pending-items';
import { eventPk, GENESIS_SK, PENDING_INDEX, pendingQueue } from '../../functions/store/layout';
import type { NewEvent } from '../../functions/store/ports/pending';
import { buildEvent } from '../../lib/ingress/emit';

/**
 * An accepted event's item in the table (docs/ingress.md#what-an-accepted-event-stores): within one
 * write unit (1 KB by DynamoDB's item-size rule) while it waits and once settled, and read back
 * exactly as the item that stored every attribute (the layout before) reads.
 */
const STATE_CHANGED = 'svc.living-object.state-changed.v1';
const OBSERVED = 'svc.living-object.authority-observed.v1';
const RECEIVED = '2026-11-26T10:00:00.000Z';

function accepted(type: string, fields: Record<string, string>, webhookId = 'msg_2mJ0dAf6Q1Yk3pW8zR5tN7vB'): NewEvent {
  const raw = JSON.stringify(buildEvent(type, 'ORD-2026-000123', fields, '2026-11-26T09:59:58.123Z'));
  const { event, value } = readCanonicalEvent(raw, [type]);
  const delivery = { sourceId: 'service-platform', webhookId, bodySha256: sha256Hex(raw), receivedAt: RECEIVED };
  const effect = 'ADVANCES_CURRENT_STATE';
  return {
    ...delivery,
    status: 202,
    answer: { status: 202, receipt: receiptOf(delivery, event, effect) },
    identity: { source: event.source, id: event.id, digest: eventIdentityDigest(event), contentSha256: eventContentDigest(value) },
    event: { raw, type: event.type, reference: event.reference, at: event.at, effect },
  };
}

/** The item as the layout before wrote it: every attribute, digests in hexadecimal. */
function itemBefore(event: NewEvent, key: string): Item {
  return {
    pk: { S: key },
    sk: { S: GENESIS_SK },
    sourceId: { S: event.sourceId },
    webhookId: { S: event.webhookId },
    status: { N: String(event.status) },
    answer: { S: JSON.stringify(event.answer) },
    bodySha256: { S: event.bodySha256 },
    receivedAt: { S: event.receivedAt },
    eventSource: { S: event.identity.source },
    eventId: { S: event.identity.id },
    contentSha256: { S: event.identity.contentSha256 },
    event: { S: event.event.raw },
    eventType: { S: event.event.type },
    reference: { S: event.event.reference },
    eventAt: { S: event.event.at },
    effect: { S: event.event.effect },
    sequencing: { S: 'PENDING' },
    [PENDING_INDEX.partitionKey]: { S: pendingQueue(key) },
  };
}

const size = (item: Item) => itemSize(item as PricedItem);
const stateChange = accepted(STATE_CHANGED, { objectType: 'ORDER', previousState: 'CONFIRMED', state: 'SHIPPED' });
const key = eventPk(stateChange.sourceId, stateChange.identity.digest);

describe("an accepted event's item", () => {
  test('a state change waits, and is settled, within one write unit; the layout before took two', () => {
    const waiting = eventItem(stateChange, key);
    const settled = settledItem({ event: { ...stateChange, key, sequencing: 'PENDING' }, outcome: { sequenced: true, version: 1234 }, at: RECEIVED });
    expect(size(itemBefore(stateChange, key))).toBeGreaterThan(1024);
    expect(writeUnits(size(itemBefore(stateChange, key)))).toBe(2);
    for (const item of [waiting, settled]) expect(writeUnits(size(item))).toBe(1);
    // The raw event is most of what is left: it is stored once, as received.
    expect(size(waiting) - size({ event: waiting.event })).toBeLessThan(400);
  });

  test('an observation, and a state change delivered with a webhook-id of 64 characters, stay within one write unit settled', () => {
    const observed = accepted(OBSERVED, { objectType: 'ORDER', state: 'SHIPPED' });
    const longId = accepted(STATE_CHANGED, { objectType: 'ORDER', previousState: 'CONFIRMED', state: 'SHIPPED' }, `msg_${'x'.repeat(60)}`);
    for (const event of [observed, longId]) {
      const k = eventPk(event.sourceId, event.identity.digest);
      expect(writeUnits(size(settledItem({ event: { ...event, key: k, sequencing: 'PENDING' }, outcome: { sequenced: false, reason: 'x'.repeat(40) }, at: RECEIVED })))).toBe(1);
    }
  });

  test('integrated, what is kept for good (the claim of its identity, without its raw event) is about two thirds of the item that waited', () => {
    const settled = (event: NewEvent) => settledItem({ event: { ...event, key: eventPk(event.sourceId, event.identity.digest), sequencing: 'PENDING' }, outcome: { sequenced: true, version: 1234 }, at: RECEIVED });
    const kept = settled(stateChange);
    expect(kept.event).toBeUndefined();
    // docs/ingress.md#what-an-accepted-event-stores states these figures.
    // Waiting, 855 or 856 bytes: its shard of the index (PENDING#0 to PENDING#63) is one digit or two.
    expect([855, 856]).toContain(size(eventItem(stateChange, key)));
    expect(size(kept)).toBe(561);
    expect(writeUnits(size(settled(accepted(STATE_CHANGED, { objectType: 'ORDER', previousState: 'CONFIRMED', state: 'SHIPPED' }, `msg_${'x'.repeat(60)}`))))).toBe(1);
  });

  test('nothing the raw event states, and not the receipt it rebuilds, is stored twice', () => {
    const item = eventItem(stateChange, key);
    for (const repeated of ['answer', 'status', 'eventSource', 'eventId', 'eventType', 'reference', 'eventAt']) expect(item[repeated]).toBeUndefined();
    expect(item.contentSha256.B).toHaveLength(32);
    expect(item.bodySha256.B).toHaveLength(32);
  });

  test('reads back what was stored, the same as an item of the layout before reads', () => {
    const now = eventItem(stateChange, key);
    const before = itemBefore(stateChange, key);
    expect(eventOf(now)).toEqual(eventOf(before));
    expect(waitingOf(now)).toEqual(waitingOf(before));
    expect(waitingOf(now)).toEqual({ ...stateChange, key, sequencing: 'PENDING' });
    const settled = { event: { ...stateChange, key, sequencing: 'PENDING' as const }, outcome: { sequenced: true as const, version: 7 }, at: RECEIVED };
    expect(eventOf(settledItem(settled))).toMatchObject({ answer: stateChange.answer, sequencing: 'SEQUENCED', outcome: { sequenced: true, version: 7 } });
  });

  test('an answer other than the rebuilt receipt, and fields other than the raw event states, are stored whole', () => {
    const answer = { status: 202, receipt: { ...(stateChange.answer as { receipt: object }).receipt, note: 'another form' } };
    const other: NewEvent = { ...stateChange, answer, event: { ...stateChange.event, reference: 'ORD-OTHER', at: '2026-11-26T09:59:58.123+00:00' }, identity: { ...stateChange.identity, contentSha256: 'not-a-digest' } };
    const item = eventItem(other, key);
    expect([item.answer?.S, item.status?.N, item.reference?.S, item.eventAt?.S, item.eventType, item.contentSha256.S]).toEqual([JSON.stringify(answer), '202', 'ORD-OTHER', '2026-11-26T09:59:58.123+00:00', undefined, 'not-a-digest']);
    expect(waitingOf(item)).toEqual({ ...other, key, sequencing: 'PENDING' });
  });
});
