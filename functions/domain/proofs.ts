import type { MinimalDisclosure } from '../contract/schemas/common';
import type { Disposition } from '../contract/schemas/objects';
import type { CommercialProofEvidence, CurrentSourceStatus, ProofVerificationStatus } from '../contract/schemas/proofs';
import type { IntegrityInspection } from './evidence';
import { isLogEvidence } from '#verify/checks/evidence-format';
import { lifecycleClass } from './lifecycle';
import type { RecordHead } from './record';

export const COMMERCIAL_PROOF_KIND = 'COMMERCIAL_PROOF';

/**
 * The public content of a commercial proof: what a response shows and what the ledger logs.
 * `source` identifies the record at the external commerce platform only by its type and the
 * digest it had when the proof was issued; never by an endpoint, an account or a credential.
 */
export type ProofContent = {
  reference: string;
  proofType: string;
  title: string;
  issuer: string;
  issuedAt: string;
  /** The living object the proof is about, when there is one (e.g. the order it proves). */
  subjectReference?: string;
  /** Public statements the proof makes (item, dates, coverage); never personal or payment data. */
  claims: Record<string, string | number | boolean>;
  source: {
    /** Public label of the source system, e.g. "External commerce platform". */
    system: string;
    recordType: string;
    /** Digest of the source record when the proof was issued (sha256:<hex>). */
    digest: string;
  };
  /** How long a synchronization snapshot keeps the source status fresh. */
  freshnessSeconds: number;
  version: number;
};
export type ProofHead = RecordHead<ProofContent>;

/** One synchronization snapshot of the source record, as observed at the platform. */
export interface SourceSnapshot {
  at: string;
  /** The source record's lifecycle state at the platform. */
  state: string;
  digest: string;
}

/** The cumulative view at an entry's instant. */
export interface ProofView {
  lastSynchronization: SourceSnapshot | null;
  synchronizations: number;
}

export interface ProofTimelineEntry {
  at: string;
  type: 'PROOF_ISSUED' | 'SOURCE_SYNCHRONIZED';
  state: string;
  source: string;
}

export interface ProofWindowEntry {
  at: string;
  entry: ProofTimelineEntry;
  view: ProofView;
  head: ProofHead;
}

export const PROOF_DISCLOSURE: MinimalDisclosure = {
  class: 'PUBLIC_COMMERCIAL_PROOF',
  containsCustomerPii: false,
  containsPaymentAccountData: false,
};

/** Whole seconds from `from` to `now` (never negative). */
export function ageSeconds(from: string, now: string): number {
  return Math.max(0, Math.floor((Date.parse(now) - Date.parse(from)) / 1000));
}

/** fresh: a snapshot exists and is no older than the proof's freshness window. */
export function isSourceFresh(snapshot: SourceSnapshot | null, freshnessSeconds: number, now: string): boolean {
  if (!snapshot) return false;
  const age = Date.parse(now) - Date.parse(snapshot.at);
  return age >= 0 && age <= freshnessSeconds * 1000;
}

/**
 * Where the source stands against the proof, first match wins:
 *   UNKNOWN          never synchronized: nothing is known about the source;
 *   HISTORICAL_ONLY  the last snapshot shows the source retired at the platform (a HISTORICAL
 *                    lifecycle state such as ARCHIVED or SUPERSEDED): only history remains;
 *   MODIFIED         the last snapshot's digest differs from the digest the proof was issued on;
 *   STALE            the last snapshot is older than the freshness window;
 *   CURRENT          the digest matches and the snapshot is fresh.
 * A retirement or a change, once observed, is a fact that ageing does not undo, so both outrank STALE.
 */
export function sourceDisposition(content: ProofContent, snapshot: SourceSnapshot | null, now: string): Disposition {
  if (!snapshot) return 'UNKNOWN';
  if (lifecycleClass(snapshot.state) === 'HISTORICAL') return 'HISTORICAL_ONLY';
  if (snapshot.digest !== content.source.digest) return 'MODIFIED';
  if (!isSourceFresh(snapshot, content.freshnessSeconds, now)) return 'STALE';
  return 'CURRENT';
}

export function currentSourceStatus(content: ProofContent, snapshot: SourceSnapshot | null, now: string): CurrentSourceStatus {
  return {
    state: snapshot ? snapshot.state : 'UNKNOWN',
    disposition: sourceDisposition(content, snapshot, now),
    fresh: isSourceFresh(snapshot, content.freshnessSeconds, now),
    observedAt: snapshot ? snapshot.at : null,
  };
}

/**
 * One word for the proof as a whole:
 *   NOT_CONFIRMED    the ledger evidence does not verify against the proof shown: do not rely on it;
 *   CONFIRMED        the proof is intact and its source, freshly observed, still matches it (CURRENT);
 *   REVIEW_REQUIRED  the proof is intact but its source is MODIFIED, HISTORICAL_ONLY, STALE or UNKNOWN.
 */
export function verificationStatus(proofVerified: boolean, disposition: Disposition): ProofVerificationStatus {
  if (!proofVerified) return 'NOT_CONFIRMED';
  return disposition === 'CURRENT' ? 'CONFIRMED' : 'REVIEW_REQUIRED';
}

export function proofLinks(baseUrl: string, reference: string): { verifyUrl: string; trustReceiptUrl: string } {
  const ref = encodeURIComponent(reference);
  return { verifyUrl: `${baseUrl}/verify?reference=${ref}`, trustReceiptUrl: `${baseUrl}/trust-receipt/${ref}` };
}

/** The allowlisted public fields of a proof: whatever else is stored never reaches a response. */
export function publicProof(content: ProofContent): ProofContent {
  const proof: ProofContent = {
    reference: content.reference,
    proofType: content.proofType,
    title: content.title,
    issuer: content.issuer,
    issuedAt: content.issuedAt,
    claims: content.claims,
    source: { system: content.source.system, recordType: content.source.recordType, digest: content.source.digest },
    freshnessSeconds: content.freshnessSeconds,
    version: content.version,
  };
  if (content.subjectReference !== undefined) proof.subjectReference = content.subjectReference;
  return proof;
}

export interface ProofEvidenceInput {
  /** The newest entry at the evaluation instant. */
  newest: ProofWindowEntry;
  integrity: IntegrityInspection;
  now: string;
  baseUrl: string;
}

/** Builds the CommercialProofEvidence response. Pure: no clock, no I/O. */
export function commercialProofEvidence(input: ProofEvidenceInput): CommercialProofEvidence {
  const { head, view } = input.newest;
  const content = head.content;
  const snapshot = view.lastSynchronization;
  const status = currentSourceStatus(content, snapshot, input.now);
  const proofVerified = input.integrity.confirmed;
  return {
    schemaVersion: 'svc.commercial-proof-evidence.v1',
    proof: publicProof(content),
    verification: {
      status: verificationStatus(proofVerified, status.disposition),
      proofVerified,
      currentSourceStatus: status,
      synchronization: {
        sourceSystem: content.source.system,
        sourceRecordType: content.source.recordType,
        lastSynchronizedAt: snapshot ? snapshot.at : null,
        lagSeconds: snapshot ? ageSeconds(snapshot.at, input.now) : null,
        freshnessWindowSeconds: content.freshnessSeconds,
        synchronizations: view.synchronizations,
        digestAtIssue: content.source.digest,
        digestObserved: snapshot ? snapshot.digest : null,
        evaluatedAt: input.now,
      },
      // Well-formed evidence as stored, with the service's own checks beside it; null when there is none.
      ledger: isLogEvidence(head.evidence)
        ? { ...head.evidence, integrity: { confirmed: proofVerified, reason: input.integrity.reason, checks: input.integrity.checks } }
        : null,
      ...proofLinks(input.baseUrl, content.reference),
    },
    disclosure: PROOF_DISCLOSURE,
  };
}
