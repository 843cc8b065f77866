import * as z from 'zod';
import { cloudEventEnvelope, EVENT_CONTRACTS, type EventContract } from './events';
import { component } from './registry';
import { Instant, Reference } from './schemas/common';

/**
 * The receiving side of the canonical events (docs/ingress.md): who may send what to which
 * receiver, the Standard Webhooks headers and limits, and the receipt a receiver answers with.
 */

/** The Standard Webhooks headers (https://www.standardwebhooks.com). */
export const WEBHOOK_HEADERS = { id: 'webhook-id', timestamp: 'webhook-timestamp', signature: 'webhook-signature' } as const;

/** A delivery whose webhook-timestamp is further than this from the service clock is refused (replay window). */
export const REPLAY_WINDOW_SECONDS = 5 * 60;

/** Receiver bodies above this size are refused with 413 before verification (an event is a few hundred bytes). */
export const INGRESS_MAX_BODY_BYTES = 16 * 1024;

/**
 * A webhook-id: 1 to 128 characters of letters, digits, '_' and '-' (Standard Webhooks ids such as
 * msg_2KWPBgLlAfxdpx2AI54pPJ85f4W, UUIDs). Never a '.': the signed content is `id.timestamp.body`.
 */
export const WEBHOOK_ID_PATTERN = '^[A-Za-z0-9_-]{1,128}$';

export type ReceiverName = 'lifecycle' | 'webhook';

export interface IngressSource {
  /** Which receiver takes this source's deliveries. */
  receiver: ReceiverName;
  title: string;
  /** The canonical event types the source may send. */
  accepts: readonly string[];
}

/** The lifecycle feed's source id: the service platform itself, the authority for current trust state. */
export const LIFECYCLE_SOURCE_ID = 'service-platform';

/**
 * Every source the service knows. A source is *activated* by a deployment when verification keys
 * are configured for it; a known source without keys is gated (503 SOURCE_GATED), an unknown
 * source id is 404 UNKNOWN_SOURCE.
 */
export const INGRESS_SOURCES = {
  [LIFECYCLE_SOURCE_ID]: {
    receiver: 'lifecycle',
    title: 'The service platform\'s own signed lifecycle feed (authority for current trust state).',
    accepts: ['svc.living-object.state-changed.v1', 'svc.living-object.authority-observed.v1', 'svc.credential.status-changed.v1'],
  },
  'commerce-platform': {
    receiver: 'webhook',
    title: 'The external commerce platform: source snapshots behind commercial proofs (externally gated).',
    accepts: ['svc.commercial-proof.source-snapshot.v1'],
  },
} as const satisfies Record<string, IngressSource>;
export type IngressSourceId = keyof typeof INGRESS_SOURCES;

export const WEBHOOK_SOURCE_IDS = Object.entries(INGRESS_SOURCES)
  .filter(([, s]) => s.receiver === 'webhook')
  .map(([id]) => id);

export const SOURCE_ID_PATTERN = '^[a-z][a-z0-9-]{2,63}$';
export const SourceId = z
  .string()
  .min(3)
  .max(64)
  .regex(new RegExp(SOURCE_ID_PATTERN))
  .describe(`An external event source: 3 to 64 of a-z 0-9 -, starting with a letter. Known: ${WEBHOOK_SOURCE_IDS.join(', ')}.`);

export function isIngressSource(id: string): id is IngressSourceId {
  return Object.hasOwn(INGRESS_SOURCES, id);
}

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

/** Where an accepted delivery stands with the sequencer (docs/ingress.md#the-pending-item). */
export const SEQUENCING_STATES = ['PENDING', 'SEQUENCED', 'SET_ASIDE'] as const;

/** What an accepted event will do once the sequencer integrates it (docs/ingress.md#rules-of-order). */
export const INGRESS_EFFECTS = ['ADVANCES_CURRENT_STATE', 'CONFIRMS_CURRENT_STATE', 'RECORDED_AS_HISTORY'] as const;
export type IngressEffect = (typeof INGRESS_EFFECTS)[number];

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
        .describe('PENDING when first answered. A retry of the same delivery answers where it stands: SEQUENCED (integrated) or SET_ASIDE (it broke the lifecycle rules against its neighbours; tried again with the record\'s next events).'),
      sequencedAt: Instant.optional().describe('When the sequencer integrated it or set it aside (retries only).'),
      recordVersion: z.number().int().min(1).nullable().optional().describe('The record version it made (null: an observation or snapshot makes none). SEQUENCED only.'),
      setAsideReason: z.string().optional().describe('Why it was set aside. SET_ASIDE only.'),
    })
    .strict(),
  'The event is durably stored (one conditional write) and waits for the sequencer; a retry of the same webhook-id answers the same status, saying where its sequencing stands.',
);
export type IngressReceipt = z.infer<typeof IngressReceipt>;
