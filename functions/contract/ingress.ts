import * as z from 'zod';
import { cloudEventEnvelope, EVENT_CONTRACTS, type EventContract } from './events';
import { component } from './registry';
import { Instant, Reference } from './schemas/common';
import type { SecurityScheme } from './operation';
import {
  INGRESS_BATCH_MAX_EVENTS,
  INGRESS_BATCH_MEDIA_TYPE,
  INGRESS_EFFECTS,
  INGRESS_SOURCES,
  LIFECYCLE_SOURCE_ID,
  REPLAY_WINDOW_SECONDS,
  SEQUENCING_STATES,
  SOURCE_ID_PATTERN,
  WEBHOOK_HEADERS,
  WEBHOOK_ID_MAX_LENGTH,
  WEBHOOK_ID_PATTERN,
  WEBHOOK_SIGNATURE_MAX_LENGTH,
  WEBHOOK_SIGNATURE_PATTERN,
  WEBHOOK_SIGNATURES_READ,
  WEBHOOK_SIGNATURE_ENTRY_PATTERN,
  WEBHOOK_SOURCE_IDS,
  WEBHOOK_TIMESTAMP_MAX_LENGTH,
  WEBHOOK_TIMESTAMP_PATTERN,
  INGRESS_SECRETS_SETTING,
} from './ingress-values';

/**
 * The receiving side of the canonical events (docs/ingress.md): who may send what to which
 * receiver, the Standard Webhooks headers and limits, and the receipt a receiver answers with.
 * The values are in ./ingress-values.ts (re-exported here), without zod, for the receivers.
 */
export * from './ingress-values';

export const SourceId = z
  .string()
  .min(3)
  .max(64)
  .regex(new RegExp(SOURCE_ID_PATTERN))
  .describe(`An external event source: 3 to 64 of a-z 0-9 -, starting with a letter. Known: ${WEBHOOK_SOURCE_IDS.join(', ')}.`);

export function eventContract(type: string): EventContract | undefined {
  return (EVENT_CONTRACTS as readonly EventContract[]).find((c) => c.type === type);
}

const RECEIVED_TYPES = new Set<string>(Object.values(INGRESS_SOURCES).flatMap((s) => s.accepts));

/** The CloudEvents envelope of each event a receiver takes, as a named component of the contract. */
export const EVENT_ENVELOPES: Record<string, z.ZodType> = Object.fromEntries(
  (EVENT_CONTRACTS as readonly EventContract[])
    .filter((c) => RECEIVED_TYPES.has(c.type))
    .map((c) => [c.type, component(`${c.name}Event`, cloudEventEnvelope(c), `${c.title}: a CloudEvents 1.0 structured-mode event (${c.type}).`)]),
);

/** A receiver's body: the one envelope it takes (already a component), or the union of several, named. */
function bodyOf(id: string, types: readonly string[], description: string): z.ZodType {
  const [first, ...rest] = types.map((t) => EVENT_ENVELOPES[t]);
  return rest.length === 0 ? first : component(id, z.union([first, ...rest] as [z.ZodType, z.ZodType, ...z.ZodType[]]), description);
}

export const LifecycleFeedEvent = bodyOf(
  'LifecycleFeedEvent',
  INGRESS_SOURCES[LIFECYCLE_SOURCE_ID].accepts,
  'One canonical event of the lifecycle feed (CloudEvents 1.0, structured mode, closed payload).',
);
export const SourceWebhookEvent = bodyOf(
  'SourceWebhookEvent',
  INGRESS_SOURCES['commerce-platform'].accepts,
  'One canonical event from an external source (CloudEvents 1.0, structured mode, closed payload).',
);

export const IngressReceipt = component(
  'IngressReceipt',
  z
    .object({
      schemaVersion: z.literal('svc.ingress-receipt.v1'),
      status: z.literal('ACCEPTED'),
      sourceId: z.string(),
      webhookId: z.string(),
      eventId: z.string(),
      eventType: z.string(),
      subject: Reference,
      eventTime: Instant,
      receivedAt: Instant,
      effect: z.enum(INGRESS_EFFECTS),
      sequencing: z
        .enum(SEQUENCING_STATES)
        .describe('PENDING when first answered. A retry of the same delivery, or the same event delivered again under another webhook-id, answers where it stands: SEQUENCED (integrated) or SET_ASIDE (it broke the lifecycle rules against its neighbours; tried again with the record\'s next events).'),
      sequencedAt: Instant.optional().describe('When the sequencer integrated it or set it aside (retries only).'),
      recordVersion: z.number().int().min(1).nullable().optional().describe('The record version it made (null: an observation or snapshot makes none). SEQUENCED only.'),
      setAsideReason: z.string().optional().describe('Why it was set aside. SET_ASIDE only.'),
    })
    .strict(),
  'The event is durably stored (one conditional write, once per event: its CloudEvents source and id) and waits for the sequencer; a retry of the same webhook-id, or the same event under another, answers the same receipt, saying where its sequencing stands.',
);
export type IngressReceipt = z.infer<typeof IngressReceipt>;

/** A receiver's batch body (CloudEvents JSON batch format): a JSON array of its events. */
function batchOf(id: string, event: z.ZodType, description: string): z.ZodType {
  return component(id, z.array(event).max(INGRESS_BATCH_MAX_EVENTS), description);
}
export const LifecycleFeedBatch = batchOf('LifecycleFeedBatch', LifecycleFeedEvent, `Events of the lifecycle feed in one delivery (${INGRESS_BATCH_MEDIA_TYPE}).`);
export const SourceWebhookBatch = batchOf('SourceWebhookBatch', SourceWebhookEvent, `Events from an external source in one delivery (${INGRESS_BATCH_MEDIA_TYPE}).`);

/** An item's problem in a batch's answer: RFC 9457 problem details of the one event, as it would be answered alone. */
const ItemProblem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string(),
  })
  .loose()
  .describe('RFC 9457 problem details for this event alone (its code as a delivery of the event alone would be answered, with the same members: field and errors, eventSource and eventId, ...).');

export const BATCH_RESULTS = ['ACCEPTED', 'ALREADY_STORED', 'REFUSED', 'NOT_STORED'] as const;

export const IngressBatchItem = component(
  'IngressBatchItem',
  z
    .object({
      index: z.number().int().min(0).describe('The position of the event in the batch, from 0.'),
      result: z
        .enum(BATCH_RESULTS)
        .describe(
          'ACCEPTED: stored by this delivery, waiting for the sequencer. ALREADY_STORED: the same event (source, id and content) was stored before, by another delivery or earlier in this batch; it has no second effect. REFUSED: not stored; problem says why. NOT_STORED: only in a 503 answer: the store did not acknowledge it; retry the delivery.',
        ),
      status: z.number().int().describe('The status this event alone would have been answered: 202, or the problem\'s.'),
      eventSource: z.string().optional().describe('The event\'s CloudEvents source, when the item could be read as an event.'),
      eventId: z.string().optional().describe('The event\'s CloudEvents id, when the item could be read as an event.'),
      receipt: IngressReceipt.optional().describe('ACCEPTED and ALREADY_STORED: the event\'s receipt (its first delivery\'s, with where its sequencing stands now).'),
      problem: ItemProblem.optional(),
    })
    .strict(),
  'One event of a batch and its own answer.',
);

export const IngressBatchReceipt = component(
  'IngressBatchReceipt',
  z
    .object({
      schemaVersion: z.literal('svc.ingress-batch-receipt.v1'),
      sourceId: z.string(),
      webhookId: z.string(),
      receivedAt: Instant.describe('When the delivery was first received.'),
      events: z.number().int().min(0).max(INGRESS_BATCH_MAX_EVENTS),
      accepted: z.number().int().min(0),
      alreadyStored: z.number().int().min(0),
      refused: z.number().int().min(0),
      items: z
        .array(IngressBatchItem)
        .max(INGRESS_BATCH_MAX_EVENTS)
        .describe(
          'One per event, in the batch\'s order. The delivery is answered 200 once every event is answered (a 207-like answer: what became of each event is in its item, a refused event never sinks the others); a retry of the same webhook-id answers the same items, with where each stored event\'s sequencing stands now.',
        ),
    })
    .strict(),
  'The answer to a batch: one item per event, each with its own result.',
);
export type IngressBatchReceipt = z.infer<typeof IngressBatchReceipt>;

/**
 * The Standard Webhooks headers every delivery carries, as the receivers declare them (required
 * header parameters). Built from the values functions/domain/ingress/signature.ts checks them with;
 * test/e2e/receiver-contract.test.ts holds the declaration to the check.
 */
export const WEBHOOK_HEADER_SCHEMAS: Record<string, z.ZodType> = {
  [WEBHOOK_HEADERS.id]: z
    .string()
    .max(WEBHOOK_ID_MAX_LENGTH)
    .regex(new RegExp(WEBHOOK_ID_PATTERN))
    .describe(`The delivery's id: 1 to ${WEBHOOK_ID_MAX_LENGTH} of A-Z a-z 0-9 _ - (never a '.'). A retry of a delivery carries the same id; a webhook-id is answered once per source.`),
  [WEBHOOK_HEADERS.timestamp]: z
    .string()
    .max(WEBHOOK_TIMESTAMP_MAX_LENGTH)
    .regex(new RegExp(WEBHOOK_TIMESTAMP_PATTERN))
    .describe(`The attempt's time, whole seconds since the Unix epoch; more than ${REPLAY_WINDOW_SECONDS} s from the service clock, either way, is refused (401 WEBHOOK_TIMESTAMP_OUT_OF_WINDOW).`),
  [WEBHOOK_HEADERS.signature]: z
    .string()
    .max(WEBHOOK_SIGNATURE_MAX_LENGTH)
    .regex(new RegExp(WEBHOOK_SIGNATURE_PATTERN))
    .describe(
      `A space-delimited list of signatures, each v1,<base64> (HMAC-SHA256) or v1a,<base64> (Ed25519) over {webhook-id}.{webhook-timestamp}.{body}; ` +
        `among the first ${WEBHOOK_SIGNATURES_READ} one must be v1 or v1a (each matching ${WEBHOOK_SIGNATURE_ENTRY_PATTERN}), entries of other versions are skipped. ` +
        'Authentic when any listed signature verifies with any key configured for the source (key rotation).',
    ),
};

/**
 * How a receiver's caller is authenticated: a Standard Webhooks signature over each delivery,
 * verified with the keys the deployment configured for the sending source. OpenAPI has no scheme
 * type for a request signature; an apiKey scheme in the webhook-signature header is the nearest,
 * and the description says what the header really carries and how it is checked.
 */
export const STANDARD_WEBHOOKS_SECURITY: SecurityScheme = {
  name: 'StandardWebhooksSignature',
  scheme: {
    type: 'apiKey',
    in: 'header',
    name: WEBHOOK_HEADERS.signature,
    description:
      'Standard Webhooks 1.0 (https://www.standardwebhooks.com): every delivery carries webhook-id, webhook-timestamp and webhook-signature; ' +
      'the signed content is the UTF-8 bytes of {webhook-id}.{webhook-timestamp}.{body}, the body exactly as sent. ' +
      'v1: HMAC-SHA256 with the source\'s whsec_ secret (base64, 24 to 64 bytes). v1a: Ed25519, verified with the source\'s whpk_ public key (base64 of 32 bytes). ' +
      'Keys come from the deployment\'s ingress secret (the environment setting ' + INGRESS_SECRETS_SETTING + ': a Secrets Manager secret, stack output IngressSecretsArn, ' +
      'holding { "<sourceId>": "whsec_..." | "whpk_..." | [several] }): a delivery is authentic when any listed signature verifies with any key of its source, ' +
      'so keys rotate by signing with old and new ones. A source without keys is gated (503 SOURCE_GATED). ' +
      `Refusals are 401: WEBHOOK_SIGNATURE_MISSING, WEBHOOK_SIGNATURE_INVALID, WEBHOOK_TIMESTAMP_OUT_OF_WINDOW (more than ${REPLAY_WINDOW_SECONDS} s from the service clock).`,
  },
};
