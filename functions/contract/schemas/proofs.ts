import { z } from 'zod';
import { component } from '../registry';
import { Instant, MinimalDisclosure } from './common';
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

const Base64Hash = z.string().describe('SHA-256 hash, standard base64 (44 characters).');

export const LedgerEvidence = component(
  'LedgerEvidence',
  z
    .object({
      format: z.literal('svc.ledger-evidence.v1'),
      version: z.number().int().min(1).describe('The record version the leaf holds.'),
      origin: z.string().describe("The log's origin: first line of the checkpoint and name of its signing key."),
      leafIndex: z.number().int().min(0),
      treeSize: z.number().int().min(1),
      leafHash: Base64Hash.describe('SHA-256(0x00 || RFC 8785 canonical JSON of the record version shown).'),
      inclusionProof: z.array(Base64Hash).describe('RFC 9162 inclusion path, sibling hashes from the leaf up.'),
      checkpoint: z.string().describe('C2SP tlog-checkpoint text in a C2SP signed note, signed with Ed25519 by the log key.'),
    })
    .loose(),
  'Ledger evidence for one record version: integrity only, never authority. Verify offline with the log key published at /v1/ledger.',
);

export const LedgerCheck = component(
  'LedgerCheck',
  z.object({
    name: z.enum(['evidence-format', 'record-version', 'canonical-hash', 'inclusion-proof', 'checkpoint-signature']),
    ok: z.boolean(),
    detail: z.string(),
  }),
  'One check the service ran on the evidence (anyone can re-run it offline).',
);

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

export const LedgerDescription = component(
  'LedgerDescription',
  z
    .object({
      schemaVersion: z.literal('svc.ledger.v1'),
      status: z.enum(['ACTIVE', 'EMPTY', 'NOT_CONFIGURED']).describe('NOT_CONFIGURED: no verifier key is configured, so no evidence is confirmed.'),
      origin: z.string().nullable(),
      verifierKeys: z.array(
        z.object({
          name: z.string(),
          keyId: z.string().describe('Eight hex digits (C2SP key id).'),
          algorithm: z.literal('Ed25519'),
          publicKey: z.string().describe('Raw 32-byte Ed25519 public key, base64.'),
          verifierKey: z.string().describe('C2SP verifier key: <name>+<hex key id>+<base64(0x01 || public key)>.'),
        }),
      ),
      latestCheckpoint: z
        .object({
          note: z.string(),
          origin: z.string(),
          treeSize: z.number().int(),
          rootHash: z.string(),
          signatureVerified: z.boolean(),
        })
        .nullable(),
      hashing: z.object({ tree: z.string(), leaf: z.string(), node: z.string(), leafData: z.string() }).loose(),
      formats: z.object({ checkpoint: z.string(), signedNote: z.string(), verifierKey: z.string(), evidence: z.string() }).loose(),
      howToVerify: z.string(),
      disclosure: MinimalDisclosure,
    })
    .loose(),
  "The log's origin, verifier key and latest signed checkpoint: what anyone needs to verify evidence offline.",
);
export type LedgerDescription = z.infer<typeof LedgerDescription>;
