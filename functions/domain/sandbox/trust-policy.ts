import { CHANNELS } from '../../contract/channels';
import { ASSURANCE_LEVELS, SANDBOX_STATEMENT } from '../../contract/sandbox-values';
import type {
  StepUpChange,
  TrustDecision,
  TrustFacts,
  TrustPolicy,
  TrustPolicyDecision,
  TrustPolicyRequest,
  TrustPolicySubject,
} from '../../contract/schemas/sandbox';
import { trustPolicy as trustPolicyPlan } from '../../generated/bodies';
import { BUILT_IN_POLICIES } from './built-in-policies';
import { evaluationInstant } from './clock';
import { digestOf } from './digest';
import { checkAgainst, issueAt, JsonInputError, type FieldIssue } from '../json-input';
import { checkCondition, holds, MAX_POLICY_NODES } from './policy-logic';

/**
 * Trust-policy evaluation (SHADOW: computed and shown, never enforced).
 *
 * Rules are tried in order and the first whose condition holds decides; when none holds, an
 * implicit last rule denies (fail closed). A STEP_UP names what would satisfy it: each step-up
 * the rule lists is applied to the facts and the same policy is evaluated again (a step-up
 * that meets another STEP_UP follows that rule's step-ups too, up to MAX_STEP_UP_CHAIN steps),
 * and only the sequences that end in ALLOW are reported as satisfying. So "what would satisfy
 * it" is computed, never merely asserted by the policy author.
 */

export const FAIL_CLOSED_RULE_ID = 'fail-closed-default';
export const MAX_STEP_UP_CHAIN = 3;

const channelReadiness = new Map<string, 'ACTIVE' | 'READY'>(CHANNELS.map((c) => [c.key, c.readiness]));

interface Settable {
  assuranceLevel: TrustFacts['assuranceLevel'];
  channel: TrustFacts['channel'];
  credentialStatus: TrustFacts['credentialStatus'];
  credentialStatusAgeSeconds: number | null;
  riskScore: number;
  riskSignals: string[];
}

/** Facts from settable facts; the derived ones (rank, readiness) always follow. */
function factsOf(settable: Settable, now: string): TrustFacts {
  return {
    assuranceLevel: settable.assuranceLevel,
    assuranceRank: ASSURANCE_LEVELS.indexOf(settable.assuranceLevel),
    channel: settable.channel,
    channelReadiness: channelReadiness.get(settable.channel) ?? 'READY',
    credentialStatus: settable.credentialStatus,
    credentialStatusAgeSeconds: settable.credentialStatusAgeSeconds,
    riskScore: settable.riskScore,
    riskSignals: settable.riskSignals,
    now,
  };
}

export function subjectFacts(subject: TrustPolicySubject, now: string): TrustFacts {
  let age: number | null = null;
  if (subject.credentialStatusCheckedAt !== undefined) {
    const ms = Date.parse(now) - Date.parse(subject.credentialStatusCheckedAt);
    if (ms < 0) {
      throw new JsonInputError([
        issueAt(['subject', 'credentialStatusCheckedAt'], `is later than the evaluation instant (${now}); a status cannot be checked in the future`),
      ]);
    }
    age = Math.floor(ms / 1000);
  }
  return factsOf(
    {
      assuranceLevel: subject.assuranceLevel,
      channel: subject.channel,
      credentialStatus: subject.credentialStatus,
      credentialStatusAgeSeconds: age,
      riskScore: subject.riskScore ?? 0,
      riskSignals: subject.riskSignals ?? [],
    },
    now,
  );
}

function applyChange(facts: TrustFacts, change: StepUpChange): TrustFacts {
  const { assuranceRank: _r, channelReadiness: _c, now, ...settable } = facts;
  return factsOf({ ...settable, ...change }, now);
}

/** Checks every condition of a policy (allowlists, size); throws naming the offending node. */
export function checkPolicy(policy: TrustPolicy, path: (string | number)[]): void {
  const issues: FieldIssue[] = [];
  let nodes = 0;
  policy.rules.forEach((rule, index) => {
    if (rule.id === FAIL_CLOSED_RULE_ID) issues.push(issueAt([...path, 'rules', index, 'id'], `'${FAIL_CLOSED_RULE_ID}' is reserved for the implicit last rule`));
    nodes += checkCondition(rule.when, [...path, 'rules', index, 'when'], issues);
  });
  if (nodes > MAX_POLICY_NODES) issues.push(issueAt([...path, 'rules'], `the conditions hold ${nodes} nodes; at most ${MAX_POLICY_NODES} are accepted`));
  if (issues.length > 0) throw new JsonInputError(issues);
}

interface Outcome {
  decision: TrustDecision;
  ruleIndex: number;
  trace: { ruleId: string; matched: boolean }[];
}

function decide(policy: TrustPolicy, facts: TrustFacts): Outcome {
  const trace: Outcome['trace'] = [];
  for (const [index, rule] of policy.rules.entries()) {
    let matched: boolean;
    try {
      matched = holds(rule.when, facts);
    } catch (error) {
      // An allowed operator given arguments it cannot use (e.g. {"*": []}) is the policy's fault, not the service's.
      throw new JsonInputError([issueAt(['policy', 'rules', index, 'when'], `could not be evaluated: ${(error as Error).message}`)]);
    }
    trace.push({ ruleId: rule.id, matched });
    if (matched) return { decision: rule.decision, ruleIndex: index, trace };
  }
  trace.push({ ruleId: FAIL_CLOSED_RULE_ID, matched: true });
  return { decision: 'DENY', ruleIndex: policy.rules.length, trace };
}

interface StepUpPath {
  steps: string[];
  change: StepUpChange;
}

/** Sequences of listed step-ups that lead from `facts` to ALLOW under the policy. */
function satisfyingPaths(policy: TrustPolicy, facts: TrustFacts, budget: number): StepUpPath[] {
  const outcome = decide(policy, facts);
  if (outcome.decision === 'ALLOW') return [{ steps: [], change: {} as StepUpChange }];
  if (outcome.decision !== 'STEP_UP' || budget === 0) return [];
  const paths: StepUpPath[] = [];
  for (const option of policy.rules[outcome.ruleIndex].satisfiedBy ?? []) {
    for (const rest of satisfyingPaths(policy, applyChange(facts, option.change), budget - 1)) {
      paths.push({ steps: [option.description, ...rest.steps], change: { ...option.change, ...rest.change } });
    }
  }
  const seen = new Set<string>();
  return paths.filter((p) => {
    const key = JSON.stringify(p.steps);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function resolvePolicy(policy: TrustPolicyRequest['policy']): { policy: TrustPolicy; builtIn: boolean } {
  if (typeof policy === 'string') return { policy: BUILT_IN_POLICIES[policy], builtIn: true };
  checkPolicy(policy, ['policy']);
  return { policy, builtIn: false };
}

export function evaluateTrustPolicy(request: TrustPolicyRequest): TrustPolicyDecision {
  const { at, clockId } = evaluationInstant(request);
  const { policy, builtIn } = resolvePolicy(request.policy);
  const facts = subjectFacts(request.subject, at);
  const outcome = decide(policy, facts);
  const rule = policy.rules[outcome.ruleIndex];
  const implicit = rule === undefined;
  const reasons = [implicit ? `No rule of policy '${policy.id}' matched; the sandbox fails closed and denies.` : rule.reason];

  const decision: TrustPolicyDecision = {
    schemaVersion: 'svc.sandbox-trust-policy-decision.v1',
    liveState: 'SHADOW',
    enforced: false,
    decision: outcome.decision,
    reasons,
    decidedBy: {
      policyId: policy.id,
      builtIn,
      policyDigest: digestOf(policy),
      ruleId: implicit ? FAIL_CLOSED_RULE_ID : rule.id,
      ruleIndex: outcome.ruleIndex,
      implicit,
    },
    trace: outcome.trace,
    facts,
    evaluatedAt: at,
    clockId,
    sandbox: SANDBOX_STATEMENT,
  };
  if (outcome.decision === 'STEP_UP') {
    const satisfiedBy = satisfyingPaths(policy, facts, MAX_STEP_UP_CHAIN);
    decision.stepUp = { satisfiedBy, unsatisfiable: satisfiedBy.length === 0 };
    if (satisfiedBy.length === 0) {
      reasons.push(`None of the step-ups this policy lists leads to ALLOW within ${MAX_STEP_UP_CHAIN} steps.`);
    }
  }
  return decision;
}

/** Every built-in policy passes the custom-policy schema (its generated check) and checks (asserted by the tests). */
export function checkBuiltInPolicies(): void {
  for (const policy of Object.values(BUILT_IN_POLICIES)) checkPolicy(checkAgainst(trustPolicyPlan, policy), ['policy']);
}
