import type { IngressReceipt } from '../../contract/ingress';
import type { DeliveryAnswer, ReceivedEvents, StoredDelivery, StoredEvent } from '../../store/ports/pending';
import type { RecordWindows } from '../../store/ports/records';
import type { CanonicalEvent } from './event';
import { eventContentDigest, eventIdentityDigest } from './identity';
import { currentRecordOf, decide } from './rules';

/** A batch's answer as its webhook-id keeps it (receive-batch.ts): a webhook-id is answered in the form it was first delivered in. */
export const isStoredBatch = (answer: unknown): boolean => typeof answer === 'object' && answer !== null && 'batch' in answer;

/**
 * A verified delivery, received once per event (docs/ingress.md#exactly-once-per-event,
 * #idempotency-and-durability): the one operation a receiver runs after reading the body. Pure
 * but for the two stores it is given, so the same rules hold whatever holds them (the table, or
 * memory in tests):
 *   1. together: what is stored for the event's identity (source, id) and for the webhook-id
 *      (the pending store, one call), and the record the event names (one Query);
 *   2. an event already stored is answered from it: the same content as its first delivery was
 *      answered, with where its sequencing stands now; other content is 409 EVENT_ID_REUSED;
 *   3. else a webhook-id answered before gets that answer again (or 409 WEBHOOK_ID_REUSED for
 *      another body); a note naming an event that is not stored is no answer (its claim failed);
 *   4. else the kind's rules decide (404, 409, 422 are stored under the webhook-id);
 *   5. an accepted event is claimed and stored by one conditional write under its identity (the
 *      claim and the durable store are one write: whatever stops after it, the event is stored
 *      once and a retry is answered from it), the delivery noted by a second sent with it; then 202.
 */

/** One verified delivery: who sent it, its webhook-id, the digest of its raw body, when it arrived. */
export interface Delivery {
  sourceId: string;
  webhookId: string;
  bodySha256: string;
  receivedAt: string;
}

export type RefusalCode = 'NOT_FOUND' | 'WRONG_RECORD_KIND' | 'TRANSITION_FORBIDDEN' | 'INVALID_REQUEST' | 'EVENT_ID_REUSED' | 'WEBHOOK_ID_REUSED';

/** What a delivery is answered with, in a form that can be stored and answered again. */
export type Outcome = { status: 202; receipt: IngressReceipt } | { status: 404 | 409 | 422; code: RefusalCode; detail: string; extra: Record<string, unknown> };

/** Something the receiver logs about the delivery (the domain decides what happened; the handler writes the line). */
export interface Note {
  level: 'info' | 'warn';
  message: string;
  fields: Record<string, unknown>;
}

export interface ReceiverAnswer {
  outcome: Outcome;
  /** Answered as an earlier delivery was (the header webhook-replayed: true). */
  replayed: boolean;
  notes: Note[];
}

/** The body as read: a canonical event (and the JSON value it was read from), or why it is not one (422). */
export type ReadBody = { event: CanonicalEvent; value: unknown; raw: string } | { invalid: Exclude<Outcome, { status: 202 }> };

export interface ReceiverStores {
  pending: ReceivedEvents;
  records: RecordWindows;
}

export async function receiveDelivery(stores: ReceiverStores, delivery: Delivery, body: ReadBody): Promise<ReceiverAnswer> {
  if ('invalid' in body) return refuse(stores.pending, delivery, body.invalid);
  const { event, value, raw } = body;
  const identity = { source: event.source, id: event.id, digest: eventIdentityDigest(event), contentSha256: eventContentDigest(value) };
  const [stored, record] = await Promise.all([
    stores.pending.lookUp(delivery, identity.digest),
    stores.records.readWindow(event.reference, delivery.receivedAt, 1).then(currentRecordOf),
  ]);
  if (stored.event) return answerForStoredEvent(stores.pending, delivery, identity, stored.event, stored.delivery);
  // A note naming an event that is not stored: the claim sent with it failed, so that delivery was answered 503, nothing.
  const unclaimed = stored.delivery?.eventKey && !stored.delivery.event ? stored.delivery.eventKey : null;
  if (stored.delivery && !unclaimed) return answerAgain(delivery, stored.delivery);

  const decision = decide(event, record, delivery.receivedAt);
  if (!decision.ok) return refuse(stores.pending, delivery, { status: decision.status, code: decision.code, detail: decision.detail, extra: decision.field ? { field: decision.field } : {} });
  const outcome: Outcome = { status: 202, receipt: receiptOf(delivery, event, decision.effect) };
  const answer: DeliveryAnswer = { ...delivery, status: 202, answer: outcome };
  // The claim and the note of the delivery in one round trip; once it resolves the note is all it can be (ports/pending.ts).
  const claim = await stores.pending.claimNoted({ ...answer, identity, event: { raw, type: event.type, reference: event.reference, at: event.at, effect: decision.effect } }, unclaimed);
  if (!claim.claimed) return answerForStoredEvent(stores.pending, delivery, identity, claim.stored, { status: 202, answer: outcome, bodySha256: delivery.bodySha256, eventKey: claim.stored.key });
  return { outcome, replayed: false, notes: [{ level: 'info', message: 'event stored', fields: { sourceId: delivery.sourceId, webhookId: delivery.webhookId, eventId: event.id, eventSource: event.source } }] };
}

export function receiptOf(delivery: Delivery, event: CanonicalEvent, effect: IngressReceipt['effect']): IngressReceipt {
  return {
    schemaVersion: 'svc.ingress-receipt.v1',
    status: 'ACCEPTED',
    sourceId: delivery.sourceId,
    webhookId: delivery.webhookId,
    eventId: event.id,
    eventType: event.type,
    subject: event.reference,
    eventTime: event.at,
    receivedAt: delivery.receivedAt,
    effect,
    sequencing: 'PENDING',
  };
}

/** A refusal (404, 409, 422), stored once under the webhook-id; a copy answered before gets that answer. */
async function refuse(pending: ReceivedEvents, delivery: Delivery, outcome: Exclude<Outcome, { status: 202 }>): Promise<ReceiverAnswer> {
  const stored = await pending.refuse({ ...delivery, status: outcome.status, answer: outcome });
  if (!stored.stored) return answerAgain(delivery, stored.earlier);
  return { outcome, replayed: false, notes: [{ level: 'info', message: 'delivery stored', fields: { sourceId: delivery.sourceId, webhookId: delivery.webhookId, status: outcome.status } }] };
}

/** A webhook-id answered before: the same answer for the same body (an accepted event's where its sequencing stands now), else 409. */
function answerAgain(delivery: Delivery, earlier: StoredDelivery): ReceiverAnswer {
  if (earlier.bodySha256 !== delivery.bodySha256 || isStoredBatch(earlier.answer)) {
    const detail = `webhook-id '${delivery.webhookId}' was already delivered with another body; a new event needs a new webhook-id.`;
    return { outcome: { status: 409, code: 'WEBHOOK_ID_REUSED', detail, extra: { webhookId: delivery.webhookId } }, replayed: false, notes: [] };
  }
  const event = earlier.event ?? null;
  return { outcome: event ? withSequencing(event.answer as Outcome, event) : (earlier.answer as Outcome), replayed: true, notes: [] };
}

/**
 * A delivery of an event whose identity is stored: the same content is answered as the event's
 * first delivery was (where its sequencing stands now) and changes nothing; other content is 409
 * EVENT_ID_REUSED. Either way the webhook-id keeps its answer.
 */
async function answerForStoredEvent(
  pending: ReceivedEvents,
  delivery: Delivery,
  identity: { source: string; id: string; contentSha256: string },
  stored: StoredEvent,
  earlier: StoredDelivery | null,
): Promise<ReceiverAnswer> {
  const fields = { sourceId: delivery.sourceId, webhookId: delivery.webhookId, eventSource: identity.source, eventId: identity.id };
  if (stored.contentSha256 !== identity.contentSha256) {
    const outcome: Outcome = {
      status: 409,
      code: 'EVENT_ID_REUSED',
      detail: `Event '${identity.id}' of source '${identity.source}' was already received with other content; an event's id names one event, so a new event needs a new id.`,
      extra: { eventSource: identity.source, eventId: identity.id },
    };
    if (!earlier) await pending.refuse({ ...delivery, status: 409, answer: outcome });
    const firstWebhookId = (stored.answer as { receipt?: IngressReceipt }).receipt?.webhookId;
    return { outcome, replayed: false, notes: [{ level: 'warn', message: 'event id reused with other content: refused', fields: { ...fields, firstWebhookId } }] };
  }
  if (earlier?.eventKey !== stored.key) await pending.noteDelivery({ ...delivery, status: 202, answer: stored.answer }, stored.key);
  return { outcome: withSequencing(stored.answer as Outcome, stored), replayed: true, notes: [{ level: 'info', message: 'event delivered again: answered as its first delivery', fields }] };
}

/** A retried accepted delivery is answered as before, saying where its sequencing stands now. */
export function withSequencing(outcome: Outcome, stored: StoredEvent): Outcome {
  if (outcome.status !== 202 || stored.sequencing === 'PENDING') return outcome;
  const receipt: IngressReceipt = { ...outcome.receipt, sequencing: stored.sequencing };
  if (stored.sequencedAt) receipt.sequencedAt = stored.sequencedAt;
  if (stored.outcome?.sequenced) receipt.recordVersion = stored.outcome.version;
  if (stored.outcome && !stored.outcome.sequenced) receipt.setAsideReason = stored.outcome.reason;
  return { status: 202, receipt };
}
