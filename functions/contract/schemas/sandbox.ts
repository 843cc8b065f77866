import * as z from 'zod';
import { CHANNELS, OFFLINE_VERIFICATION_STATEMENT } from '../channels';
import { component, refinedBy } from '../registry';
import { Instant } from './common';
import {
  SANDBOX_DEFAULT_INSTANT,
  MAX_ADVANCE_MS,
  TEST_CLOCK_ID_PATTERN,
  COMMERCE_SOURCE_STATES,
  ASSURANCE_LEVELS,
  IDENTITY_EVIDENCE,
  WALLET_CREDENTIAL_TYPES,
  PAYMENT_OPERATIONS,
  CREDENTIAL_STATUSES,
  SYNTHETIC_CREDENTIAL_STATUSES,
  PROVIDER_ID_PATTERN,
  TRUST_DECISIONS,
  RULE_ID_PATTERN,
  BUILT_IN_POLICY_NAMES,
  DEFAULT_OFFLINE_WINDOW_SECONDS,
  MAX_OFFLINE_WINDOW_SECONDS,
  OFFLINE_OUTCOMES,
} from '../sandbox-values';

/**
 * Request and response schemas of the sandbox: the test clock, the synthetic providers, the
 * trust-policy evaluation and offline verification. Every request object is strict: an unknown
 * field is refused (422 naming it) rather than silently ignored, so a typo never changes a result.
 * The rules behind the shapes are in docs/sandbox.md.
 */

/** The sandbox's values, re-exported with its schemas (they are defined without zod in ../sandbox-values). */
export * from '../sandbox-values';


const SandboxInstant = Instant.describe(
  'RFC 3339 instant with an explicit offset (Z or +hh:mm), e.g. 2026-01-01T00:00:00Z. Kept to the millisecond.',
);

// ---------------------------------------------------------------------------------------------
// Test clock
// ---------------------------------------------------------------------------------------------

export const TestClockRequest = component(
  'SandboxTestClockRequest',
  z.strictObject({
    startAt: SandboxInstant.optional().describe(
      `Where the clock starts (RFC 3339). Default: ${SANDBOX_DEFAULT_INSTANT}, a fixed instant, never the wall clock.`,
    ),
    advanceMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_ADVANCE_MS)
      .optional()
      .describe(`How far to advance the clock, in whole milliseconds, 0 to ${MAX_ADVANCE_MS} (100 years). Default 0.`),
  }),
  'Optional body of POST /developers/sandbox/test-clock. An empty body is the same as {}.',
);
export type TestClockRequest = z.infer<typeof TestClockRequest>;

export const TestClock = component(
  'SandboxTestClock',
  z.strictObject({
    schemaVersion: z.literal('svc.sandbox-test-clock.v1'),
    clockId: z
      .string()
      .regex(new RegExp(TEST_CLOCK_ID_PATTERN))
      .describe('Derived from startAt and advanceMs (after normalisation): the same reading always has the same id.'),
    startAt: SandboxInstant.describe('The instant the clock starts at (UTC, milliseconds).'),
    startAtSource: z
      .enum(['REQUEST', 'DEFAULT'])
      .describe('REQUEST when startAt was given; DEFAULT when the documented fixed instant was used.'),
    advanceMs: z.number().int().min(0).max(MAX_ADVANCE_MS).describe('The advance applied, in milliseconds.'),
    now: SandboxInstant.describe('The instant the clock has advanced to (startAt + advanceMs): the "now" of this clock.'),
  }),
  'A deterministic test-clock reading. Pass it whole as `clock` to another sandbox evaluation to use its `now`.',
);
export type TestClock = z.infer<typeof TestClock>;

/**
 * The evaluation instant of a sandbox evaluation: a test-clock result (`clock`) or an explicit
 * `now`, at most one of them. Neither: the fixed default instant.
 */
const evaluationInstantFields = {
  clock: TestClock.optional().describe('A result of POST /developers/sandbox/test-clock, unchanged; its `now` is the evaluation instant.'),
  now: SandboxInstant.optional().describe(`The evaluation instant, when no clock is given. Default: ${SANDBOX_DEFAULT_INSTANT}.`),
};

const SandboxStatement = z
  .strictObject({
    synthetic: z.literal(true),
    productionAuthorityCreated: z.literal(false),
    productionSideEffects: z.literal('NONE'),
  })
  .describe('Every sandbox answer is synthetic, creates no production authority and has no production side effect.');

const Digest = z.string().regex(/^sha256:[0-9a-f]{64}$/).describe('sha256: and the hex SHA-256 of the RFC 8785 canonical JSON.');

// ---------------------------------------------------------------------------------------------
// Synthetic providers
// ---------------------------------------------------------------------------------------------

/** Identifiers a caller supplies to a synthetic provider: opaque, never personal data. */
const SyntheticId = (what: string) =>
  z
    .string()
    .min(3)
    .max(64)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/)
    .describe(`${what}: 3 to 64 of A-Z a-z 0-9 . _ : -, starting with a letter or digit. Opaque; never personal data.`);

export const CommerceSourceRequest = component(
  'SandboxCommerceSourceRequest',
  z.strictObject({
    sourceReference: SyntheticId('The order reference at the synthetic commerce platform'),
    scenario: z
      .enum(COMMERCE_SOURCE_STATES)
      .optional()
      .describe('Force the source state. Default: chosen from the SHA-256 of sourceReference (stable for a reference).'),
    ...evaluationInstantFields,
  }),
  'Request to the synthetic commerce source (providerId commerce-source).',
);

export const CommerceSourceResult = component(
  'SandboxCommerceSourceResult',
  z.strictObject({
    sourceSystem: z.literal('SYNTHETIC_COMMERCE_PLATFORM'),
    sourceReference: z.string(),
    state: z.enum(COMMERCE_SOURCE_STATES),
    stateChosenBy: z.enum(['SCENARIO', 'REFERENCE_DIGEST']),
    sourceDigest: Digest.describe('Digest of the synthetic source record (state, reference, lines).'),
    observedAt: SandboxInstant,
    lines: z.array(z.strictObject({ sku: z.string(), quantity: z.number().int().min(1) })),
  }),
  'A synthetic commerce source snapshot. No order, payment or customer data of any real platform.',
);

export const AssuranceLevel = z.enum(ASSURANCE_LEVELS).describe('eIDAS-style level of assurance, lowest to highest.');
export type AssuranceLevel = z.infer<typeof AssuranceLevel>;

export const IdentityVerifierRequest = component(
  'SandboxIdentityVerifierRequest',
  z.strictObject({
    subjectId: SyntheticId('A pseudonymous subject identifier'),
    evidence: refinedBy(z.array(z.enum(IDENTITY_EVIDENCE)).min(1).max(IDENTITY_EVIDENCE.length), 'evidence-unique').describe('The evidence the synthetic subject presents (each at most once).'),
    requestedAssurance: AssuranceLevel.exclude(['NONE']).optional().describe('The level the relying party asks for. Default SUBSTANTIAL.'),
  }),
  'Request to the synthetic identity verifier (providerId identity-verifier). It binds no real identity.',
);

export const IdentityVerifierResult = component(
  'SandboxIdentityVerifierResult',
  z.strictObject({
    verificationId: z.string().regex(/^idv_[0-9a-f]{24}$/),
    subjectId: z.string(),
    assuranceLevel: AssuranceLevel.describe('The highest level the presented evidence reaches.'),
    requestedAssurance: AssuranceLevel,
    outcome: z.enum(['MEETS_REQUESTED', 'BELOW_REQUESTED']),
    decidedBy: z.string().describe('The evidence type that set the level reached.'),
    identityBound: z.literal(false).describe('No real identity is ever bound by the sandbox.'),
  }),
  'A synthetic identity verification outcome.',
);

export const WalletRequest = component(
  'SandboxWalletRequest',
  z.strictObject({
    credentialType: z.enum(WALLET_CREDENTIAL_TYPES),
    requestedClaims: z
      .array(z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]{0,63}$/))
      .min(1)
      .max(20)
      .describe('Claim names the verifier asks for; the wallet discloses only those it holds.'),
    nonce: z.string().min(8).max(128).regex(/^[A-Za-z0-9._~-]+$/).describe('Verifier nonce, echoed in the synthetic presentation.'),
    audience: SyntheticId('The verifier the presentation is meant for'),
  }),
  'Request to the synthetic holder wallet (providerId wallet).',
);

export const WalletResult = component(
  'SandboxWalletResult',
  z.strictObject({
    presentationId: z.string().regex(/^vp_[0-9a-f]{24}$/),
    credentialType: z.enum(WALLET_CREDENTIAL_TYPES),
    audience: z.string(),
    nonce: z.string(),
    disclosed: z.array(z.strictObject({ claim: z.string(), value: z.union([z.string(), z.boolean(), z.number()]) })),
    withheld: z.array(z.string()).describe('Requested claims this synthetic credential does not hold.'),
    holderBinding: z.literal('NONE_SYNTHETIC'),
    signed: z.literal(false).describe('Synthetic presentations are never signed: they cannot be replayed as real ones.'),
  }),
  'A synthetic, unsigned presentation with selective disclosure.',
);

export const PaymentProcessorRequest = component(
  'SandboxPaymentProcessorRequest',
  z.strictObject({
    operation: z.enum(PAYMENT_OPERATIONS),
    amountMinor: z.number().int().min(1).max(1_000_000_000).describe('Amount in minor units (e.g. cents), 1 to 1,000,000,000.'),
    currency: z.string().regex(/^[A-Z]{3}$/).describe('ISO 4217 alphabetic code.'),
    merchantReference: SyntheticId('The merchant-side reference'),
  }),
  'Request to the synthetic payment processor (providerId payment-processor). No card or account data is accepted.',
);

export const PaymentProcessorResult = component(
  'SandboxPaymentProcessorResult',
  z.strictObject({
    outcome: z.literal('NOT_AUTHORISED_TO_CAPTURE'),
    operation: z.enum(PAYMENT_OPERATIONS),
    amountMinor: z.number().int(),
    currency: z.string(),
    merchantReference: z.string(),
    captured: z.literal(false),
    fundsMoved: z.literal(false),
    reason: z.string(),
  }),
  'The only answer the synthetic payment processor can give: it is not authorised to capture, and no funds move.',
);

export const CredentialStatus = z.enum(CREDENTIAL_STATUSES);

export const CredentialStatusRequest = component(
  'SandboxCredentialStatusRequest',
  z.strictObject({
    credentialId: SyntheticId('The credential identifier'),
    scenario: z
      .enum(SYNTHETIC_CREDENTIAL_STATUSES)
      .optional()
      .describe('Force the status. Default: chosen from the SHA-256 of credentialId (stable for an identifier).'),
    ...evaluationInstantFields,
  }),
  'Request to the synthetic credential status registry (providerId credential-status).',
);

export const CredentialStatusResult = component(
  'SandboxCredentialStatusResult',
  z.strictObject({
    credentialId: z.string(),
    status: z.enum(SYNTHETIC_CREDENTIAL_STATUSES),
    statusChosenBy: z.enum(['SCENARIO', 'IDENTIFIER_DIGEST']),
    statusListIndex: z.number().int().min(0).describe('Synthetic position in a synthetic status list.'),
    checkedAt: SandboxInstant.describe('The evaluation instant: feed it to a trust-policy subject as credentialStatusCheckedAt.'),
    issuanceAuthority: z.literal('NONE_SYNTHETIC'),
  }),
  'A synthetic credential status answer. The sandbox issues and changes no credential.',
);

export const ProviderRunRequest = component(
  'SandboxProviderRunRequest',
  z.union([CommerceSourceRequest, IdentityVerifierRequest, WalletRequest, PaymentProcessorRequest, CredentialStatusRequest]),
  'The request schema of the provider named in the path (see /developers/sandbox/providers.json); validated against that schema only.',
);

export const ProviderRunResult = component(
  'SandboxProviderRunResult',
  z.strictObject({
    schemaVersion: z.literal('svc.sandbox-provider-result.v1'),
    providerId: z.string().regex(new RegExp(PROVIDER_ID_PATTERN)),
    requestDigest: Digest.describe('Digest of the validated request: equal requests have equal digests and equal results.'),
    result: z.union([CommerceSourceResult, IdentityVerifierResult, WalletResult, PaymentProcessorResult, CredentialStatusResult]),
    sandbox: SandboxStatement,
  }),
  'The synthetic result of one provider run.',
);
export type ProviderRunResult = z.infer<typeof ProviderRunResult>;

// ---------------------------------------------------------------------------------------------
// Trust policy (SHADOW)
// ---------------------------------------------------------------------------------------------

export const TrustDecision = z.enum(TRUST_DECISIONS);
export type TrustDecision = z.infer<typeof TrustDecision>;

const channelKeys = CHANNELS.map((c) => c.key) as [(typeof CHANNELS)[number]['key'], ...(typeof CHANNELS)[number]['key'][]];
export const Channel = z.enum(channelKeys).describe('One of the service channels (see catalogue.json).');

const RiskSignal = z.string().regex(/^[A-Z][A-Z0-9_]{1,39}$/).describe('UPPER_SNAKE risk signal, e.g. NEW_DEVICE, IMPOSSIBLE_TRAVEL.');

export const TrustPolicySubject = component(
  'SandboxTrustPolicySubject',
  z.strictObject({
    assuranceLevel: AssuranceLevel,
    channel: Channel,
    credentialStatus: CredentialStatus,
    credentialStatusCheckedAt: SandboxInstant.optional().describe(
      'When the credential status was last checked; not later than the evaluation instant.',
    ),
    riskScore: z.number().int().min(0).max(100).optional().describe('0 (no risk) to 100. Default 0.'),
    riskSignals: z.array(RiskSignal).max(20).optional().describe('Default [].'),
  }),
  'The subject a trust policy is evaluated for. Synthetic attributes only; no personal data.',
);
export type TrustPolicySubject = z.infer<typeof TrustPolicySubject>;

/** A fact change that a step-up would bring; derived facts are recomputed from it. */
export const StepUpChange = component(
  'SandboxStepUpChange',
  refinedBy(
    z.strictObject({
      assuranceLevel: AssuranceLevel.optional(),
      channel: Channel.optional(),
      credentialStatus: CredentialStatus.optional(),
      credentialStatusAgeSeconds: z.number().int().min(0).optional().describe('0: the status is checked again now.'),
      riskScore: z.number().int().min(0).max(100).optional(),
      riskSignals: z.array(RiskSignal).max(20).optional(),
    }),
    'change-not-empty',
  ),
  'Facts a step-up would change (any subset).',
);
export type StepUpChange = z.infer<typeof StepUpChange>;

export const StepUpOption = z.strictObject({
  description: z.string().min(1).max(200),
  change: StepUpChange,
});

/** JSON Logic is validated by the sandbox (operator and variable allowlists); the schema only says "any JSON". */
const JsonLogicExpression = z
  .unknown()
  .describe('A JSON Logic expression (jsonlogic.com) over the facts; see docs/sandbox.md for the operators and facts allowed.');

export const TrustPolicyRule = refinedBy(
  z.strictObject({
    id: z.string().regex(new RegExp(RULE_ID_PATTERN)),
    when: JsonLogicExpression,
    decision: TrustDecision,
    reason: z.string().min(1).max(300).describe('Why this rule decides as it does; every decision carries it.'),
    satisfiedBy: z
      .array(StepUpOption)
      .min(1)
      .max(5)
      .optional()
      .describe('STEP_UP rules only (and required there): the step-ups that may satisfy the rule.'),
  }),
  'step-up-listed',
);
export type TrustPolicyRule = z.infer<typeof TrustPolicyRule>;

export const TrustPolicy = component(
  'SandboxTrustPolicy',
  refinedBy(
    z.strictObject({
      id: z.string().regex(new RegExp(RULE_ID_PATTERN)),
      description: z.string().max(300).optional(),
      rules: z.array(TrustPolicyRule).min(1).max(50).describe('Evaluated in order; the first rule whose `when` holds decides.'),
    }),
    'rule-ids-unique',
  ),
  'A custom policy: ordered rules, first match decides; when none matches the answer is DENY (fail closed).',
);
export type TrustPolicy = z.infer<typeof TrustPolicy>;

export const TrustPolicyRequest = component(
  'SandboxTrustPolicyRequest',
  z.strictObject({
    subject: TrustPolicySubject,
    policy: z
      .union([z.enum(BUILT_IN_POLICY_NAMES), TrustPolicy])
      .describe('The name of a built-in policy, or a custom policy.'),
    ...evaluationInstantFields,
  }),
  'Body of POST /developers/sandbox/trust-policy.',
);
export type TrustPolicyRequest = z.infer<typeof TrustPolicyRequest>;

export const TrustFacts = component(
  'SandboxTrustFacts',
  z.strictObject({
    assuranceLevel: AssuranceLevel,
    assuranceRank: z.number().int().min(0).max(3).describe('NONE 0, LOW 1, SUBSTANTIAL 2, HIGH 3.'),
    channel: Channel,
    channelReadiness: z.enum(['ACTIVE', 'READY']),
    credentialStatus: CredentialStatus,
    credentialStatusAgeSeconds: z.number().int().min(0).nullable().describe('Seconds since the status check; null when never checked.'),
    riskScore: z.number().int().min(0).max(100),
    riskSignals: z.array(z.string()),
    now: SandboxInstant,
  }),
  'The facts the rules see (the `var` names a rule may use).',
);
export type TrustFacts = z.infer<typeof TrustFacts>;

export const TrustPolicyDecision = component(
  'SandboxTrustPolicyDecision',
  z.strictObject({
    schemaVersion: z.literal('svc.sandbox-trust-policy-decision.v1'),
    liveState: z.literal('SHADOW'),
    enforced: z.literal(false).describe('A SHADOW decision is computed and shown, never enforced anywhere.'),
    decision: TrustDecision,
    reasons: z.array(z.string()).min(1).describe('Why; a DENY always carries at least one reason.'),
    decidedBy: z.strictObject({
      policyId: z.string(),
      builtIn: z.boolean(),
      policyDigest: Digest,
      ruleId: z.string(),
      ruleIndex: z.number().int().min(0),
      implicit: z.boolean().describe('true: no rule matched and the fail-closed default decided.'),
    }),
    stepUp: z
      .strictObject({
        satisfiedBy: z
          .array(z.strictObject({ steps: z.array(z.string()).min(1), change: StepUpChange }))
          .describe('Step-ups (alone or in sequence) that, re-evaluated against the same policy, lead to ALLOW.'),
        unsatisfiable: z.boolean().describe('true: none of the listed step-ups leads to ALLOW under this policy.'),
      })
      .optional()
      .describe('Present for STEP_UP only.'),
    trace: z.array(z.strictObject({ ruleId: z.string(), matched: z.boolean() })).describe('The rules evaluated, in order, up to the deciding one.'),
    facts: TrustFacts,
    evaluatedAt: SandboxInstant,
    clockId: z.string().nullable(),
    sandbox: SandboxStatement,
  }),
  'A SHADOW trust-policy decision: ALLOW, DENY or STEP_UP, the rule that decided and why.',
);
export type TrustPolicyDecision = z.infer<typeof TrustPolicyDecision>;

// ---------------------------------------------------------------------------------------------
// Offline verification (SHADOW)
// ---------------------------------------------------------------------------------------------

export const OfflineVerificationRequest = component(
  'SandboxOfflineVerificationRequest',
  z.strictObject({
    response: z
      .object({})
      .loose()
      .describe('A LivingObjectResolution or CommercialProofEvidence exactly as this API returned it.'),
    evidence: z
      .object({})
      .loose()
      .optional()
      .describe('The ledger evidence of the record shown; default: the evidence the response itself carries.'),
    trustedKeys: z
      .array(z.string().min(1).max(512))
      .min(1)
      .max(10)
      .describe('The C2SP note verifier keys the verifier trusts (the published log key).'),
    lastOnlineStatusCheckAt: SandboxInstant.describe("When the verifier last checked the record's status online."),
    offlineValidityWindowSeconds: z
      .number()
      .int()
      .min(60)
      .max(MAX_OFFLINE_WINDOW_SECONDS)
      .optional()
      .describe(`How long a status check may be relied on offline, 60 to ${MAX_OFFLINE_WINDOW_SECONDS} seconds. Default ${DEFAULT_OFFLINE_WINDOW_SECONDS}.`),
    ...evaluationInstantFields,
  }),
  'Body of POST /developers/sandbox/offline-verification: a verification bundle.',
);
export type OfflineVerificationRequest = z.infer<typeof OfflineVerificationRequest>;

export const OfflineOutcome = z.enum(OFFLINE_OUTCOMES);
export type OfflineOutcome = z.infer<typeof OfflineOutcome>;

export const OfflineCheck = z.strictObject({
  check: z.string(),
  result: OfflineOutcome.describe('PASS; FAIL (integrity or signature); HOLD (the status check is too old to rely on offline).'),
  detail: z.string(),
});
export type OfflineCheck = z.infer<typeof OfflineCheck>;

export const OfflineVerificationResult = component(
  'SandboxOfflineVerificationResult',
  z.strictObject({
    schemaVersion: z.literal('svc.sandbox-offline-verification.v1'),
    outcome: OfflineOutcome,
    reason: z.string(),
    checks: z.array(OfflineCheck).min(1).describe('One result per check, in the order they ran.'),
    subject: z.strictObject({
      kind: z.enum(['OBJECT', 'COMMERCIAL_PROOF']),
      reference: z.string().nullable(),
      version: z.number().int().nullable(),
    }),
    statusEvidence: z.strictObject({
      lastOnlineStatusCheckAt: SandboxInstant,
      ageSeconds: z.number().int().min(0),
      offlineValidityWindowSeconds: z.number().int(),
      withinOfflineWindow: z.boolean(),
      lifecycleStateAsOfEvidence: z.string().nullable().describe('The lifecycle state the verified response showed, as of that response; not a statement about now.'),
    }),
    statement: z.literal(OFFLINE_VERIFICATION_STATEMENT),
    evaluatedAt: SandboxInstant,
    clockId: z.string().nullable(),
    sandbox: SandboxStatement,
  }),
  'PASS, HOLD or FAIL for a verification bundle, one result per check. Never a claim about the present lifecycle status.',
);
export type OfflineVerificationResult = z.infer<typeof OfflineVerificationResult>;
