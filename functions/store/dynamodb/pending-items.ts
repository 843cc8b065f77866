import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { GENESIS_SK, PENDING_INDEX, pendingPk, pendingQueue, TTL_ATTRIBUTE } from '../layout';

export { TTL_ATTRIBUTE } from '../layout';
import type { DeliveryAnswer, NewEvent, Sequencing, SequencingOutcome, Settlement, StoredDelivery, StoredEvent, WaitingEvent } from '../ports/pending';

export type Item = Record<string, AttributeValue>;

/**
 * The pending store's items in the table (layout.ts), two kinds:
 *
 * The event, pk = "P#" + sourceId + "#event:" + identity digest, sk = "#":
 *   sourceId, eventSource, eventId   who sent it and its CloudEvents identity (source, id)
 *   contentSha256          digest of the event's canonical JSON (tells a replay from a reused id)
 *   webhookId, bodySha256  its first delivery
 *   status, answer         202 and the receipt its first delivery was answered
 *   event                  the raw verified body of its first delivery, as received
 *   eventType, reference, eventAt, effect
 *   receivedAt             the service clock when it was stored
 *   sequencing             PENDING, then SEQUENCED or SET_ASIDE once the sequencer has settled it
 *   queue                  "PENDING#<n>" while it waits: its shard of the sparse `pending` index
 *                          the sequencer lists (keys only; layout.ts pendingQueue); removed when it is settled
 *   sequencedAt, outcome   when the sequencer settled it, and what it did
 *   expiresAt              once integrated: when DynamoDB's TTL may delete it (EVENT_RETENTION_DAYS
 *                          after it was settled). Its identity stays on the record's entry forever, which
 *                          is what keeps it integrated once (docs/deploy.md#what-is-kept-and-for-how-long).
 *                          An event set aside keeps its item: it may still be integrated.
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
/** How long an integrated event's item is kept after the sequencer settled it: a replay in this time is answered as its first delivery was. */
export const EVENT_RETENTION_DAYS = 30;
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

/** An accepted event's item, waiting in the pending index; or settled, out of it. */
export function eventItem(event: NewEvent, key: string, settled?: { outcome: SequencingOutcome; at: string }): Item {
  const item: Item = {
    ...answerAttributes(event),
    pk: { S: key },
    eventSource: { S: event.identity.source },
    eventId: { S: event.identity.id },
    contentSha256: { S: event.identity.contentSha256 },
    event: { S: event.event.raw },
    eventType: { S: event.event.type },
    reference: { S: event.event.reference },
    eventAt: { S: event.event.at },
    effect: { S: event.event.effect },
  };
  if (!settled) return { ...item, sequencing: { S: 'PENDING' }, [PENDING_INDEX.partitionKey]: { S: pendingQueue(key) } };
  const done = { ...item, sequencing: { S: settled.outcome.sequenced ? 'SEQUENCED' : 'SET_ASIDE' }, sequencedAt: { S: settled.at }, outcome: { S: JSON.stringify(settled.outcome) } };
  return settled.outcome.sequenced ? { ...done, [TTL_ATTRIBUTE]: { N: String(expiry(settled.at, EVENT_RETENTION_DAYS)) } } : done;
}

/** A settled event's item (also what the ledger journal holds for it). */
export const settledItem = (s: Settlement): Item => eventItem(s.event, s.event.key, s);

export function eventOf(item: Item): StoredEvent {
  return {
    key: item.pk!.S!,
    contentSha256: item.contentSha256!.S!,
    status: Number(item.status!.N),
    answer: JSON.parse(item.answer!.S!),
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
  return {
    key: item.pk!.S!,
    sourceId: item.sourceId!.S!,
    webhookId: item.webhookId!.S!,
    bodySha256: item.bodySha256!.S!,
    receivedAt: item.receivedAt!.S!,
    status: Number(item.status!.N),
    answer: JSON.parse(item.answer!.S!),
    identity: { source: item.eventSource!.S!, id: item.eventId!.S!, digest: item.pk!.S!.slice(item.pk!.S!.lastIndexOf(':') + 1), contentSha256: item.contentSha256!.S! },
    event: { raw: item.event!.S!, type: item.eventType!.S!, reference: item.reference!.S!, at: item.eventAt!.S!, effect: item.effect!.S! },
    sequencing: item.sequencing!.S! as Sequencing,
  };
}

