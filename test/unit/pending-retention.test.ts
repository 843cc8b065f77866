import { createHash } from 'node:crypto';
import { answerItem, DELIVERY_RETENTION_DAYS, eventItem, eventOf, settledItem, TTL_ATTRIBUTE } from '../../functions/store/dynamodb/pending-items';
import { PENDING_INDEX, PENDING_SHARDS, pendingQueue, pendingQueues } from '../../functions/store/layout';
import type { NewEvent, WaitingEvent } from '../../functions/store/ports/pending';

const RECEIVED = '2026-11-20T10:00:00.000Z';
const delivery = { sourceId: 'service-platform', webhookId: 'msg_1', bodySha256: 'b', receivedAt: RECEIVED, status: 422, answer: {} };
const event: NewEvent = {
  ...delivery,
  status: 202,
  identity: { source: 'https://platform.example', id: 'e-1', digest: 'ab12', contentSha256: 'c' },
  event: { raw: '{}', type: 't', reference: 'ORD-1', at: RECEIVED, effect: 'ADVANCES_CURRENT_STATE' },
};
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

describe('what is bookkeeping, and for how long (docs/deploy.md#what-is-kept-and-for-how-long)', () => {
  test('a delivery\'s answer expires a week after it was received: past any sender\'s retries', () => {
    expect(DELIVERY_RETENTION_DAYS).toBe(7);
    expect(Number(answerItem(delivery)[TTL_ATTRIBUTE].N)).toBe(seconds(RECEIVED) + 7 * 86_400);
  });

  test('an event waiting, or set aside, never expires; integrated, its claim is kept for good (no TTL)', () => {
    const key = 'P#service-platform#event:ab12';
    expect(eventItem(event, key)[TTL_ATTRIBUTE]).toBeUndefined();
    const waiting: WaitingEvent = { ...event, key, sequencing: 'PENDING' };
    const at = '2026-11-21T00:00:00.000Z';
    expect(settledItem({ event: waiting, outcome: { sequenced: false, reason: 'no record' }, at })[TTL_ATTRIBUTE]).toBeUndefined();
    expect(settledItem({ event: waiting, outcome: { sequenced: true, version: 3 }, at })[TTL_ATTRIBUTE]).toBeUndefined();
  });

  test('an integrated event keeps its identity\'s claim without its raw event, and answers a replay as its first delivery was', () => {
    const raw = JSON.stringify({ specversion: '1.0', source: '/v1/objects', id: 'e-7', type: 'svc.living-object.state-changed.v1', subject: 'ORD-7', time: RECEIVED, data: { changedAt: RECEIVED, previousState: 'CREATED', state: 'SHIPPED' } });
    const key = 'P#service-platform#event:cd34';
    const stated: NewEvent = { ...event, answer: undefined, identity: { ...event.identity, source: '/v1/objects', id: 'e-7' }, event: { raw, type: 'svc.living-object.state-changed.v1', reference: 'ORD-7', at: RECEIVED, effect: 'ADVANCES_CURRENT_STATE' } };
    const waiting: WaitingEvent = { ...stated, key, sequencing: 'PENDING' };
    // The first answer as a receiver stores it: the receipt the item rebuilds.
    const asStored = eventOf(eventItem(stated, key));
    const settled = { event: { ...waiting, answer: asStored.answer }, at: '2026-11-21T00:00:00.000Z' };
    const setAside = settledItem({ ...settled, outcome: { sequenced: false, reason: 'before its first state' } });
    const claim = settledItem({ ...settled, outcome: { sequenced: true, version: 3 } });
    expect(setAside.event.S).toBe(raw);
    expect(claim.event).toBeUndefined();
    expect([claim.eventSource.S, claim.eventId.S, claim.eventType.S, claim.reference.S, claim.eventAt.S]).toEqual(['/v1/objects', 'e-7', 'svc.living-object.state-changed.v1', 'ORD-7', RECEIVED]);
    expect(eventOf(claim)).toEqual({ ...asStored, sequencing: 'SEQUENCED', sequencedAt: settled.at, outcome: { sequenced: true, version: 3 } });
    expect(JSON.stringify(claim).length).toBeLessThan(JSON.stringify(setAside).length);
  });
});

describe('the pending index\'s shards', () => {
  test('an event waits in one shard of its key, the same for every write of it; a settled one in none', () => {
    const key = 'P#service-platform#event:ab12';
    expect(eventItem(event, key)[PENDING_INDEX.partitionKey].S).toBe(pendingQueue(key));
    expect(pendingQueue(key)).toBe(pendingQueue(`${key}`));
    expect(pendingQueues()).toContain(pendingQueue(key));
    expect(settledItem({ event: { ...event, key, sequencing: 'PENDING' }, outcome: { sequenced: true, version: 1 }, at: RECEIVED })[PENDING_INDEX.partitionKey]).toBeUndefined();
  });

  test('events spread evenly: 64,000 keys, no shard above 1.25x its share', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 64_000; i++) {
      // Keys as the receivers make them: a source and the SHA-256 of the event's identity.
      const queue = pendingQueue(`P#source-${i % 7}#event:${createHash('sha256').update(String(i)).digest('hex')}`);
      counts.set(queue, (counts.get(queue) ?? 0) + 1);
    }
    expect(counts.size).toBe(PENDING_SHARDS);
    expect(Math.max(...counts.values())).toBeLessThan(1.25 * (64_000 / PENDING_SHARDS));
  });
});
