import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GENESIS_SK, PENDING_INDEX, pendingPk, pendingQueue, TTL_ATTRIBUTE } from '../layout';

export { TTL_ATTRIBUTE } from '../layout';
import { allStatedAttributes, answerToStore, digestAttribute, digestOf, rebuiltAnswer, statedAttributes, statedFields } from './event-item-fields';
import type { DeliveryAnswer, NewEvent, Sequencing, SequencingOutcome, Settlement, StoredDelivery, StoredEvent, WaitingEvent } from '../ports/pending';

export type Item = Record<string, AttributeValue>;

/**
 * The pending store's items in the table (layout.ts), two kinds:
 *
 * The event, pk = "P#" + sourceId + "#event:" + identity digest, sk = "#":
 *   sourceId               who sent it
 *   contentSha256          digest of the event's canonical JSON (tells a replay from a reused id), its 32 bytes
 *   webhookId, bodySha256  its first delivery (the body's digest as its 32 bytes)
 *   event                  the raw verified body of its first delivery, as received: its CloudEvents
 *                          identity (source, id), type, subject and instant are read from it
 *   effect                 what the receiver decided it does to its record
 *   eventSource, eventId, eventType, reference, eventAt
 *                          only where the receiver read otherwise than the raw event states (never, today)
 *   status, answer         only when its first delivery was answered otherwise than with the receipt
 *                          these attributes rebuild (event-item-fields.ts; an item written before holds both)
 *   receivedAt             the service clock when it was stored
 *   sequencing             PENDING, then SEQUENCED or SET_ASIDE once the sequencer has settled it
 *   queue                  "PENDING#<n>" while it waits: its shard of the sparse `pending` index
 *                          the sequencer lists (keys only; layout.ts pendingQueue); removed when it is settled
 *   sequencedAt, outcome   when the sequencer settled it, and what it did
 * Once integrated (SEQUENCED) the item is kept for good as the claim of the event's identity, without
 * its raw event (bookkeeping only the sequencer needed): every stated field is then an attribute of its
 * own, so a replay is still answered as its first delivery was and another event under the same
 * identity is still refused, however long after (docs/deploy.md#what-is-kept-and-for-how-long). An
 * event waiting or set aside keeps its raw event: it may still be integrated.
 * The delivery, pk = "P#" + sourceId + "#" + webhookId, sk = "#":
 *   sourceId, webhookId, status, answer, bodySha256, receivedAt
 *   eventKey               the event it carried, when that event is stored
 *   sequencing             REFUSED for a refusal (404, 409, 422)
 *   expiresAt              DELIVERY_RETENTION_DAYS after it was received: past senders' retries
 * The leading "P#" is all the receivers' IAM policy lets them write.
 */
export function answerItem(d: DeliveryAnswer): Item {
  return { ...answerAttributes(d), [TTL_ATTRIBUTE]: { N: String(expiry(d.receivedAt, DELIVERY_RETENTION_DAYS)) } };
}

/** How long a delivery's answer is kept: longer than any sender's retry schedule (Standard Webhooks senders retry for about a day and a half). */
export const DELIVERY_RETENTION_DAYS = 7;
const expiry = (from: string, days: number): number => Math.floor(Date.parse(from) / 1000) + days * 86_400;

function answerAttributes(d: DeliveryAnswer): Item {
  return {
    pk: { S: pendingPk(d.sourceId, d.webhookId) },
    sk: { S: GENESIS_SK },
    sourceId: { S: d.sourceId },
    webhookId: { S: d.webhookId },
    status: { N: String(d.status) },
    answer: { S: JSON.stringify(d.answer) },
    bodySha256: { S: d.bodySha256 },
    receivedAt: { S: d.receivedAt },
  };
}

/**
 * An accepted event's item, waiting in the pending index; or settled, out of it. What its raw
 * event states and the receipt its first delivery was answered are not stored again
 * (event-item-fields.ts): a state change's item is within one write unit.
 */
export function eventItem(event: NewEvent, key: string, settled?: { outcome: SequencingOutcome; at: string }): Item {
  const fields = { ...event.identity, ...event.event };
  const answer = answerToStore(event.answer, rebuiltAnswer({ ...event, effect: event.event.effect }, fields));
  const item: Item = {
    pk: { S: key },
    sk: { S: GENESIS_SK },
    sourceId: { S: event.sourceId },
    webhookId: { S: event.webhookId },
    bodySha256: digestAttribute(event.bodySha256),
    receivedAt: { S: event.receivedAt },
    ...(answer === null && event.status === ACCEPTED ? {} : { status: { N: String(event.status) }, answer: { S: answer ?? JSON.stringify(event.answer) } }),
    contentSha256: digestAttribute(event.identity.contentSha256),
    event: { S: event.event.raw },
    ...statedAttributes(event.event.raw, fields),
    effect: { S: event.event.effect },
  };
  if (!settled) return { ...item, sequencing: { S: 'PENDING' }, [PENDING_INDEX.partitionKey]: { S: pendingQueue(key) } };
  const done: Item = { ...item, sequencing: { S: settled.outcome.sequenced ? 'SEQUENCED' : 'SET_ASIDE' }, sequencedAt: { S: settled.at }, outcome: { S: JSON.stringify(settled.outcome) } };
  if (!settled.outcome.sequenced) return done;
  // Integrated: the claim of its identity, kept for good (no TTL). A claim that expired would let
  // another event under the same identity in, and the record's entries catch only one that states an
  // instant they are read from; the raw event goes, what it stated stays.
  const { event: _raw, ...claim } = done;
  return { ...claim, ...allStatedAttributes(fields) };
}

const ACCEPTED = 202;

/** A settled event's item (also what the ledger journal holds for it). */
export const settledItem = (s: Settlement): Item => eventItem(s.event, s.event.key, s);

/** An event item's status and first answer: as stored, or the receipt rebuilt from the item. */
function answerOf(item: Item, fields: ReturnType<typeof statedFields>): { status: number; answer: unknown } {
  if (item.answer?.S) return { status: Number(item.status!.N), answer: JSON.parse(item.answer.S) };
  return { status: ACCEPTED, answer: rebuiltAnswer({ sourceId: item.sourceId!.S!, webhookId: item.webhookId!.S!, receivedAt: item.receivedAt!.S!, effect: item.effect!.S! }, fields) };
}

export function eventOf(item: Item): StoredEvent {
  return {
    key: item.pk!.S!,
    contentSha256: digestOf(item.contentSha256)!,
    ...answerOf(item, statedFields(item)),
    sequencing: item.sequencing!.S! as Sequencing,
    sequencedAt: item.sequencedAt?.S ?? null,
    outcome: item.outcome?.S ? (JSON.parse(item.outcome.S) as SequencingOutcome) : null,
  };
}

export const deliveryOf = (item: Item): StoredDelivery => ({
  status: Number(item.status!.N),
  answer: JSON.parse(item.answer!.S!),
  bodySha256: item.bodySha256!.S!,
  eventKey: item.eventKey?.S ?? null,
});

export function waitingOf(item: Item): WaitingEvent {
  const fields = statedFields(item);
  return {
    key: item.pk!.S!,
    sourceId: item.sourceId!.S!,
    webhookId: item.webhookId!.S!,
    bodySha256: digestOf(item.bodySha256)!,
    receivedAt: item.receivedAt!.S!,
    ...answerOf(item, fields),
    identity: { source: fields.source, id: fields.id, digest: item.pk!.S!.slice(item.pk!.S!.lastIndexOf(':') + 1), contentSha256: digestOf(item.contentSha256)! },
    event: { raw: item.event!.S!, type: fields.type, reference: fields.reference, at: fields.at, effect: item.effect!.S! },
    sequencing: item.sequencing!.S! as Sequencing,
  };
}
