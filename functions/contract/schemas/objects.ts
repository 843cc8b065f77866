import * as z from 'zod';
import { component } from '../registry';
import { Instant, MinimalDisclosure } from './common';
import { LedgerEvidence } from './ledger';

export const DISPOSITIONS = ['CURRENT', 'HISTORICAL_ONLY', 'MODIFIED', 'STALE', 'UNKNOWN'] as const;
export const Disposition = z.enum(DISPOSITIONS);
export type Disposition = z.infer<typeof Disposition>;

/** One word for a person; see docs/semantics.md for the rule. */
export const OVERALL_DISPOSITIONS = ['TRUSTED', 'UNVERIFIED', 'STALE', 'CHANGED', 'HISTORICAL', 'REVOKED', 'UNKNOWN'] as const;
export const OverallDisposition = z.enum(OVERALL_DISPOSITIONS);
export type OverallDisposition = z.infer<typeof OverallDisposition>;

export const EVIDENCE_INTEGRITY = ['CONFIRMED', 'NOT_CONFIRMED'] as const;
export const RIGHTS_STATES = ['REVOKED_BY_LIFECYCLE', 'REVIEW_REQUIRED', 'NO_PUBLIC_RIGHT_ASSERTED'] as const;

export const CurrentStatus = component(
  'CurrentStatus',
  z.object({
    overallDisposition: z.string(),
    state: z.string(),
    disposition: z.string(),
    fresh: z.boolean(),
    observedAt: Instant.nullable().optional(),
    evidenceIntegrityConfirmed: z.boolean(),
    evaluatedAt: Instant.optional().describe('The instant this view was taken at: asOf, or the service clock.'),
    ledger: LedgerEvidence.nullable().optional().describe('Ledger evidence for `object` (integrity only); re-check it offline with @public-trust/verify (npm run verify).'),
  }),
);

export const CustomerAccountOrderCard = component(
  'CustomerAccountOrderCard',
  z.object({
    schemaVersion: z.literal('svc.customer-account-order-card.v1'),
    objectId: z.string().optional(),
    businessReference: z.string(),
    headline: z.string(),
    currentState: z.string(),
    disposition: z.string(),
    evidenceIntegrity: z.enum(EVIDENCE_INTEGRITY),
    lastAuthorityCheck: Instant.nullable().optional(),
    rightsState: z.enum(RIGHTS_STATES),
    paymentState: z.null().optional(),
    refundState: z.null().optional(),
    actions: z
      .object({ verifyCurrentStatus: z.string(), trustReceipt: z.string(), livingTransactionJson: z.string() })
      .loose(),
    disclosure: MinimalDisclosure,
  }),
  'Lifecycle-safe card for an order-like record. Payment and refund state are never disclosed.',
);
export type CustomerAccountOrderCard = z.infer<typeof CustomerAccountOrderCard>;

export const TimelineEntry = component(
  'TimelineEntry',
  z
    .object({
      at: Instant,
      type: z.enum(['STATE_CHANGED', 'AUTHORITY_OBSERVED']),
      state: z.string(),
      previousState: z.string().nullable().optional(),
      source: z.string(),
    })
    .loose(),
  'A state change or an authority observation, oldest first.',
);
export type TimelineEntry = z.infer<typeof TimelineEntry>;

export const LivingObjectResolution = component(
  'LivingObjectResolution',
  z.object({
    schemaVersion: z.literal('svc.living-object-resolution.v1'),
    object: z.object({}).loose(),
    current: CurrentStatus,
    presentations: z.object({ customerAccountOrder: CustomerAccountOrderCard.optional() }).loose().optional(),
    timeline: z.array(TimelineEntry).optional(),
    disclosure: MinimalDisclosure,
  }),
  'A living object resolved to its state at the evaluation instant, with its timeline.',
);
export type LivingObjectResolution = z.infer<typeof LivingObjectResolution>;

import { TIMELINE_WINDOW_DEFAULT, TIMELINE_WINDOW_MAX } from '../timeline-window';

export { TIMELINE_WINDOW_DEFAULT, TIMELINE_WINDOW_MAX };

export const TimelineLimit = z.coerce
  .number()
  .int()
  .min(1)
  .max(TIMELINE_WINDOW_MAX)
  .describe(
    `How many timeline entries (newest at the evaluation instant) to return, 1 to ${TIMELINE_WINDOW_MAX}; default ${TIMELINE_WINDOW_DEFAULT}. ` +
      'When more exist, the Link header (rel="next") gives the older window.',
  );
