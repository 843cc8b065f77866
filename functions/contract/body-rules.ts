import type { BodyRule } from './body-check';

/**
 * The refinements of request bodies that a shape cannot say: each is the one function both the
 * contract's zod schema (functions/contract/schemas/sandbox.ts, through `refinedBy`) and the
 * checker generated from it (functions/generated/bodies.ts) run, so the rule is written once.
 * Each returns the issues it finds in a value that already has the schema's shape.
 */
export const BODY_RULES = {
  /** Identity evidence: each type at most once. */
  'evidence-unique': (items: readonly string[]) => (new Set(items).size === items.length ? [] : [{ path: [], message: 'must not repeat an evidence type' }]),
  /** A step-up changes at least one fact. */
  'change-not-empty': (change: object) => (Object.keys(change).length > 0 ? [] : [{ path: [], message: 'must change at least one fact' }]),
  /** A STEP_UP rule lists what would satisfy it; no other rule does. */
  'step-up-listed': (rule: { decision: string; satisfiedBy?: unknown }) => {
    if (rule.decision === 'STEP_UP' && !rule.satisfiedBy) return [{ path: ['satisfiedBy'], message: 'a STEP_UP rule must list what would satisfy it' }];
    if (rule.decision !== 'STEP_UP' && rule.satisfiedBy) return [{ path: ['satisfiedBy'], message: 'only a STEP_UP rule lists step-ups' }];
    return [];
  },
  /** Rule ids are unique within a policy. */
  'rule-ids-unique': (policy: { rules: readonly { id: string }[] }) => {
    const seen = new Set<string>();
    const issues: { path: PropertyKey[]; message: string }[] = [];
    policy.rules.forEach((rule, index) => {
      if (seen.has(rule.id)) issues.push({ path: ['rules', index, 'id'], message: `rule id '${rule.id}' is used twice` });
      seen.add(rule.id);
    });
    return issues;
  },
} satisfies Record<string, BodyRule>;

export type BodyRuleName = keyof typeof BODY_RULES;
