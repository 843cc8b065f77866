import { QUERY_LENIENT_PATHS, QUERY_PARAMETERS_READ, referenceParam, type ParamValidator } from '../generated/params';
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
 * (Reference); test/unit/generated-from-contract.test.ts holds each of their generated checks,
 * and the standalone one used here, to it.
 */
export function parseReference(value: string | undefined): string {
  return checkParam(referenceParam, 'reference', value, 'INVALID_REFERENCE');
}

/**
 * Refuses a query parameter the operation does not read (400 UNKNOWN_PARAMETER), naming the ones
 * it reads and, for a case slip, the one meant (`?asof=` answers "did you mean 'asOf'?"):
 * accepting it would answer as if it were absent, and `?asof=` would give the current view to
 * someone who asked for a past one. The pages people open (QUERY_LENIENT_PATHS) ignore what they
 * do not read. Every function carries this and its tables, so both are kept small.
 */
export function refuseUnknownQueryParameters(pathTemplate: string, query: Record<string, string | undefined> | null): void {
  if (!query || QUERY_LENIENT_PATHS.includes(pathTemplate)) return;
  const known = QUERY_PARAMETERS_READ[pathTemplate]?.split(' ') ?? [];
  for (const given of Object.keys(query)) {
    if (known.includes(given)) continue;
    const name = given.slice(0, 64);
    const meant = known.find((read) => read.toLowerCase() === name.toLowerCase());
    const reads = known.length > 0 ? known.map((read) => `'${read}'`).join(', ') : 'no query parameters';
    throw new Problem('UNKNOWN_PARAMETER', `Unknown query parameter '${name}'${meant ? `: did you mean '${meant}'?` : '.'} This endpoint reads ${reads}.`, {
      parameter: name,
      knownParameters: known,
      ...(meant ? { didYouMean: meant } : {}),
    });
  }
}

/**
 * The 404 for a reference nothing is held under. References are case-sensitive, and one read off
 * a receipt or typed by hand often arrives in lower case: when the one asked for has lower-case
 * letters and its upper-case form is held (`isHeld`, one more read), the answer says so and names
 * it (`didYouMean`). Called only on a miss, so an answer that finds its record costs no second
 * read; a failure of that read leaves the plain 404, which is already known to be true.
 */
export async function referenceNotFound(reference: string, detail: string, isHeld: (candidate: string) => Promise<boolean>): Promise<Problem> {
  const upper = reference.toUpperCase();
  if (upper !== reference) {
    try {
      if (await isHeld(upper)) return new Problem('NOT_FOUND', `${detail} References are case-sensitive: did you mean '${upper}'?`, { didYouMean: upper });
    } catch {
      // The hint is a courtesy: the miss stands as it was read.
    }
  }
  return new Problem('NOT_FOUND', detail);
}
