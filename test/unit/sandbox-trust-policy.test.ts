import fc from 'fast-check';
import {
  ASSURANCE_LEVELS,
  BUILT_IN_POLICY_NAMES,
  CREDENTIAL_STATUSES,
  TrustPolicyDecision,
  type TrustPolicy,
} from '../../functions/contract/schemas/sandbox';
import { CHANNELS } from '../../functions/contract/channels';
import { testClock } from '../../functions/domain/sandbox/clock';
import { EXAMPLE_CUSTOM_POLICY } from '../../functions/domain/sandbox/examples';
import { trustPolicyRequest } from '../../functions/generated/bodies';
import { parseJsonBody, JsonInputError, type FieldIssue } from '../../functions/domain/json-input';
import { MAX_POLICY_NODES } from '../../functions/domain/sandbox/policy-logic';
import { checkBuiltInPolicies, evaluateTrustPolicy, FAIL_CLOSED_RULE_ID } from '../../functions/domain/sandbox/trust-policy';

const NOW = '2026-04-01T12:00:00.000Z';
const hoursBefore = (h: number) => new Date(Date.parse(NOW) - h * 3_600_000).toISOString();

const subject = {
  assuranceLevel: 'SUBSTANTIAL',
  channel: 'WEB_DESKTOP',
  credentialStatus: 'VALID',
  credentialStatusCheckedAt: hoursBefore(1),
  riskScore: 10,
  riskSignals: [] as string[],
};

/** Evaluates a request exactly as the route does: JSON text -> validation -> evaluation. */
const evaluate = (request: unknown) => evaluateTrustPolicy(parseJsonBody(JSON.stringify(request), trustPolicyRequest, { optional: false }));

function refusal(request: unknown): FieldIssue[] {
  try {
    evaluate(request);
  } catch (error) {
    if (error instanceof JsonInputError) return error.issues;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

describe('built-in policies', () => {
  it('pass the same validation as custom policies', () => {
    expect(() => checkBuiltInPolicies()).not.toThrow();
  });

  it('baseline: ALLOW for a valid, recently checked credential at SUBSTANTIAL assurance', () => {
    const decision = evaluate({ subject, policy: 'baseline', now: NOW });
    expect(TrustPolicyDecision.parse(decision)).toEqual(decision);
    expect(decision).toMatchObject({ decision: 'ALLOW', liveState: 'SHADOW', enforced: false, decidedBy: { policyId: 'baseline', builtIn: true, ruleId: 'allow', implicit: false } });
    expect(decision.facts).toMatchObject({ credentialStatusAgeSeconds: 3600, assuranceRank: 2, channelReadiness: 'ACTIVE', now: NOW });
    expect(decision.stepUp).toBeUndefined();
  });

  it('baseline: DENY for a revoked credential, with the reason and the deciding rule', () => {
    const decision = evaluate({ subject: { ...subject, credentialStatus: 'REVOKED' }, policy: 'baseline', now: NOW });
    expect(decision).toMatchObject({ decision: 'DENY', decidedBy: { ruleId: 'deny-revoked-or-expired', ruleIndex: 0 } });
    expect(decision.reasons[0]).toMatch(/revoked/);
    expect(decision.trace).toEqual([{ ruleId: 'deny-revoked-or-expired', matched: true }]);
  });

  it('baseline: STEP_UP for low assurance says what satisfies it, verified by re-evaluation', () => {
    const decision = evaluate({ subject: { ...subject, assuranceLevel: 'LOW' }, policy: 'baseline', now: NOW });
    expect(decision).toMatchObject({ decision: 'STEP_UP', decidedBy: { ruleId: 'step-up-low-assurance' } });
    expect(decision.stepUp).toEqual({
      satisfiedBy: [
        { steps: ['Authenticate at assurance level SUBSTANTIAL'], change: { assuranceLevel: 'SUBSTANTIAL' } },
        { steps: ['Authenticate at assurance level HIGH'], change: { assuranceLevel: 'HIGH' } },
      ],
      unsatisfiable: false,
    });
  });

  it('baseline: a step-up that meets another STEP_UP is followed to ALLOW (status recheck, then assurance)', () => {
    const decision = evaluate({ subject: { ...subject, assuranceLevel: 'LOW', credentialStatusCheckedAt: hoursBefore(48) }, policy: 'baseline', now: NOW });
    expect(decision.decidedBy.ruleId).toBe('step-up-status-check-old');
    expect(decision.stepUp!.satisfiedBy).toEqual([
      { steps: ['Check the credential status online again now', 'Authenticate at assurance level SUBSTANTIAL'], change: { credentialStatusAgeSeconds: 0, assuranceLevel: 'SUBSTANTIAL' } },
      { steps: ['Check the credential status online again now', 'Authenticate at assurance level HIGH'], change: { credentialStatusAgeSeconds: 0, assuranceLevel: 'HIGH' } },
    ]);
  });

  it('baseline: elevated risk steps up to HIGH; a never-checked status steps up to a recheck', () => {
    expect(evaluate({ subject: { ...subject, riskScore: 55 }, policy: 'baseline', now: NOW })).toMatchObject({ decision: 'STEP_UP', decidedBy: { ruleId: 'step-up-elevated-risk' } });
    const { credentialStatusCheckedAt: _c, ...neverChecked } = subject;
    const decision = evaluate({ subject: neverChecked, policy: 'baseline', now: NOW });
    expect(decision).toMatchObject({ decision: 'STEP_UP', decidedBy: { ruleId: 'step-up-status-check-old' }, facts: { credentialStatusAgeSeconds: null } });
  });

  it('high-assurance: DENY on a READY channel, STEP_UP to HIGH on an ACTIVE one', () => {
    expect(evaluate({ subject: { ...subject, channel: 'WALLET' }, policy: 'high-assurance', now: NOW })).toMatchObject({ decision: 'DENY', decidedBy: { ruleId: 'deny-channel-not-active' } });
    expect(evaluate({ subject, policy: 'high-assurance', now: NOW })).toMatchObject({
      decision: 'STEP_UP',
      stepUp: { satisfiedBy: [{ change: { assuranceLevel: 'HIGH' } }], unsatisfiable: false },
    });
  });

  it('offline-presentation: tolerates a 48-hour-old check but not a 96-hour-old one', () => {
    const offline = { ...subject, channel: 'OFFLINE_VERIFY' };
    expect(evaluate({ subject: { ...offline, credentialStatusCheckedAt: hoursBefore(48) }, policy: 'offline-presentation', now: NOW }).decision).toBe('ALLOW');
    expect(evaluate({ subject: { ...offline, credentialStatusCheckedAt: hoursBefore(96) }, policy: 'offline-presentation', now: NOW })).toMatchObject({
      decision: 'STEP_UP',
      decidedBy: { ruleId: 'step-up-status-check-too-old' },
    });
  });

  it('uses a test-clock result as its now', () => {
    const clock = testClock({ startAt: hoursBefore(30), advanceMs: 30 * 3_600_000 });
    const decision = evaluate({ subject, policy: 'baseline', clock });
    expect(decision).toMatchObject({ evaluatedAt: NOW, clockId: clock.clockId, facts: { credentialStatusAgeSeconds: 3600 } });
  });

  it('every decision is ALLOW, DENY or STEP_UP; every DENY and STEP_UP carries a reason; same input, same output (property)', () => {
    const arbitrarySubject = fc.record({
      assuranceLevel: fc.constantFrom(...ASSURANCE_LEVELS),
      channel: fc.constantFrom(...CHANNELS.map((c) => c.key)),
      credentialStatus: fc.constantFrom(...CREDENTIAL_STATUSES),
      credentialStatusCheckedAt: fc.option(fc.integer({ min: 0, max: 10 * 24 * 3600 }).map((s) => new Date(Date.parse(NOW) - s * 1000).toISOString()), { nil: undefined }),
      riskScore: fc.integer({ min: 0, max: 100 }),
      riskSignals: fc.subarray(['NEW_DEVICE', 'IMPOSSIBLE_TRAVEL', 'CLONED_CREDENTIAL_SUSPECTED']),
    });
    fc.assert(
      fc.property(arbitrarySubject, fc.constantFrom(...BUILT_IN_POLICY_NAMES), (s, policy) => {
        const request = { subject: Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)), policy, now: NOW };
        const decision = evaluate(request);
        expect(['ALLOW', 'DENY', 'STEP_UP']).toContain(decision.decision);
        expect(decision.reasons.length).toBeGreaterThan(0);
        expect(decision.reasons.every((r) => r.length > 0)).toBe(true);
        if (decision.decision === 'STEP_UP') expect(decision.stepUp).toBeDefined();
        // Every reported way to satisfy a STEP_UP really leads to ALLOW.
        for (const path of decision.stepUp?.satisfiedBy ?? []) {
          const { credentialStatusAgeSeconds, ...subjectChange } = path.change;
          const stepped = { ...request.subject, ...subjectChange } as Record<string, unknown>;
          if (credentialStatusAgeSeconds !== undefined) stepped.credentialStatusCheckedAt = new Date(Date.parse(NOW) - credentialStatusAgeSeconds * 1000).toISOString();
          expect(evaluate({ ...request, subject: stepped }).decision).toBe('ALLOW');
        }
        expect(evaluate(request)).toEqual(decision);
      }),
      { numRuns: 300 },
    );
  });
});

describe('custom policies', () => {
  it('the documented example decides STEP_UP by its named rule', () => {
    const decision = evaluate({ subject: { ...subject, riskSignals: ['NEW_DEVICE'] }, policy: EXAMPLE_CUSTOM_POLICY, now: NOW });
    expect(decision).toMatchObject({ decision: 'STEP_UP', decidedBy: { policyId: 'warranty-claim-desk', builtIn: false, ruleId: 'step-up-new-device', ruleIndex: 1 } });
  });

  it('fails closed: no matching rule is a DENY with a reason', () => {
    const policy: TrustPolicy = { id: 'only-high', rules: [{ id: 'allow-high', when: { '==': [{ var: 'assuranceLevel' }, 'HIGH'] }, decision: 'ALLOW', reason: 'HIGH assurance.' }] };
    const decision = evaluate({ subject, policy, now: NOW });
    expect(decision).toMatchObject({ decision: 'DENY', decidedBy: { ruleId: FAIL_CLOSED_RULE_ID, ruleIndex: 1, implicit: true } });
    expect(decision.reasons[0]).toMatch(/fails closed/);
    expect(decision.trace).toEqual([{ ruleId: 'allow-high', matched: false }, { ruleId: FAIL_CLOSED_RULE_ID, matched: true }]);
  });

  it('reports a STEP_UP none of whose step-ups leads to ALLOW as unsatisfiable', () => {
    const policy: TrustPolicy = {
      id: 'dead-end',
      rules: [
        { id: 'deny-high', when: { '==': [{ var: 'assuranceLevel' }, 'HIGH'] }, decision: 'DENY', reason: 'No HIGH here.' },
        { id: 'step-up', when: true, decision: 'STEP_UP', reason: 'Always step up.', satisfiedBy: [{ description: 'Go HIGH', change: { assuranceLevel: 'HIGH' } }] },
      ],
    };
    const decision = evaluate({ subject, policy, now: NOW });
    expect(decision.stepUp).toEqual({ satisfiedBy: [], unsatisfiable: true });
    expect(decision.reasons).toHaveLength(2);
  });

  it.each([
    ['an unknown operator', { log: 'x' }, 'policy.rules[0].when.log'],
    ['a dotted operator path', { 'max.apply': [1] }, 'policy.rules[0].when.max.apply'],
    ['an iterating operator', { some: [{ var: 'riskSignals' }, true] }, 'policy.rules[0].when.some'],
    ['an unknown fact', { '==': [{ var: 'assurance' }, 'HIGH'] }, 'policy.rules[0].when.==[0].var'],
    ['a computed var path', { var: { cat: ['assurance', 'Level'] } }, 'policy.rules[0].when.var'],
    ['a prototype walk', { var: 'riskSignals.constructor' }, 'policy.rules[0].when.var'],
    ['a literal object with two keys', { a: 1, b: 2 }, 'policy.rules[0].when'],
  ])('refuses %s, naming where', (_what, when, field) => {
    const issues = refusal({ subject, policy: { id: 'p', rules: [{ id: 'r', when, decision: 'ALLOW', reason: 'r' }] }, now: NOW });
    expect(issues[0].field).toBe(field);
  });

  it('refuses an operator used with arguments it cannot take as a 422, not a failure', () => {
    const issues = refusal({ subject, policy: { id: 'p', rules: [{ id: 'r', when: { '*': [] }, decision: 'ALLOW', reason: 'r' }] }, now: NOW });
    expect(issues[0].field).toBe('policy.rules[0].when');
  });

  it.each([
    ['a missing when', { id: 'p', rules: [{ id: 'r', decision: 'ALLOW', reason: 'r' }] }, 'policy.rules[0].when'],
    ['a DENY without a reason', { id: 'p', rules: [{ id: 'r', when: true, decision: 'DENY' }] }, 'policy.rules[0].reason'],
    ['an empty reason', { id: 'p', rules: [{ id: 'r', when: true, decision: 'DENY', reason: '' }] }, 'policy.rules[0].reason'],
    ['a STEP_UP without step-ups', { id: 'p', rules: [{ id: 'r', when: true, decision: 'STEP_UP', reason: 'r' }] }, 'policy.rules[0].satisfiedBy'],
    ['an unknown decision', { id: 'p', rules: [{ id: 'r', when: true, decision: 'MAYBE', reason: 'r' }] }, 'policy.rules[0].decision'],
    ['duplicate rule ids', { id: 'p', rules: [{ id: 'r', when: true, decision: 'ALLOW', reason: 'r' }, { id: 'r', when: true, decision: 'ALLOW', reason: 'r' }] }, 'policy.rules[1].id'],
    ['the reserved rule id', { id: 'p', rules: [{ id: FAIL_CLOSED_RULE_ID, when: true, decision: 'ALLOW', reason: 'r' }] }, `policy.rules[0].id`],
    ['no rules', { id: 'p', rules: [] }, 'policy.rules'],
    ['an unknown built-in', 'lenient', 'policy'],
  ])('refuses %s', (_what, policy, field) => {
    expect(refusal({ subject, policy, now: NOW })[0].field).toBe(field);
  });

  it('refuses a policy larger than the node budget', () => {
    const big = { or: Array.from({ length: MAX_POLICY_NODES }, () => false) };
    expect(refusal({ subject, policy: { id: 'p', rules: [{ id: 'r', when: big, decision: 'ALLOW', reason: 'r' }] }, now: NOW })[0].field).toBe('policy.rules');
  });

  it('refuses malformed subjects and a status checked after the evaluation instant', () => {
    expect(refusal({ subject: { ...subject, channel: 'FAX' }, policy: 'baseline', now: NOW })[0].field).toBe('subject.channel');
    expect(refusal({ subject: { ...subject, riskScore: 101 }, policy: 'baseline', now: NOW })[0].field).toBe('subject.riskScore');
    expect(refusal({ subject: { ...subject, name: 'Erika' }, policy: 'baseline', now: NOW })[0].field).toBe('subject.name');
    expect(refusal({ subject: { ...subject, credentialStatusCheckedAt: '2026-04-02T00:00:00Z' }, policy: 'baseline', now: NOW })[0].field).toBe('subject.credentialStatusCheckedAt');
    expect(refusal({ policy: 'baseline' })[0].field).toBe('subject');
  });
});
