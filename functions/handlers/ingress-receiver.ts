import type { IngressReceipt } from '../contract/ingress';
import { INGRESS_MAX_BODY_BYTES, INGRESS_SOURCES, isIngressSource, type ReceiverName } from '../contract/ingress-values';
import { keysForSource } from '../config/ingress-keys';
import { EventInputError, readCanonicalEvent, type CanonicalEvent } from '../domain/ingress/event';
import { eventContentDigest, eventIdentityDigest, sha256Hex } from '../domain/ingress/identity';
import { currentRecordOf, decide, type CurrentRecord } from '../domain/ingress/rules';
import { verifyDelivery } from '../domain/ingress/signature';
import { httpHandler } from '../http/boundary';
import type { HttpRequest, HttpResponse } from '../http/request';
import { logger } from '../logging/logger';
import { Problem, type ProblemCode } from '../http/problem';
import { eventPk } from '../store/layout';
import { claimEvent, readDelivery, readEvent, readEventAt, storeDeliveryOfEvent, storeDeliveryOnce, type StoredDelivery } from '../store/pending';
import { readRecordWindow } from '../store/records';

/**
 * The shared path of both receivers (docs/ingress.md):
 *   source known (404) and activated (503 SOURCE_GATED) -> body size (413) and media type (415,
 *   at the boundary) -> Standard Webhooks signature on the raw body (401, saying which check failed)
 *   -> canonical event (422 naming the field) -> together: the event stored under its identity
 *   (source, id), the webhook-id's earlier answer, and the record the event names (one Query)
 *   -> the rules (404, 409) -> the event claimed and stored by one conditional PutItem, then the
 *   delivery noted -> 202 with the receipt.
 * Exactly once per event: a delivery of an event already stored with the same content is answered
 * as its first delivery was and has no second effect; with other content it is 409 EVENT_ID_REUSED.
 * A second delivery of the same webhook-id answers what the first was answered.
 */

const SIGNATURE_CODES: Record<string, ProblemCode> = {
  SIGNATURE_MISSING: 'WEBHOOK_SIGNATURE_MISSING',
  SIGNATURE_INVALID: 'WEBHOOK_SIGNATURE_INVALID',
  TIMESTAMP_OUT_OF_WINDOW: 'WEBHOOK_TIMESTAMP_OUT_OF_WINDOW',
};

/** What a delivery is answered with, in a form that can be stored and answered again. */
type Outcome = { status: 202; receipt: IngressReceipt } | { status: 404 | 409 | 422; code: ProblemCode; detail: string; extra: Record<string, unknown> };

/** The record as it stands, its state as its kind reads it (one Query). */
const currentRecord = async (reference: string, now: string): Promise<CurrentRecord> => currentRecordOf(await readRecordWindow(reference, now, 1));

function receiptOf(sourceId: string, webhookId: string, event: CanonicalEvent, effect: IngressReceipt['effect'], now: string): IngressReceipt {
  return {
    schemaVersion: 'svc.ingress-receipt.v1',
    status: 'ACCEPTED',
    sourceId,
    webhookId,
    eventId: event.id,
    eventType: event.type,
    subject: event.reference,
    eventTime: event.at,
    receivedAt: now,
    effect,
    sequencing: 'PENDING',
  };
}

function answer(outcome: Outcome, replayed: boolean): HttpResponse {
  const headers: Record<string, string> = { 'cache-control': 'no-store', ...(replayed ? { 'webhook-replayed': 'true' } : {}) };
  if (outcome.status === 202) return { status: 202, body: outcome.receipt, headers };
  throw new Problem(outcome.code, outcome.detail, outcome.extra, headers);
}

/** One verified delivery: who sent it, its webhook-id, the digest of its raw body, when it arrived. */
interface Delivery {
  sourceId: string;
  webhookId: string;
  bodySha256: string;
  receivedAt: string;
}

export async function receive(request: HttpRequest, receiver: ReceiverName, sourceId: string): Promise<HttpResponse> {
  if (!isIngressSource(sourceId) || INGRESS_SOURCES[sourceId].receiver !== receiver) {
    throw new Problem('UNKNOWN_SOURCE', `No event source '${sourceId}' delivers to this receiver.`, { sourceId });
  }
  const keys = await keysForSource(sourceId);
  if (keys.kind === 'unavailable') throw new Problem('DEPENDENCY_UNAVAILABLE', 'The verification keys could not be read. Retry shortly.', {}, { 'retry-after': '1' });
  if (keys.kind === 'gated') {
    throw new Problem('SOURCE_GATED', `Ingress from '${sourceId}' is gated: this deployment has not activated the source (no verification keys are configured for it).`, {
      sourceId,
      liveState: 'GATED',
    });
  }
  const body = request.body ?? '';
  if (Buffer.byteLength(body, 'utf8') > INGRESS_MAX_BODY_BYTES) {
    throw new Problem('PAYLOAD_TOO_LARGE', `The request body exceeds ${INGRESS_MAX_BODY_BYTES} bytes.`, { maxBodyBytes: INGRESS_MAX_BODY_BYTES });
  }
  const verdict = verifyDelivery(body, request.headers, keys.keys);
  if (!verdict.ok) {
    logger.info('delivery refused', { sourceId, refusal: verdict.refusal });
    throw new Problem(SIGNATURE_CODES[verdict.refusal], verdict.detail, { reason: verdict.refusal, ...(verdict.missing ? { missingHeaders: verdict.missing } : {}) });
  }
  const now = new Date().toISOString();
  const delivery: Delivery = { sourceId, webhookId: verdict.webhookId, bodySha256: sha256Hex(body), receivedAt: now };

  let event: CanonicalEvent;
  let value: unknown;
  try {
    ({ event, value } = readCanonicalEvent(body, INGRESS_SOURCES[sourceId].accepts));
  } catch (error) {
    if (!(error instanceof EventInputError)) throw error;
    const [first] = error.issues;
    const detail = first.field === '(body)' ? `The request body ${first.detail}.` : `Field '${first.field}' ${first.detail}.`;
    return refuse(delivery, { status: 422, code: 'INVALID_REQUEST', detail, extra: { field: first.field, errors: error.issues } });
  }

  // Exactly once per event (docs/ingress.md#exactly-once-per-event): the event's identity first,
  // then the webhook-id, then the rules. The three reads go out together.
  const identity = { source: event.source, id: event.id, digest: eventIdentityDigest(event), contentSha256: eventContentDigest(value) };
  const [storedEvent, earlier, record] = await Promise.all([readEvent(sourceId, identity.digest), readDelivery(sourceId, delivery.webhookId), currentRecord(event.reference, now)]);
  if (storedEvent) return answerForStoredEvent(delivery, identity, storedEvent, earlier);
  if (earlier) return answerAgain(delivery, earlier);

  const decision = decide(event, record, now);
  if (!decision.ok) return refuse(delivery, { status: decision.status, code: decision.code, detail: decision.detail, extra: decision.field ? { field: decision.field } : {} });
  const outcome: Outcome = { status: 202, receipt: receiptOf(sourceId, delivery.webhookId, event, decision.effect, now) };
  // The claim of the event's identity, and its durable store, in one conditional write: first, so
  // that whatever stops after it, the event is stored once and a retry is answered from it.
  const claim = await claimEvent({ ...delivery, status: 202, answer: outcome, identity, event: { raw: body, type: event.type, reference: event.reference, at: event.at, effect: decision.effect } });
  if (!claim.stored) return answerForStoredEvent(delivery, identity, claim.earlier, null);
  await storeDeliveryOfEvent({ ...delivery, status: 202, answer: outcome, eventKey: eventPk(sourceId, identity.digest) });
  logger.info('event stored', { sourceId, webhookId: delivery.webhookId, eventId: event.id, eventSource: event.source });
  return answer(outcome, false);
}

/** A refusal by the rules (404, 409, 422), stored once under the webhook-id; a copy answered before gets that answer. */
async function refuse(delivery: Delivery, outcome: Exclude<Outcome, { status: 202 }>): Promise<HttpResponse> {
  const stored = await storeDeliveryOnce({ ...delivery, status: outcome.status, answer: outcome, sequencing: 'REFUSED' });
  if (!stored.stored) return answerAgain(delivery, stored.earlier);
  logger.info('delivery stored', { sourceId: delivery.sourceId, webhookId: delivery.webhookId, status: outcome.status });
  return answer(outcome, false);
}

/** A webhook-id answered before: the same answer for the same body (an accepted event's where its sequencing stands now), else 409. */
async function answerAgain(delivery: Delivery, earlier: StoredDelivery): Promise<HttpResponse> {
  if (earlier.bodySha256 !== delivery.bodySha256) {
    throw new Problem('WEBHOOK_ID_REUSED', `webhook-id '${delivery.webhookId}' was already delivered with another body; a new event needs a new webhook-id.`, { webhookId: delivery.webhookId });
  }
  const event = earlier.eventKey ? await readEventAt(earlier.eventKey) : null;
  const stored = event ?? earlier;
  return answer(withSequencing(stored.answer as Outcome, stored), true);
}

/**
 * A delivery of an event whose identity is stored: the same content is answered as the event's
 * first delivery was (where its sequencing stands now) and changes nothing; other content is 409
 * EVENT_ID_REUSED. Either way the webhook-id keeps its answer.
 */
async function answerForStoredEvent(delivery: Delivery, identity: { source: string; id: string; contentSha256: string }, stored: StoredDelivery, earlier: StoredDelivery | null): Promise<HttpResponse> {
  const log = { sourceId: delivery.sourceId, webhookId: delivery.webhookId, eventSource: identity.source, eventId: identity.id };
  if (stored.contentSha256 !== identity.contentSha256) {
    logger.warn('event id reused with other content: refused', { ...log, firstWebhookId: (stored.answer as { receipt?: IngressReceipt }).receipt?.webhookId });
    const outcome: Outcome = {
      status: 409,
      code: 'EVENT_ID_REUSED',
      detail: `Event '${identity.id}' of source '${identity.source}' was already received with other content; an event's id names one event, so a new event needs a new id.`,
      extra: { eventSource: identity.source, eventId: identity.id },
    };
    if (!earlier) await storeDeliveryOnce({ ...delivery, status: 409, answer: outcome, sequencing: 'REFUSED' });
    return answer(outcome, false);
  }
  if (earlier?.eventKey !== stored.key) await storeDeliveryOfEvent({ ...delivery, status: 202, answer: stored.answer, eventKey: stored.key });
  logger.info('event delivered again: answered as its first delivery', log);
  return answer(withSequencing(stored.answer as Outcome, stored), true);
}

/** A retried accepted delivery is answered as before, saying where its sequencing stands now. */
function withSequencing(outcome: Outcome, stored: StoredDelivery): Outcome {
  if (outcome.status !== 202 || (stored.sequencing !== 'SEQUENCED' && stored.sequencing !== 'SET_ASIDE')) return outcome;
  const receipt: IngressReceipt = { ...outcome.receipt, sequencing: stored.sequencing };
  if (stored.sequencedAt) receipt.sequencedAt = stored.sequencedAt;
  if (stored.outcome?.sequenced) receipt.recordVersion = stored.outcome.version;
  if (stored.outcome && !stored.outcome.sequenced) receipt.setAsideReason = stored.outcome.reason;
  return { status: 202, receipt };
}

/** The Lambda handler of one receiver: `sourceOf` names the sending source from the request. */
export function receiverHandler(receiver: ReceiverName, sourceOf: (request: HttpRequest) => string) {
  return httpHandler((request) => receive(request, receiver, sourceOf(request)), { jsonBody: true, neverLogEvent: true });
}
