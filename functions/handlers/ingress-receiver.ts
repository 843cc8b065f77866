import { INGRESS_BATCH_MAX_BODY_BYTES, INGRESS_BATCH_MEDIA_TYPE, INGRESS_MAX_BODY_BYTES, INGRESS_SOURCES, isIngressSource, type ReceiverName } from '../contract/ingress-values';
import type { IngressBatchReceipt } from '../contract/ingress';
import { BatchRefused, readBatchBody, type BatchItem } from '../domain/ingress/batch-body';
import { receiveBatch, type BatchAnswer, type BatchItemAnswer } from '../domain/ingress/receive-batch';
import { keysForSource } from '../config/ingress-keys';
import { EventInputError, readCanonicalEvent } from '../domain/ingress/event';
import { sha256Hex } from '../domain/ingress/identity';
import { receiveDelivery, type Delivery, type ReadBody, type ReceiverAnswer, type ReceiverStores } from '../domain/ingress/receive';
import { verifyDelivery } from '../domain/ingress/signature';
import { httpHandler } from '../http/boundary';
import type { HttpRequest, HttpResponse } from '../http/request';
import { logger } from '../logging/logger';
import { Problem, PROBLEMS, problemType, type ProblemCode } from '../http/problem';
import { environmentReceivedEvents, environmentRecords } from '../store/environment';

/**
 * The shared path of both receivers (docs/ingress.md): source known (404) and activated (503
 * SOURCE_GATED) -> body size (413) and media type (415, at the boundary) -> Standard Webhooks
 * signature on the raw body (401, saying which check failed) -> the body read as one canonical
 * event (422 naming the field) -> the delivery received once per event, by the domain
 * (functions/domain/ingress/receive.ts) -> the answer. A body sent as
 * application/cloudevents-batch+json is many events (functions/domain/ingress/batch-body.ts and
 * receive-batch.ts): each read, judged and stored on its own, the delivery answered with them all.
 */

/** Whether the body is a batch: its media type (parameters aside) says so, as CloudEvents' HTTP binding has it. */
const isBatch = (contentType: string | undefined): boolean => (contentType ?? '').split(';')[0].trim().toLowerCase() === INGRESS_BATCH_MEDIA_TYPE;

const SIGNATURE_CODES: Record<string, ProblemCode> = {
  SIGNATURE_MISSING: 'WEBHOOK_SIGNATURE_MISSING',
  SIGNATURE_INVALID: 'WEBHOOK_SIGNATURE_INVALID',
  TIMESTAMP_OUT_OF_WINDOW: 'WEBHOOK_TIMESTAMP_OUT_OF_WINDOW',
};

/** The body as one canonical event of a type the source may send, or the 422 naming the first field that is wrong. */
function readBody(body: string, accepts: readonly string[]): ReadBody {
  try {
    return { ...readCanonicalEvent(body, accepts), raw: body };
  } catch (error) {
    if (!(error instanceof EventInputError)) throw error;
    const [first] = error.issues;
    const detail = first.field === '(body)' ? `The request body ${first.detail}.` : `Field '${first.field}' ${first.detail}.`;
    return { invalid: { status: 422, code: 'INVALID_REQUEST', detail, extra: { field: first.field, errors: error.issues } } };
  }
}

function answer({ outcome, replayed, notes }: ReceiverAnswer): HttpResponse {
  for (const note of notes) logger[note.level](note.message, note.fields);
  const headers: Record<string, string> = { 'cache-control': 'no-store', ...(replayed ? { 'webhook-replayed': 'true' } : {}) };
  if (outcome.status === 202) return { status: 202, body: outcome.receipt, headers };
  throw new Problem(outcome.code satisfies ProblemCode, outcome.detail, outcome.extra, headers);
}

/** One delivery to a receiver; its stores are the execution environment's unless given (tests give the ones in memory). */
export async function receive(request: HttpRequest, receiver: ReceiverName, sourceId: string, stores?: ReceiverStores): Promise<HttpResponse> {
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
  const batch = isBatch(request.headers['content-type']);
  const maxBodyBytes = batch ? INGRESS_BATCH_MAX_BODY_BYTES : INGRESS_MAX_BODY_BYTES;
  if (Buffer.byteLength(body, 'utf8') > maxBodyBytes) {
    throw new Problem('PAYLOAD_TOO_LARGE', `The request body exceeds ${maxBodyBytes} bytes.`, { maxBodyBytes });
  }
  const verdict = verifyDelivery(body, request.headers, keys.keys);
  if (!verdict.ok) {
    logger.info('delivery refused', { sourceId, refusal: verdict.refusal });
    throw new Problem(SIGNATURE_CODES[verdict.refusal], verdict.detail, { reason: verdict.refusal, ...(verdict.missing ? { missingHeaders: verdict.missing } : {}) });
  }
  const delivery = { sourceId, webhookId: verdict.webhookId, bodySha256: sha256Hex(body), receivedAt: new Date().toISOString() };
  const reaching = stores ?? { pending: environmentReceivedEvents(), records: environmentRecords() };
  if (batch) return receiveBatchDelivery(reaching, delivery, body, INGRESS_SOURCES[sourceId].accepts);
  return answer(await receiveDelivery(reaching, delivery, readBody(body, INGRESS_SOURCES[sourceId].accepts)));
}

/** A batch: refused whole when it is not a JSON array of at most the batch's limit (not stored: the same body reads the same), else each event on its own. */
async function receiveBatchDelivery(stores: ReceiverStores, delivery: Delivery, body: string, accepts: readonly string[]): Promise<HttpResponse> {
  let items: BatchItem[];
  try {
    items = readBatchBody(body, accepts);
  } catch (error) {
    if (!(error instanceof BatchRefused)) throw error;
    throw new Problem(error.status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST', error.detail, error.extra, { 'cache-control': 'no-store' });
  }
  return batchAnswer(delivery, await receiveBatch(stores, delivery, items));
}

/** An item's problem as RFC 9457 problem details of its own (type and title from its code). */
function itemOf(item: BatchItemAnswer): IngressBatchReceipt['items'][number] {
  const { problem, ...rest } = item;
  if (!problem) return rest;
  const code = problem.code as ProblemCode;
  return { ...rest, problem: { type: problemType(code), title: PROBLEMS[code].title, status: problem.status, detail: problem.detail, code, ...problem.extra } };
}

function batchAnswer(delivery: Delivery, result: BatchAnswer): HttpResponse {
  for (const note of result.notes) logger[note.level](note.message, note.fields);
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (result.status === 409) throw new Problem(result.refusal.code satisfies ProblemCode, result.refusal.detail, result.refusal.extra, headers);
  const items = result.items.map(itemOf);
  if (result.status === 503) {
    throw new Problem('DEPENDENCY_UNAVAILABLE', 'Some events of the batch could not be stored; those stored are listed. Retry the delivery (the same webhook-id) shortly: it completes the batch, and nothing is stored twice.', { items }, { ...headers, 'retry-after': '1' });
  }
  const count = (r: BatchItemAnswer['result']) => result.items.filter((i) => i.result === r).length;
  const receipt: IngressBatchReceipt = {
    schemaVersion: 'svc.ingress-batch-receipt.v1',
    sourceId: delivery.sourceId,
    webhookId: delivery.webhookId,
    receivedAt: result.receivedAt,
    events: items.length,
    accepted: count('ACCEPTED'),
    alreadyStored: count('ALREADY_STORED'),
    refused: count('REFUSED'),
    items,
  };
  return { status: 200, body: receipt, headers: result.replayed ? { ...headers, 'webhook-replayed': 'true' } : headers };
}

/** The Lambda handler of one receiver: `sourceOf` names the sending source from the request. */
export function receiverHandler(receiver: ReceiverName, sourceOf: (request: HttpRequest) => string) {
  return httpHandler((request) => receive(request, receiver, sourceOf(request)), { jsonBody: true, neverLogEvent: true, maxBodyBytes: INGRESS_BATCH_MAX_BODY_BYTES });
}
