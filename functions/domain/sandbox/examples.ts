import type { OfflineVerificationRequest, TestClockRequest, TrustPolicy, TrustPolicyRequest } from '../../contract/schemas/sandbox';
import { testClock } from './clock';
import { EXAMPLE_LEDGER, EXAMPLE_OBJECT_RESPONSE, EXAMPLE_SERVED_AT } from './offline-example';
import { SANDBOX_PROVIDERS } from './providers';

/**
 * Example payloads for every sandbox operation, published in /developers/sandbox/examples.json.
 * Each is a request that the operation answers with 200 (the tests send every one through its
 * route), and, the sandbox being deterministic, always with the same body.
 */
export interface SandboxExample {
  /** Stable identifier of the example. */
  name: string;
  title: string;
  method: 'POST';
  /** Concrete path to send the body to. */
  path: string;
  body: unknown;
  /** What to look at in the answer. */
  lookAt: string;
}

/** What the sandbox never does, as published with the examples. */
export const SANDBOX_BOUNDARIES = [
  'Never issues credentials, changes credential lifecycles or mints entitlements.',
  'Never calls a payment provider, captures a payment or moves funds: the synthetic payment processor can only answer NOT_AUTHORISED_TO_CAPTURE.',
  'Never binds external authority: synthetic providers hold no production authority, and results say so (productionAuthorityCreated false).',
  'Never reads or writes the record table or any production resource: its functions are given no table, bucket or secret.',
  'Never reads the wall clock and never uses randomness: the same request always gives the same response. Without a clock or now, evaluations use 2026-01-01T00:00:00.000Z.',
  'Never enforces a decision: trust-policy and offline-verification are SHADOW evaluations.',
  'Never claims live lifecycle freshness from offline verification: a live check stays necessary.',
  'Accepts JSON bodies up to 64 KiB (larger: 413), nested at most 32 levels; refuses unknown fields (422 naming the field).',
] as const;

const RUN = (providerId: string) => `/developers/sandbox/providers/${providerId}/run`;

const advancedClockRequest: TestClockRequest = { startAt: '2026-03-01T09:00:00+01:00', advanceMs: 36 * 3600 * 1000 };
/** A test-clock result, exactly as the test clock returns it, reused as the "now" of the evaluations below. */
const exampleClock = testClock(advancedClockRequest);

const subject = {
  assuranceLevel: 'SUBSTANTIAL',
  channel: 'WEB_MOBILE',
  credentialStatus: 'VALID',
  credentialStatusCheckedAt: '2026-03-02T18:30:00Z',
  riskScore: 20,
  riskSignals: [],
} as const satisfies TrustPolicyRequest['subject'];

/** A custom policy in the documented format: ordered rules, JSON Logic conditions, first match decides. */
export const EXAMPLE_CUSTOM_POLICY: TrustPolicy = {
  id: 'warranty-claim-desk',
  description: 'Accept warranty claims from active channels; step up unusual cases; never from a withdrawn credential.',
  rules: [
    {
      id: 'deny-withdrawn-credential',
      when: { in: [{ var: 'credentialStatus' }, ['REVOKED', 'EXPIRED', 'SUSPENDED']] },
      decision: 'DENY',
      reason: 'Warranty claims need a credential that is neither revoked, expired nor suspended.',
    },
    {
      id: 'step-up-new-device',
      when: { and: [{ in: ['NEW_DEVICE', { var: 'riskSignals' }] }, { '<': [{ var: 'assuranceRank' }, 3] }] },
      decision: 'STEP_UP',
      reason: 'A claim from a new device needs HIGH assurance.',
      satisfiedBy: [{ description: 'Authenticate at assurance level HIGH', change: { assuranceLevel: 'HIGH' } }],
    },
    {
      id: 'allow-active-channel',
      when: { and: [{ '==': [{ var: 'channelReadiness' }, 'ACTIVE'] }, { '>=': [{ var: 'assuranceRank' }, 2] }] },
      decision: 'ALLOW',
      reason: 'Active channel and SUBSTANTIAL assurance or more.',
    },
  ],
};

/**
 * A verification bundle: the object response as served (it carries the ledger evidence of its
 * record in current.ledger; `evidence` may also be given on its own), the example log's key as
 * the trusted key, and when the verifier last checked the status online; evaluated at the
 * example clock. The example ledger is described in offline-example.ts.
 */
function offlineBundle(lastOnlineStatusCheckAt: string, options: { explicitEvidence: boolean }): OfflineVerificationRequest {
  return {
    response: EXAMPLE_OBJECT_RESPONSE,
    ...(options.explicitEvidence ? { evidence: EXAMPLE_LEDGER.evidence } : {}),
    trustedKeys: [EXAMPLE_LEDGER.verifierKey],
    lastOnlineStatusCheckAt,
    clock: exampleClock,
  };
}

export const SANDBOX_EXAMPLES: readonly SandboxExample[] = [
  {
    name: 'test-clock-default',
    title: 'Test clock at its fixed default instant',
    method: 'POST',
    path: '/developers/sandbox/test-clock',
    body: {},
    lookAt: 'startAt and now are 2026-01-01T00:00:00.000Z and startAtSource is DEFAULT: never the wall clock.',
  },
  {
    name: 'test-clock-advanced',
    title: 'Test clock advanced by 36 hours',
    method: 'POST',
    path: '/developers/sandbox/test-clock',
    body: advancedClockRequest,
    lookAt: 'now is startAt + advanceMs in UTC; clockId is the same for every request naming the same instants.',
  },
  ...SANDBOX_PROVIDERS.map((provider) => ({
    name: `provider-${provider.providerId}`,
    title: `Run the synthetic ${provider.providerId} provider`,
    method: 'POST' as const,
    path: RUN(provider.providerId),
    body: provider.exampleRequest,
    lookAt: `result: ${provider.description}`,
  })),
  {
    name: 'provider-credential-status-on-clock',
    title: 'Credential status checked at a test-clock instant',
    method: 'POST',
    path: RUN('credential-status'),
    body: { credentialId: 'cred-sbx-0001', scenario: 'VALID', clock: exampleClock },
    lookAt: 'checkedAt is the clock\'s now: feed it to a trust-policy subject as credentialStatusCheckedAt.',
  },
  {
    name: 'trust-policy-baseline-allow',
    title: 'Built-in policy "baseline": ALLOW',
    method: 'POST',
    path: '/developers/sandbox/trust-policy',
    body: { subject, policy: 'baseline', clock: exampleClock } satisfies TrustPolicyRequest,
    lookAt: 'decision ALLOW, decidedBy.ruleId allow, and the facts the rules saw (credentialStatusAgeSeconds from the clock).',
  },
  {
    name: 'trust-policy-baseline-step-up',
    title: 'Built-in policy "baseline": STEP_UP for low assurance and an old status check',
    method: 'POST',
    path: '/developers/sandbox/trust-policy',
    body: {
      subject: { ...subject, assuranceLevel: 'LOW', credentialStatusCheckedAt: '2026-02-25T08:00:00Z' },
      policy: 'baseline',
      clock: exampleClock,
    } satisfies TrustPolicyRequest,
    lookAt: 'decision STEP_UP; stepUp.satisfiedBy lists the sequences of step-ups that, re-evaluated, lead to ALLOW.',
  },
  {
    name: 'trust-policy-baseline-deny',
    title: 'Built-in policy "baseline": DENY for a revoked credential',
    method: 'POST',
    path: '/developers/sandbox/trust-policy',
    body: { subject: { ...subject, credentialStatus: 'REVOKED' }, policy: 'baseline', clock: exampleClock } satisfies TrustPolicyRequest,
    lookAt: 'decision DENY with its reason and the deciding rule deny-revoked-or-expired.',
  },
  {
    name: 'trust-policy-custom',
    title: 'A custom policy in JSON Logic: STEP_UP for a new device',
    method: 'POST',
    path: '/developers/sandbox/trust-policy',
    body: {
      subject: { ...subject, channel: 'QR_SCAN', riskSignals: ['NEW_DEVICE'] },
      policy: EXAMPLE_CUSTOM_POLICY,
      now: '2026-03-02T20:00:00Z',
    } satisfies TrustPolicyRequest,
    lookAt: 'decidedBy names the custom rule step-up-new-device; a request matching no rule is denied (fail closed).',
  },
  {
    name: 'offline-verification-pass',
    title: 'Offline verification: PASS (integrity verified, status checked within the offline window)',
    method: 'POST',
    path: '/developers/sandbox/offline-verification',
    body: offlineBundle(EXAMPLE_SERVED_AT, { explicitEvidence: false }),
    lookAt: 'outcome PASS, one result per check (evidence-format, record-version, canonical-hash, inclusion-proof, checkpoint-signature, status-check-age).',
  },
  {
    name: 'offline-verification-hold',
    title: 'Offline verification: HOLD (integrity verified, status check too old to rely on offline)',
    method: 'POST',
    path: '/developers/sandbox/offline-verification',
    body: offlineBundle('2026-02-28T18:00:00Z', { explicitEvidence: true }),
    lookAt: 'outcome HOLD: status-check-age is HOLD, every integrity check PASS; check the status online.',
  },
  {
    name: 'offline-verification-fail',
    title: 'Offline verification: FAIL (the record was changed after it was logged)',
    method: 'POST',
    path: '/developers/sandbox/offline-verification',
    body: {
      ...offlineBundle(EXAMPLE_SERVED_AT, { explicitEvidence: false }),
      response: { ...EXAMPLE_OBJECT_RESPONSE, object: { ...EXAMPLE_OBJECT_RESPONSE.object, state: 'CANCELLED' } },
    },
    lookAt: 'outcome FAIL: canonical-hash and inclusion-proof fail for the altered record.',
  },
];
