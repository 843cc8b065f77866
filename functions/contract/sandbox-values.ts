/**
 * The sandbox's values (defaults, limits, vocabularies, patterns) without zod: the sandbox's
 * domain code and its functions read these, and the contract's schemas
 * (functions/contract/schemas/sandbox.ts, which re-exports them) are built from them. A function
 * that only needs a value then does not build every sandbox schema to get it.
 */

/** The instant a sandbox evaluation uses when it is given neither a clock nor a `now`. */
export const SANDBOX_DEFAULT_INSTANT = '2026-01-01T00:00:00.000Z';

/** The largest advance a test clock accepts: 100 Julian years. Anything larger is a mistake, not a scenario. */
export const MAX_ADVANCE_MS = 100 * 365.25 * 24 * 3600 * 1000;

/** The latest instant RFC 3339 can write (four-digit years). */
export const LATEST_INSTANT = '9999-12-31T23:59:59.999Z';

export const TEST_CLOCK_ID_PATTERN = '^tclk_[0-9a-f]{32}$';

export const SANDBOX_STATEMENT = { synthetic: true, productionAuthorityCreated: false, productionSideEffects: 'NONE' } as const;

export const COMMERCE_SOURCE_STATES = ['PLACED', 'CONFIRMED', 'SHIPPED', 'DELIVERED', 'CANCELLED', 'RETURNED'] as const;

export const ASSURANCE_LEVELS = ['NONE', 'LOW', 'SUBSTANTIAL', 'HIGH'] as const;

export const IDENTITY_EVIDENCE = ['EMAIL_CONTROL', 'PHONE_CONTROL', 'IDENTITY_DOCUMENT', 'DOCUMENT_WITH_LIVENESS', 'EUDI_PID'] as const;

export const WALLET_CREDENTIAL_TYPES = ['PROOF_OF_PURCHASE', 'PRODUCT_WARRANTY', 'AGE_OVER_18'] as const;

export const PAYMENT_OPERATIONS = ['AUTHORISE', 'CAPTURE', 'REFUND', 'VOID'] as const;

export const CREDENTIAL_STATUSES = ['VALID', 'SUSPENDED', 'REVOKED', 'EXPIRED', 'UNKNOWN'] as const;

export const SYNTHETIC_CREDENTIAL_STATUSES = ['VALID', 'SUSPENDED', 'REVOKED', 'EXPIRED'] as const;

export const PROVIDER_ID_PATTERN = '^[a-z][a-z0-9-]{1,63}$';

export const TRUST_DECISIONS = ['ALLOW', 'DENY', 'STEP_UP'] as const;

export const RULE_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,63}$';

export const BUILT_IN_POLICY_NAMES = ['baseline', 'high-assurance', 'offline-presentation'] as const;

export const DEFAULT_OFFLINE_WINDOW_SECONDS = 24 * 3600;

export const MAX_OFFLINE_WINDOW_SECONDS = 30 * 24 * 3600;

export const OFFLINE_OUTCOMES = ['PASS', 'HOLD', 'FAIL'] as const;

/** The facts a trust-policy rule sees (the `var` names it may use): the fields of SandboxTrustFacts, in order. */
export const TRUST_FACT_NAMES = [
  'assuranceLevel',
  'assuranceRank',
  'channel',
  'channelReadiness',
  'credentialStatus',
  'credentialStatusAgeSeconds',
  'riskScore',
  'riskSignals',
  'now',
] as const;
