import * as z from 'zod';
import { BODY_RULES, type BodyRuleName } from './body-rules';

/**
 * Every named schema of the public contract registers here under its component name.
 * The OpenAPI generator walks this registry, so a schema is declared exactly once and
 * yields the TypeScript type (z.infer), the runtime validator and the published JSON Schema.
 */
export const contractRegistry = z.registry<{ id: string; description?: string }>();

export function component<T extends z.ZodType>(id: string, schema: T, description?: string): T {
  contractRegistry.add(schema, description ? { id, description } : { id });
  return schema;
}

/** Which refinement (functions/contract/body-rules.ts) each refinement check of a schema runs. */
const bodyRuleChecks = new WeakMap<object, BodyRuleName>();

/**
 * The schema refined by a named rule of functions/contract/body-rules.ts. The checker generator
 * (lib/contract/generate-bodies.ts) finds the rule's name from the check, so the generated checker
 * runs the same function.
 */
export function refinedBy<T extends z.ZodType>(schema: T, name: BodyRuleName): T {
  const refined = schema.superRefine((value, ctx) => {
    for (const issue of BODY_RULES[name](value as never)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });
  bodyRuleChecks.set(refined._zod.def.checks!.at(-1)!, name);
  return refined as T;
}

/** The rule a refinement check runs (undefined: not one of functions/contract/body-rules.ts). */
export function bodyRuleOf(check: object): BodyRuleName | undefined {
  return bodyRuleChecks.get(check);
}
