import { defineOperations } from '../operation';
import {
  INGRESS_BATCH_MAX_BODY_BYTES,
  INGRESS_BATCH_MAX_EVENTS,
  INGRESS_BATCH_MEDIA_TYPE,
  INGRESS_MAX_BODY_BYTES,
  IngressBatchReceipt,
  LifecycleFeedBatch,
  SourceWebhookBatch,
  INGRESS_SECRETS_SETTING,
  IngressReceipt,
  LifecycleFeedEvent,
  REPLAY_WINDOW_SECONDS,
  SourceId,
  SourceWebhookEvent,
  STANDARD_WEBHOOKS_SECURITY,
  WEBHOOK_HEADER_SCHEMAS,
} from '../ingress';

/**
 * The receivers: the only POSTs with a production effect. Each verifies a Standard Webhooks
 * signature on the raw body (its three headers are required parameters, and the signature is the
 * operation's security scheme), validates the canonical event, checks it against the record it
 * names (one Query) and stores it once per event before answering 202. The sequencer integrates
 * stored events into the ledger and the records (docs/ingress.md).
 */
const TAG = 'Ingress';
const SIGNED =
  'Signed with Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature; v1 HMAC-SHA256 or v1a Ed25519, several signatures allowed), ' +
  `verified on the raw body before it is parsed; a webhook-timestamp more than ${REPLAY_WINDOW_SECONDS} s from the service clock is refused. ` +
  `The body is one CloudEvents 1.0 structured-mode event of a canonical type (application/cloudevents+json or application/json, at most ${INGRESS_MAX_BODY_BYTES} bytes). ` +
  'Exactly once per event: an event (its CloudEvents source and id) already stored with the same content (the same JSON value) is answered as its first delivery was, ' +
  'whatever its webhook-id, and has no second effect; the same source and id with other content is 409 EVENT_ID_REUSED. ' +
  'A webhook-id is answered once: a retry answers what the first delivery was answered; reused for another body it is 409 WEBHOOK_ID_REUSED. ' +
  '202 is answered only once the event is durably stored; the sequencer then integrates it into the record it names and the ledger ' +
  '(one signed checkpoint per batch), and a retry says where that stands (sequencing PENDING, SEQUENCED or SET_ASIDE). ' +
  `Many events in one delivery: a body sent as ${INGRESS_BATCH_MEDIA_TYPE} (CloudEvents' JSON batch format) is a JSON array of at most ${INGRESS_BATCH_MAX_EVENTS} events ` +
  `(at most ${INGRESS_BATCH_MAX_BODY_BYTES} bytes, each event at most ${INGRESS_MAX_BODY_BYTES}), signed once; each event keeps its own identity, rules and answer, ` +
  'and the delivery is answered 200 with one item per event (ACCEPTED, ALREADY_STORED or REFUSED with its problem details): a bad event never sinks the good ones. ' +
  'A batch whose accepted events could not all be stored is answered 503 with the items (the retry, under the same webhook-id, completes it; nothing is stored twice).';
const BATCH_ANSWER = { status: 200, schema: IngressBatchReceipt, description: `A batch (${INGRESS_BATCH_MEDIA_TYPE}) answered: one item per event, each with its own result.` } as const;
const SETTINGS = [INGRESS_SECRETS_SETTING] as const;
const MEDIA_TYPES = ['application/cloudevents+json', 'application/json'] as const;

export const ingressOperations = defineOperations([
  {
    operationId: 'receiveLifecycleEvent',
    method: 'POST',
    path: '/v1/lifecycle/events',
    tag: TAG,
    summary: "Receive the service platform's signed lifecycle feed: state changes, authority observations, credential status changes",
    description:
      `${SIGNED} Signed with the keys of source service-platform; without them the receiver answers 503 SOURCE_GATED. ` +
      '404 when the reference holds no record (events never create one); 409 when the lifecycle rules forbid the transition.',
    liveState: 'READY',
    requiredHeaders: WEBHOOK_HEADER_SCHEMAS,
    security: STANDARD_WEBHOOKS_SECURITY,
    requestBody: { schema: LifecycleFeedEvent, required: true, mediaTypes: MEDIA_TYPES, alternatives: [{ mediaType: INGRESS_BATCH_MEDIA_TYPE, schema: LifecycleFeedBatch }] },
    response: { schema: IngressReceipt, status: 202 },
    alsoAnswers: BATCH_ANSWER,
    errors: [400, 401, 404, 409, 413, 415, 422, 503],
    integration: { kind: 'lambda', entry: 'functions/handlers/receive-lifecycle-event.ts', access: 'ingress-write', settings: SETTINGS },
  },
  {
    operationId: 'receiveSourceWebhook',
    method: 'POST',
    path: '/v1/webhooks/{sourceId}',
    tag: TAG,
    summary: 'Receive a signed webhook from an external source (the commerce platform: source snapshots behind commercial proofs)',
    description:
      `${SIGNED} Externally gated: a source the deployment has not activated (no verification keys configured) answers 503 SOURCE_GATED; ` +
      'an unknown sourceId is 404 UNKNOWN_SOURCE, a reference without a record is 404, a reference of another kind is 409.',
    liveState: 'GATED_BY_PERSISTENCE',
    pathParams: { sourceId: SourceId },
    requiredHeaders: WEBHOOK_HEADER_SCHEMAS,
    security: STANDARD_WEBHOOKS_SECURITY,
    requestBody: { schema: SourceWebhookEvent, required: true, mediaTypes: MEDIA_TYPES, alternatives: [{ mediaType: INGRESS_BATCH_MEDIA_TYPE, schema: SourceWebhookBatch }] },
    response: { schema: IngressReceipt, status: 202 },
    alsoAnswers: BATCH_ANSWER,
    errors: [400, 401, 404, 409, 413, 415, 422, 503],
    integration: { kind: 'lambda', entry: 'functions/handlers/receive-webhook.ts', access: 'ingress-write', settings: SETTINGS },
  },
]);
