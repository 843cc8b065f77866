import type { CustomerAccountOrderCard, Disposition, LivingObjectResolution, OverallDisposition, TimelineEntry } from '../contract/schemas/objects';
import type { MinimalDisclosure } from '../contract/schemas/common';
import { isLogEvidence } from '#verify/checks/evidence-format';
import { isOrderLike, lifecycleClass } from './lifecycle';
import type { RecordHead } from './record';

/** The public content of an object version (what is shown and what the ledger logs). */
export interface ObjectContent {
  reference: string;
  objectType: string;
  businessReference: string;
  title: string;
  authority: string;
  state: string;
  stateSince: string;
  version: number;
  freshnessSeconds: number;
}
export type ObjectHead = RecordHead<ObjectContent>;

export const OBJECT_CONTENT_FIELDS = [
  'reference',
  'objectType',
  'businessReference',
  'title',
  'authority',
  'state',
  'stateSince',
  'version',
  'freshnessSeconds',
] as const satisfies readonly (keyof ObjectContent)[];

export function pick<T extends object, K extends keyof T>(source: T, fields: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const field of fields) if (source[field] !== undefined) out[field] = source[field];
  return out;
}

/** The cumulative view at an entry's instant. */
export interface ObjectView {
  state: string;
  lastObservedAt: string | null;
}

export interface ObjectWindowEntry {
  at: string;
  entry: TimelineEntry;
  view: ObjectView;
  head: ObjectHead;
  /** The head as stored, when read from the table (assessIntegrity remembers its outcome by it). */
  headText?: string;
}

export const PUBLIC_DISCLOSURE: MinimalDisclosure = {
  class: 'PUBLIC_LIFECYCLE',
  containsCustomerPii: false,
  containsPaymentAccountData: false,
};

export interface Evaluation {
  /** The instant the view is taken at (asOf, or the service clock). */
  at: string;
  /** True when the caller asked for a past instant (asOf earlier than the service clock). */
  historical: boolean;
}

/** fresh: the latest authority observation at the instant lies within the freshness window, and the view is live. */
export function isFresh(lastObservedAt: string | null, freshnessSeconds: number, evaluation: Evaluation): boolean {
  if (evaluation.historical || lastObservedAt === null) return false;
  const age = Date.parse(evaluation.at) - Date.parse(lastObservedAt);
  return age >= 0 && age <= freshnessSeconds * 1000;
}

/**
 * Precedence, first match wins: UNKNOWN (nothing known at the instant), HISTORICAL_ONLY (a past
 * view, or the record is superseded/archived), MODIFIED (the version shown is newer than its
 * ledger evidence), STALE (not fresh), CURRENT.
 */
export function objectDisposition(newest: ObjectWindowEntry | undefined, evaluation: Evaluation): Disposition {
  if (!newest) return 'UNKNOWN';
  if (evaluation.historical || lifecycleClass(newest.view.state) === 'HISTORICAL') return 'HISTORICAL_ONLY';
  const evidence = newest.head.evidence;
  if (evidence && evidence.version < newest.head.version) return 'MODIFIED';
  if (!isFresh(newest.view.lastObservedAt, newest.head.content.freshnessSeconds, evaluation)) return 'STALE';
  return 'CURRENT';
}

/**
 * One word for a person, first match wins: UNKNOWN, REVOKED (the lifecycle withdrew it),
 * HISTORICAL, CHANGED (MODIFIED), STALE, UNVERIFIED (current and fresh but integrity not
 * confirmed), TRUSTED (current, fresh, integrity confirmed, in good standing).
 */
export function overallDisposition(state: string, disposition: Disposition, integrityConfirmed: boolean): OverallDisposition {
  if (disposition === 'UNKNOWN') return 'UNKNOWN';
  if (lifecycleClass(state) === 'REVOKED') return 'REVOKED';
  if (disposition === 'HISTORICAL_ONLY') return 'HISTORICAL';
  if (disposition === 'MODIFIED') return 'CHANGED';
  if (disposition === 'STALE') return 'STALE';
  if (!integrityConfirmed || lifecycleClass(state) !== 'GOOD_STANDING') return 'UNVERIFIED';
  return 'TRUSTED';
}

/**
 * REVOKED_BY_LIFECYCLE when the state withdrew the object; REVIEW_REQUIRED when the answer is
 * anything short of current with confirmed integrity; otherwise NO_PUBLIC_RIGHT_ASSERTED (the
 * service never asserts a right publicly).
 */
export function rightsState(state: string, disposition: Disposition, integrityConfirmed: boolean): CustomerAccountOrderCard['rightsState'] {
  if (lifecycleClass(state) === 'REVOKED') return 'REVOKED_BY_LIFECYCLE';
  if (disposition !== 'CURRENT' || !integrityConfirmed || lifecycleClass(state) !== 'GOOD_STANDING') return 'REVIEW_REQUIRED';
  return 'NO_PUBLIC_RIGHT_ASSERTED';
}

const humanState = (state: string): string => state.toLowerCase().replace(/_/g, ' ');

export function objectLinks(baseUrl: string, reference: string) {
  const ref = encodeURIComponent(reference);
  return {
    verifyCurrentStatus: `${baseUrl}/verify?reference=${ref}`,
    trustReceipt: `${baseUrl}/trust-receipt/${ref}`,
    livingTransactionJson: `${baseUrl}/v1/objects/${ref}`,
  };
}

export interface ResolveObjectInput {
  reference: string;
  /** Entries at or before the evaluation instant, newest first (a bounded window). */
  entries: ObjectWindowEntry[];
  evaluation: Evaluation;
  integrityConfirmed: boolean;
  baseUrl: string;
}

/** Builds the LivingObjectResolution from the stored window. Pure: no clock, no I/O. */
export function resolveObject(input: ResolveObjectInput): LivingObjectResolution {
  const newest = input.entries[0];
  const disposition = objectDisposition(newest, input.evaluation);
  const state = newest ? newest.view.state : 'UNKNOWN';
  const integrityConfirmed = newest !== undefined && input.integrityConfirmed;
  const observedAt = newest ? newest.view.lastObservedAt : null;

  // Allowlist projection: only public content fields can reach a response, whatever else is stored.
  const object: Record<string, unknown> = newest ? pick(newest.head.content, OBJECT_CONTENT_FIELDS) : { reference: input.reference };

  const resolution: LivingObjectResolution = {
    schemaVersion: 'svc.living-object-resolution.v1',
    object,
    current: {
      overallDisposition: overallDisposition(state, disposition, integrityConfirmed),
      state,
      disposition,
      fresh: newest ? isFresh(observedAt, newest.head.content.freshnessSeconds, input.evaluation) : false,
      observedAt,
      evidenceIntegrityConfirmed: integrityConfirmed,
      evaluatedAt: input.evaluation.at,
      // Well-formed evidence as stored, so anyone can re-check `object` offline (docs/ledger.md).
      ledger: newest && isLogEvidence(newest.head.evidence) ? newest.head.evidence : null,
    },
    timeline: input.entries.map((e) => e.entry).reverse(),
    disclosure: PUBLIC_DISCLOSURE,
  };

  if (newest && isOrderLike(newest.head.content.objectType)) {
    const content = newest.head.content;
    resolution.presentations = {
      customerAccountOrder: {
        schemaVersion: 'svc.customer-account-order-card.v1',
        objectId: content.reference,
        businessReference: content.businessReference,
        headline: `${content.title}: ${humanState(state)}`,
        currentState: state,
        disposition,
        evidenceIntegrity: integrityConfirmed ? 'CONFIRMED' : 'NOT_CONFIRMED',
        lastAuthorityCheck: observedAt,
        rightsState: rightsState(state, disposition, integrityConfirmed),
        paymentState: null,
        refundState: null,
        actions: objectLinks(input.baseUrl, content.reference),
        disclosure: PUBLIC_DISCLOSURE,
      },
    };
  }
  return resolution;
}
