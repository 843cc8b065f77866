import * as z from 'zod';
import { component } from '../registry';
import { Instant, MinimalDisclosure } from './common';
import { TRUST_CONTEXT_PATH, UNDEFINED_TERMS_CONTEXT, VC_V2_CONTEXT } from '../credential-context';
import { LoggedRecord } from './ledger';

/**
 * A credential identifier as it appears in a QR code or a presentation: 3 to 128 characters of
 * A-Z a-z 0-9 . _ : ~ -, starting with a letter or digit. The same unreserved set as a record
 * reference (nothing needs percent-encoding), with a tighter bound because identifiers are
 * generated, never typed from a receipt. `urn:uuid:...` fits.
 */
export const CLAIM_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:~-]*$';
export const CLAIM_ID_MAX = 128;
export const ClaimId = z
  .string()
  .min(3)
  .max(CLAIM_ID_MAX)
  .regex(new RegExp(CLAIM_ID_PATTERN))
  .describe(`Credential identifier (also called credentialId): 3 to ${CLAIM_ID_MAX} characters of A-Z a-z 0-9 . _ : ~ -, starting with a letter or digit.`);

/** A published status list: its group and purpose, e.g. demo-2026-revocation. */
export const STATUS_LIST_ID_PATTERN = '^[a-z0-9][a-z0-9-]{2,79}$';
export const StatusListId = z
  .string()
  .max(80)
  .regex(new RegExp(STATUS_LIST_ID_PATTERN))
  .describe('Status list identifier: 3 to 80 characters of a-z 0-9 -, starting with a letter or digit (e.g. demo-2026-revocation).');

export const StatusListTimestamp = Instant.max(64).describe(
  'XML Schema dateTimeStamp (an RFC 3339 instant with its offset). The list as it stood at that instant; must not be later than the service clock.',
);

/** Bitstring Status List purposes this service publishes (W3C Bitstring Status List v1.0, 2.1). */
export const STATUS_PURPOSES = ['revocation', 'suspension'] as const;
export const StatusPurpose = z.enum(STATUS_PURPOSES);
export type StatusPurpose = z.infer<typeof StatusPurpose>;

/** Lifecycle states a credential record holds (changed only by the issuing platform, never here). */
export const CREDENTIAL_LIFECYCLE_STATES = ['ACTIVE', 'SUSPENDED', 'REVOKED'] as const;
export type CredentialLifecycleState = (typeof CREDENTIAL_LIFECYCLE_STATES)[number];

/** The one word a verification answers with (see docs/credentials.md for the precedence). */
export const CREDENTIAL_STATUSES = ['ACTIVE', 'SUSPENDED', 'REVOKED', 'EXPIRED', 'NOT_YET_VALID'] as const;
export const CredentialStatus = z.enum(CREDENTIAL_STATUSES);
export type CredentialStatus = z.infer<typeof CredentialStatus>;

export const CREDENTIAL_CHECKS = ['integrity', 'validityWindow', 'status'] as const;
export type CredentialCheckName = (typeof CREDENTIAL_CHECKS)[number];
export const CHECK_OUTCOMES = ['PASS', 'FAIL', 'NOT_CONFIRMED'] as const;
export type CheckOutcome = (typeof CHECK_OUTCOMES)[number];

export const BitstringStatusListEntry = component(
  'BitstringStatusListEntry',
  z.object({
    id: z.string().describe('Identifies this entry (the list URL plus #index); never the list URL itself.'),
    type: z.literal('BitstringStatusListEntry'),
    statusPurpose: StatusPurpose,
    statusListIndex: z.string().regex(/^(0|[1-9][0-9]*)$/).describe('Position of the credential in the list, base 10.'),
    statusListCredential: z.string().describe('Absolute URL of the published BitstringStatusListCredential.'),
  }),
  'W3C Bitstring Status List v1.0 credentialStatus entry.',
);
export type BitstringStatusListEntry = z.infer<typeof BitstringStatusListEntry>;

export const CredentialCheckResult = component(
  'CredentialCheckResult',
  z.object({
    check: z.enum(CREDENTIAL_CHECKS),
    outcome: z.enum(CHECK_OUTCOMES).describe('PASS; FAIL (the check refutes the credential); NOT_CONFIRMED (nothing refutes it, but it cannot be confirmed).'),
    valid: z.boolean().describe('True only when the outcome is PASS (the VC API "valid" flag).'),
    reason: z.string().describe('Why, in words a person understands.'),
  }),
  'The result of one verification check.',
);
export type CredentialCheckResult = z.infer<typeof CredentialCheckResult>;

export const CheckProblem = z.object({
  type: z.string(),
  title: z.string(),
  detail: z.string(),
});

export const CredentialVerification = component(
  'CredentialVerification',
  z.object({
    schemaVersion: z.literal('svc.credential-verification.v1'),
    credentialId: z.string(),
    verified: z.boolean().describe('True only when every check passed.'),
    status: CredentialStatus,
    summary: z.string().describe('One sentence for a person.'),
    checks: z.array(CredentialCheckResult).describe('One result per check, always in the order integrity, validityWindow, status.'),
    problemDetails: z.array(CheckProblem).describe('One entry per check that did not pass, in the manner of the W3C VC API.'),
    credentialType: z.string(),
    issuer: z.string().describe("The issuer's public identifier (a DID or an https URL); nothing else about the issuer."),
    validityWindow: z.object({ validFrom: Instant, validUntil: Instant.nullable() }),
    credentialStatus: z.array(BitstringStatusListEntry).describe('Where the published status lists hold this credential.'),
    evaluatedAt: Instant,
    statusFreshness: z.object({
      lifecycleState: z.enum(CREDENTIAL_LIFECYCLE_STATES),
      statusSince: Instant,
      lastConfirmedAt: Instant.describe('The latest instant the issuing authority stated or confirmed the status.'),
      ageSeconds: z.number().int().min(0),
      maxAgeSeconds: z.number().int().min(1),
      fresh: z.boolean(),
    }),
    links: z.object({ portableCredential: z.string(), statusLists: z.array(z.string()) }),
    logged: LoggedRecord.describe('The credential version this result is about, as logged, and its ledger evidence: the integrity check, to re-run offline.'),
    disclosure: MinimalDisclosure,
  }),
  'Public verification state of a credential: one result per check, the issuer identifier, the validity window and how fresh the status is.',
);
export type CredentialVerification = z.infer<typeof CredentialVerification>;

export { VC_V2_CONTEXT };

export const TrustContext = component(
  'TrustContext',
  z.object({ '@context': z.object({ '@version': z.literal(1.1), '@protected': z.literal(true) }).loose() }),
  "The service's JSON-LD context (version 1): the terms it adds to credential documents. A published version never changes.",
);

export const PortableCredential = component(
  'PortableCredential',
  z
    .object({
      '@context': z
        .array(z.string())
        .min(1)
        .describe(`${VC_V2_CONTEXT}, then ${UNDEFINED_TERMS_CONTEXT}: the credential type, the subject's type and its claims are the issuer's vocabulary, which that context maps.`),
      id: z.string(),
      type: z.array(z.string()).describe('Contains VerifiableCredential.'),
      name: z.string(),
      description: z.string(),
      issuer: z.string(),
      validFrom: Instant,
      validUntil: Instant.optional(),
      credentialSubject: z.object({ type: z.string() }).loose().describe('Public claims only: no subject identifier, no personal data.'),
      credentialStatus: z.array(BitstringStatusListEntry),
    })
    .loose(),
  'An existing credential projected into W3C Verifiable Credentials Data Model 2.0 JSON. Unsigned: it carries no proof.',
);
export type PortableCredential = z.infer<typeof PortableCredential>;

export const BitstringStatusListCredential = component(
  'BitstringStatusListCredential',
  z
    .object({
      '@context': z
        .array(z.string())
        .min(1)
        .describe(`${VC_V2_CONTEXT}, then the service's own context (${TRUST_CONTEXT_PATH} on its origin), which defines \`logged\`.`),
      id: z.string(),
      type: z.array(z.string()).describe('Contains VerifiableCredential and BitstringStatusListCredential.'),
      name: z.string(),
      description: z.string(),
      issuer: z.string(),
      validFrom: Instant.describe('When this version of the list was published.'),
      credentialSubject: z.object({
        id: z.string(),
        type: z.literal('BitstringStatusList'),
        statusPurpose: StatusPurpose,
        encodedList: z.string().describe('Multibase (u) base64url, no padding, of the GZIP-compressed bitstring; index 0 is the left-most bit.'),
        ttl: z.number().int().min(1).describe('Milliseconds before a refresh should be attempted.'),
      }),
      logged: LoggedRecord.describe("This version of the list as the service's ledger logged it, and its evidence: the list is unsigned, so this is how its integrity is checked."),
    })
    .loose(),
  'W3C Bitstring Status List v1.0 status list credential (unsigned).',
);
export type BitstringStatusListCredential = z.infer<typeof BitstringStatusListCredential>;
