import { resolveObjectParams, type ParamValidator } from '../generated/params';
import { Problem, type ProblemCode } from './problem';

function refused(code: ProblemCode, name: string, why: string, description: string): Problem {
  return new Problem(code, `Parameter '${name}' is invalid: ${why}. ${description}`.trim(), { parameter: name });
}

/**
 * Checks one parameter with the validator generated from its contract schema
 * (functions/generated/params.ts); a failure is a 400 naming the parameter. Handlers use these
 * rather than the zod schemas so that a function that only checks a parameter does not load zod.
 */
export function checkParam<T>(validator: ParamValidator<T>, name: string, value: string | undefined, code: ProblemCode = 'INVALID_PARAMETER'): T {
  const result = value === undefined ? { why: 'a value is required' } : validator.check(value);
  if (result.why !== undefined) throw refused(code, name, result.why, validator.description);
  return (result as { value: T }).value;
}

/**
 * A record reference. Every operation that takes one declares the same contract schema
 * (Reference); test/unit/generated-from-contract.test.ts holds each of their generated checks to it.
 */
export function parseReference(value: string | undefined): string {
  return checkParam(resolveObjectParams.reference, 'reference', value, 'INVALID_REFERENCE');
}
