import * as z from 'zod';
import { Instant, Reference } from '../../../functions/contract/schemas/common';
import { LIFECYCLE_STATES, type LifecycleState } from '../../../functions/domain/lifecycle';
import { COMMERCIAL_PROOF_KIND, proofFromFile } from '../../../functions/domain/kinds/commercial-proof';
import { increasingInstants, Restricted, type RecordFormat } from './shared';

const lifecycleStates = Object.keys(LIFECYCLE_STATES) as [LifecycleState, ...LifecycleState[]];
const UpperSnake = z.string().regex(/^[A-Z][A-Z0-9_]{1,39}$/, 'an UPPER_SNAKE name such as PURCHASE');
const Digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'sha256: followed by 64 lower-case hex digits');
/** A public label, so nothing that addresses or unlocks the source system can be published through it. */
const PublicLabel = z
  .string()
  .min(1)
  .max(120)
  .refine((label) => !/[:/@?#=]/.test(label), 'a public label (no URL, host, account or key: none of : / @ ? # =)');
const ClaimName = z.string().regex(/^[a-z][A-Za-z0-9]{0,39}$/, 'a camelCase claim name');
const ClaimValue = z.union([z.string().max(500), z.number(), z.boolean()]);

export const ProofRecordInput = z
  .strictObject({
    kind: z.literal(COMMERCIAL_PROOF_KIND),
    reference: Reference,
    proofType: UpperSnake,
    title: z.string().min(1).max(200),
    issuer: z.string().min(1).max(120),
    issuedAt: Instant,
    subjectReference: Reference.optional(),
    /** Public statements the proof makes; personal and payment data belong in `restricted`. */
    claims: z.record(ClaimName, ClaimValue),
    source: z.strictObject({ system: PublicLabel, recordType: UpperSnake, digest: Digest }),
    freshnessSeconds: z.number().int().min(1).max(366 * 24 * 3600),
    /** Synchronization snapshots of the source record, oldest first, all after issuance. */
    synchronizations: z.array(z.strictObject({ at: Instant, state: z.enum(lifecycleStates), digest: Digest })).superRefine(increasingInstants),
    /**
     * Demonstration only: public fields overwritten in the stored content after the proof was
     * logged, so its evidence fails and its responses say NOT_CONFIRMED. The loader reports it.
     */
    alterStoredContentAfterLogging: z
      .strictObject({ title: z.string().min(1).max(200).optional(), claims: z.record(ClaimName, ClaimValue).optional() })
      .optional(),
    restricted: Restricted,
  })
  .superRefine((input, ctx) => {
    const first = input.synchronizations[0];
    if (first && Date.parse(first.at) <= Date.parse(input.issuedAt)) {
      ctx.addIssue({ code: 'custom', path: ['synchronizations', 0, 'at'], message: 'must be later than issuedAt' });
    }
  });
export type ProofRecordInput = z.infer<typeof ProofRecordInput>;

export const proofFormat: RecordFormat<ProofRecordInput> = {
  kind: COMMERCIAL_PROOF_KIND,
  schema: ProofRecordInput,
  begin: proofFromFile,
  // Its one version is always logged; the demonstration's alteration is applied after logging it.
  instructions: (input) => ({ anchored: true, ...(input.alterStoredContentAfterLogging ? { alterStoredContentAfterLogging: input.alterStoredContentAfterLogging } : {}) }),
};
