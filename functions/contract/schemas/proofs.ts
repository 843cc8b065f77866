import * as z from 'zod';
import { component } from '../registry';
import { Instant, MinimalDisclosure } from './common';
import { LedgerCheck, LedgerEvidence } from './ledger';
import { Disposition } from './objects';

export const PROOF_VERIFICATION_STATUSES = ['CONFIRMED', 'REVIEW_REQUIRED', 'NOT_CONFIRMED'] as const;
export const ProofVerificationStatus = z
  .enum(PROOF_VERIFICATION_STATUSES)
  .describe(
    'CONFIRMED: the ledger evidence verifies and the source, freshly observed, still matches (CURRENT). ' +
      'REVIEW_REQUIRED: the evidence verifies but the source is MODIFIED, HISTORICAL_ONLY, STALE or UNKNOWN. ' +
      'NOT_CONFIRMED: the evidence does not verify against the proof shown (or there is none).',
  );
export type ProofVerificationStatus = z.infer<typeof ProofVerificationStatus>;

export const CurrentSourceStatus = component(
  'CurrentSourceStatus',
  z.object({
    state: z.string().describe("The source record's state at the commerce platform as last observed; UNKNOWN when never synchronized."),
    disposition: Disposition,
    fresh: z.boolean(),
    observedAt: Instant.nullable(),
  }),
  'Where the source record of a proof stands now (see docs/commercial-proofs.md for the rules).',
);
export type CurrentSourceStatus = z.infer<typeof CurrentSourceStatus>;

export const CommercialProof = z
  .object({
    reference: z.string(),
    proofType: z.string().describe('PURCHASE, DELIVERY, WARRANTY, RETURN or another UPPER_SNAKE type.'),
    title: z.string(),
    issuer: z.string(),
    issuedAt: Instant,
    subjectReference: z.string().optional().describe('The living object the proof is about (resolve it at /v1/objects/{reference}).'),
    claims: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe('Public statements the proof makes.'),
    source: z
      .object({ system: z.string(), recordType: z.string(), digest: z.string().describe('sha256:<hex> of the source record when the proof was issued.') })
      .loose(),
    freshnessSeconds: z.number().int(),
    version: z.number().int(),
  })
  .loose()
  .describe('The proof exactly as logged: its RFC 8785 canonical JSON is the ledger leaf.');

export const CommercialProofEvidence = component(
  'CommercialProofEvidence',
  z.object({
    schemaVersion: z.literal('svc.commercial-proof-evidence.v1'),
    proof: CommercialProof,
    verification: z.object({
      status: ProofVerificationStatus,
      proofVerified: z.boolean().describe('True only when the ledger evidence verified against the proof shown.'),
      currentSourceStatus: CurrentSourceStatus,
      synchronization: z
        .object({
          sourceSystem: z.string().describe('Public label of the source system (never an endpoint or a credential).'),
          sourceRecordType: z.string(),
          lastSynchronizedAt: Instant.nullable(),
          lagSeconds: z.number().int().nullable().describe('Seconds since the last synchronization, at evaluatedAt.'),
          freshnessWindowSeconds: z.number().int(),
          synchronizations: z.number().int(),
          digestAtIssue: z.string(),
          digestObserved: z.string().nullable(),
          evaluatedAt: Instant,
        })
        .loose(),
      ledger: LedgerEvidence.extend({
        integrity: z.object({ confirmed: z.boolean(), reason: z.string(), checks: z.array(LedgerCheck) }).optional(),
      })
        .nullable()
        .optional(),
      verifyUrl: z.string().optional().describe('Absolute URL of the public verification surface for this reference.'),
      trustReceiptUrl: z.string().optional().describe('Absolute URL of the human-readable trust receipt.'),
    }),
    disclosure: MinimalDisclosure,
  }),
  'A commercial proof, the current lifecycle of its source, and ledger evidence (integrity only).',
);
export type CommercialProofEvidence = z.infer<typeof CommercialProofEvidence>;
