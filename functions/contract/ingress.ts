import * as z from 'zod';
import { cloudEventEnvelope, EVENT_CONTRACTS, type EventContract } from './events';
import { component } from './registry';
import { Instant, Reference } from './schemas/common';
import { INGRESS_EFFECTS, INGRESS_SOURCES, LIFECYCLE_SOURCE_ID, SEQUENCING_STATES, SOURCE_ID_PATTERN, WEBHOOK_SOURCE_IDS } from './ingress-values';

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
        .describe('PENDING when first answered. A retry of the same delivery answers where it stands: SEQUENCED (integrated) or SET_ASIDE (it broke the lifecycle rules against its neighbours; tried again with the record\'s next events).'),
      sequencedAt: Instant.optional().describe('When the sequencer integrated it or set it aside (retries only).'),
      recordVersion: z.number().int().min(1).nullable().optional().describe('The record version it made (null: an observation or snapshot makes none). SEQUENCED only.'),
      setAsideReason: z.string().optional().describe('Why it was set aside. SET_ASIDE only.'),
    })
    .strict(),
  'The event is durably stored (one conditional write) and waits for the sequencer; a retry of the same webhook-id answers the same status, saying where its sequencing stands.',
);
export type IngressReceipt = z.infer<typeof IngressReceipt>;
