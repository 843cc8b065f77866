import * as z from 'zod';
import { Instant } from '../../../functions/contract/schemas/common';
import { ClaimId } from '../../../functions/contract/schemas/credentials';
import { MIN_STATUS_LIST_ENTRIES } from '../../../functions/domain/credentials/bitstring';
import { CREDENTIAL_KIND, credentialFromFile, listMembershipOf, type CredentialEvent } from '../../../functions/domain/kinds/credential';
import { entryIndexOf, increasingInstants, Restricted, type RecordFormat } from './shared';

/**
 * Claim names that would carry personal data. Public claims are the record author's promise,
 * so this is a safety net, not the guarantee: anything about the person belongs in `restricted`.
 */
const PERSONAL_CLAIM_NAMES = new Set(
  [
    'name', 'givenName', 'familyName', 'fullName', 'firstName', 'lastName', 'email', 'emailAddress', 'phone', 'telephone',
    'mobile', 'birthDate', 'dateOfBirth', 'birthPlace', 'address', 'streetAddress', 'postalCode', 'nationalId',
    'passportNumber', 'ssn', 'taxId', 'iban', 'cardNumber', 'accountNumber', 'photo', 'image', 'holder', 'subject',
  ].map((n) => n.toLowerCase()),
);
const RESERVED_CLAIM_NAMES = new Set(['id', 'type']);

const ClaimValue = z.union([z.string().max(120), z.number().finite(), z.boolean()]);
const Claims = z
  .record(z.string().regex(/^[a-z][A-Za-z0-9]{0,39}$/, 'a camelCase claim name'), ClaimValue)
  .superRefine((claims, ctx) => {
    const names = Object.keys(claims);
    if (names.length > 20) ctx.addIssue({ code: 'custom', message: 'at most 20 public claims' });
    for (const name of names) {
      if (RESERVED_CLAIM_NAMES.has(name)) ctx.addIssue({ code: 'custom', path: [name], message: `'${name}' is set by the service, not a claim` });
      else if (PERSONAL_CLAIM_NAMES.has(name.toLowerCase())) {
        ctx.addIssue({ code: 'custom', path: [name], message: `'${name}' looks like personal data; keep it in restricted` });
      }
    }
  });

/** A DID or an https URL: the issuer's public identifier, nothing more. */
const IssuerId = z
  .string()
  .max(200)
  .regex(/^(did:[a-z0-9]+:[A-Za-z0-9._:%-]+|https:\/\/[A-Za-z0-9.-]+(\/[A-Za-z0-9._~%/-]*)?)$/, 'a DID or an https URL');

const StatusListGroup = z.string().regex(/^[a-z0-9][a-z0-9-]{1,59}$/, '2 to 60 characters of a-z 0-9 -');

const LifecycleEntry = <T extends CredentialEvent>(type: T) =>
  z.strictObject({
    type: z.literal(type),
    at: Instant,
    /** false: this version is not yet in the ledger (its evidence stays that of the previous version). */
    anchored: z.boolean().optional(),
  });

export const CredentialRecordInput = z
  .strictObject({
    kind: z.literal(CREDENTIAL_KIND),
    reference: ClaimId,
    credentialType: z
      .string()
      .regex(/^[A-Z][A-Za-z0-9]{2,63}$/, 'a PascalCase type such as MembershipCredential')
      .refine((t) => t !== 'VerifiableCredential', 'VerifiableCredential is always added; name the specific type'),
    title: z.string().min(1).max(200),
    issuer: IssuerId,
    validFrom: Instant,
    validUntil: Instant.optional(),
    subject: z.strictObject({
      type: z.string().regex(/^[A-Z][A-Za-z0-9]{1,63}$/, 'a PascalCase type such as Member'),
      claims: Claims.optional(),
    }),
    /** The status list group; the service publishes <group>-revocation and <group>-suspension. */
    statusList: StatusListGroup,
    /** Pins the position in the group's lists (an index assigned at issuance); otherwise one is derived. */
    statusListIndex: z.number().int().min(0).max(MIN_STATUS_LIST_ENTRIES - 1).optional(),
    /** How long a statement or confirmation of the status by the issuer keeps it fresh. */
    freshnessSeconds: z.number().int().min(1).max(366 * 24 * 3600),
    history: z
      .array(
        z.discriminatedUnion('type', [
          LifecycleEntry('ISSUED'),
          LifecycleEntry('SUSPENDED'),
          LifecycleEntry('REINSTATED'),
          LifecycleEntry('REVOKED'),
          z.strictObject({ type: z.literal('AUTHORITY_OBSERVED'), at: Instant, source: z.string().min(1).max(120) }),
        ]),
      )
      .min(1)
      .superRefine(increasingInstants),
    restricted: Restricted,
  })
  .superRefine((input, ctx) => {
    if (input.validUntil !== undefined && Date.parse(input.validUntil) <= Date.parse(input.validFrom)) {
      ctx.addIssue({ code: 'custom', path: ['validUntil'], message: 'must be later than validFrom' });
    }
  });
export type CredentialRecordInput = z.infer<typeof CredentialRecordInput>;

export const credentialFormat: RecordFormat<CredentialRecordInput> = {
  kind: CREDENTIAL_KIND,
  schema: CredentialRecordInput,
  begin: credentialFromFile,
  instructions(input, key) {
    const entry = input.history[key === null ? 0 : entryIndexOf(key)] as { anchored?: boolean };
    // The pinned position is read by the list step (member) and removed when the credential is placed.
    return { anchored: entry.anchored !== false, ...(input.statusListIndex !== undefined ? { pinnedIndex: input.statusListIndex } : {}) };
  },
  member(record, index) {
    const pinned = (record.entries[0].head as { pinnedIndex?: number }).pinnedIndex;
    return { index, reference: record.reference, ...listMembershipOf(record.entries as { at: string; entry: Record<string, unknown>; head: unknown }[]), ...(pinned !== undefined ? { pinnedIndex: pinned } : {}) };
  },
};
