import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { eventIdentityDigest, eventContentDigest } from '../../functions/domain/ingress/identity';
import { tableStores } from '../../functions/store/dynamodb';
import { rebuiltAnswer } from '../../functions/store/dynamodb/event-item-fields';
import { answerItem, eventItem, settledItem } from '../../functions/store/dynamodb/pending-items';
import { putItems } from '../../functions/store/dynamodb/put-items';
import { eventPk, PENDING_INDEX, TTL_ATTRIBUTE } from '../../functions/store/layout';
import type { NewEvent, SequencingOutcome } from '../../functions/store/ports/pending';
import { ensureTable } from '../../functions/store/write';
import { buildEvent } from '../../lib/ingress/emit';
import { integratedClaims } from '../../lib/migrate/steps/integrated-claims';
import { embeddedStoreForFile, scanTable } from '../support/embedded-table';

/**
 * The migration of integrated events' items (lib/migrate/steps/integrated-claims.ts): an item the
 * layout before kept with its raw event and a TTL becomes exactly what the sequencer writes today,
 * the claim of its identity kept for good; what a receiver reads of it answers the same; events
 * waiting or set aside and deliveries' answers are left as they are; a second run changes nothing.
 */
type Item = Record<string, AttributeValue>;
const TABLE = 'claims';
const SOURCE = 'service-platform';
const embedded = embeddedStoreForFile();
const at = '2026-11-20T10:00:00.000Z';
const settledAt = '2026-11-20T10:00:05.000Z';

function newEvent(n: number): NewEvent {
  const body = buildEvent('svc.living-object.state-changed.v1', `ORD-${n}`, { previousState: 'CREATED', state: 'SHIPPED' }, at, `event-${n}`) as { source: string; id: string };
  const delivery = { sourceId: SOURCE, webhookId: `msg_${n}`, receivedAt: at, effect: 'ADVANCES_CURRENT_STATE' };
  return {
    ...delivery,
    bodySha256: 'ab'.repeat(32),
    status: 202,
    // The receipt its first delivery was answered, as a receiver gives it.
    answer: rebuiltAnswer(delivery, { source: body.source, id: body.id, type: 'svc.living-object.state-changed.v1', reference: `ORD-${n}`, at }),
    identity: { source: body.source, id: body.id, digest: eventIdentityDigest(body), contentSha256: eventContentDigest(body) },
    event: { raw: JSON.stringify(body), type: 'svc.living-object.state-changed.v1', reference: `ORD-${n}`, at, effect: 'ADVANCES_CURRENT_STATE' },
  };
}

/** An event's item as the layout before settled it: the waiting item, its place in the index removed, its outcome, and a TTL 30 days on; written independently of eventItem's settled form. */
function settledBefore(event: NewEvent, outcome: SequencingOutcome): Item {
  const { [PENDING_INDEX.partitionKey]: _queue, ...waiting } = eventItem(event, eventPk(SOURCE, event.identity.digest));
  const sequencing = outcome.sequenced ? 'SEQUENCED' : 'SET_ASIDE';
  const item: Item = { ...waiting, sequencing: { S: sequencing }, sequencedAt: { S: settledAt }, outcome: { S: JSON.stringify(outcome) } };
  return outcome.sequenced ? { ...item, [TTL_ATTRIBUTE]: { N: String(Math.floor(Date.parse(settledAt) / 1000) + 30 * 86_400) } } : item;
}

const byKey = (items: readonly Item[]) => new Map(items.map((i) => [i.pk.S!, i] as const));

test('integrated events become their claims kept for good, as the sequencer writes them today; the rest stays; what a receiver reads answers the same; a second run changes nothing', async () => {
  const client = embedded.client();
  await ensureTable(client, TABLE);
  const events = [0, 1, 2, 3].map(newEvent);
  const integrated = { sequenced: true as const, version: 2 };
  const before = [
    settledBefore(events[0], integrated),
    settledBefore(events[1], { sequenced: true, version: null }),
    settledBefore(events[2], { sequenced: false, reason: 'before the object\'s first state' }),
    eventItem(events[3], eventPk(SOURCE, events[3].identity.digest)),
    answerItem({ sourceId: SOURCE, webhookId: 'msg_refused', bodySha256: 'cd'.repeat(32), receivedAt: at, status: 422, answer: { title: 'refused' } }),
  ];
  await putItems(client, TABLE, before);
  const stores = tableStores(client, TABLE);
  const read = () => Promise.all(events.map((e) => stores.pending.lookUp({ sourceId: SOURCE, webhookId: e.webhookId }, e.identity.digest)));
  const answered = await read();

  expect(await integratedClaims({ client, table: TABLE, log: () => undefined })).toBe(2);
  const after = byKey(await scanTable(client, TABLE));
  // Exactly what the sequencer writes today for each; the others as they were.
  const waiting = (n: number) => ({ ...events[n], key: eventPk(SOURCE, events[n].identity.digest), sequencing: 'PENDING' as const });
  expect(after.get(before[0].pk.S!)).toEqual(settledItem({ event: waiting(0), outcome: integrated, at: settledAt }));
  expect(after.get(before[1].pk.S!)).toEqual(settledItem({ event: waiting(1), outcome: { sequenced: true, version: null }, at: settledAt }));
  for (const item of [after.get(before[0].pk.S!)!, after.get(before[1].pk.S!)!]) expect([item.event, item[TTL_ATTRIBUTE]]).toEqual([undefined, undefined]);
  for (const unchanged of before.slice(2)) expect(after.get(unchanged.pk.S!)).toEqual(unchanged);
  expect(await read()).toEqual(answered);

  const snapshot = JSON.stringify([...after.values()].map((i) => JSON.stringify(i)).sort());
  expect(await integratedClaims({ client, table: TABLE, log: () => undefined })).toBe(0);
  expect(JSON.stringify((await scanTable(client, TABLE)).map((i) => JSON.stringify(i)).sort())).toBe(snapshot);
});
