import { createHash } from 'node:crypto';
import type { IngressReceipt } from '../contract/ingress';
import { INGRESS_MAX_BODY_BYTES, INGRESS_SOURCES, isIngressSource, type ReceiverName } from '../contract/ingress-values';
import { keysForSource } from '../config/ingress-keys';
import { EventInputError, parseCanonicalEvent, type CanonicalEvent } from '../domain/ingress/event';
import { decide, type CurrentRecord } from '../domain/ingress/rules';
import { verifyDelivery } from '../domain/ingress/signature';
import { httpHandler } from '../http/boundary';
import type { HttpRequest, HttpResponse } from '../http/request';
import { logger } from '../logging/logger';
import { Problem, type ProblemCode } from '../http/problem';
import { storeDeliveryOnce, type StoredDelivery } from '../store/pending';
import { readRecordWindow } from '../store/records';

/**
 * The shared path of both receivers (docs/ingress.md):
 *   source known (404) and activated (503 SOURCE_GATED) -> body size (413) and media type (415,
 *   at the boundary) -> Standard Webhooks signature on the raw body (401, saying which check failed)
 *   -> canonical event (422 naming the field) -> the record it names, one Query (404, 409)
 *   -> one conditional PutItem of the outcome -> 202 with the receipt.
 * A second delivery of the same webhook-id answers what the first was answered, with no second write.
 */

const SIGNATURE_CODES: Record<string, ProblemCode> = {
  SIGNATURE_MISSING: 'WEBHOOK_SIGNATURE_MISSING',
  SIGNATURE_INVALID: 'WEBHOOK_SIGNATURE_INVALID',
  TIMESTAMP_OUT_OF_WINDOW: 'WEBHOOK_TIMESTAMP_OUT_OF_WINDOW',
};

/** What a delivery is answered with, in a form that can be stored and answered again. */
type Outcome = { status: 202; receipt: IngressReceipt } | { status: 404 | 409 | 422; code: ProblemCode; detail: string; extra: Record<string, unknown> };

async function currentRecord(reference: string, now: string): Promise<CurrentRecord> {
  const window = await readRecordWindow<Record<string, unknown>, Record<string, unknown>, { kind?: string; content?: Record<string, unknown> }>(reference, now, 1);
  const newest = window.entries[0];
  const view = (newest?.view ?? {}) as { state?: string; status?: string; lastSynchronization?: { state?: string } | null };
  const state = view.state ?? view.status ?? view.lastSynchronization?.state ?? null;
  const objectType = (newest?.head.content?.objectType as string | undefined) ?? null;
  return { exists: window.exists, kind: window.kind, newestAt: newest?.at ?? null, state, objectType };
}

async function evaluate(sourceId: string, webhookId: string, body: string, now: string): Promise<{ outcome: Outcome; event: CanonicalEvent | null }> {
  let event: CanonicalEvent;
  try {
    event = parseCanonicalEvent(body, INGRESS_SOURCES[sourceId as keyof typeof INGRESS_SOURCES].accepts);
  } catch (error) {
    if (!(error instanceof EventInputError)) throw error;
    const [first] = error.issues;
    const detail = first.field === '(body)' ? `The request body ${first.detail}.` : `Field '${first.field}' ${first.detail}.`;
    return { outcome: { status: 422, code: 'INVALID_REQUEST', detail, extra: { field: first.field, errors: error.issues } }, event: null };
  }
  const decision = decide(event, await currentRecord(event.reference, now), now);
  if (!decision.ok) {
    return { outcome: { status: decision.status, code: decision.code, detail: decision.detail, extra: decision.field ? { field: decision.field } : {} }, event };
  }
  const receipt: IngressReceipt = {
    schemaVersion: 'svc.ingress-receipt.v1',
    status: 'ACCEPTED',
    sourceId,
    webhookId,
    eventId: event.id,
    eventType: event.type,
    subject: event.reference,
    eventTime: event.at,
    receivedAt: now,
    effect: decision.effect,
    sequencing: 'PENDING',
  };
  return { outcome: { status: 202, receipt }, event };
}

function answer(outcome: Outcome, replayed: boolean): HttpResponse {
  const headers: Record<string, string> = { 'cache-control': 'no-store', ...(replayed ? { 'webhook-replayed': 'true' } : {}) };
  if (outcome.status === 202) return { status: 202, body: outcome.receipt, headers };
  throw new Problem(outcome.code, outcome.detail, outcome.extra, headers);
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
    throw new Problem(SIGNATURE_CODES[verdict.refusal], verdict.detail, { reason: verdict.refusal });
  }
  const now = new Date().toISOString();
  const bodySha256 = createHash('sha256').update(body, 'utf8').digest('hex');
  const { outcome, event } = await evaluate(sourceId, verdict.webhookId, body, now);
  const stored = await storeDeliveryOnce({
    sourceId,
    webhookId: verdict.webhookId,
    status: outcome.status,
    answer: outcome,
    bodySha256,
    receivedAt: now,
    sequencing: outcome.status === 202 ? 'PENDING' : 'REFUSED',
    ...(outcome.status === 202 && event ? { event: { raw: body, type: event.type, reference: event.reference, at: event.at, effect: outcome.receipt.effect } } : {}),
  });
  if (stored.stored) {
    logger.info('delivery stored', { sourceId, webhookId: verdict.webhookId, status: outcome.status });
    return answer(outcome, false);
  }
  if (stored.earlier.bodySha256 !== bodySha256) {
    throw new Problem('WEBHOOK_ID_REUSED', `webhook-id '${verdict.webhookId}' was already delivered with another body; a new event needs a new webhook-id.`, { webhookId: verdict.webhookId });
  }
  return answer(withSequencing(stored.earlier.answer as Outcome, stored.earlier), true);
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
