import type { z } from 'zod';
import { QUERY_PARAMETERS_READ, resolveObjectParams, type ParamValidator } from '../generated/params';
import { Problem, type ProblemCode } from './problem';

function refused(code: ProblemCode, name: string, why: string, description: string, hint = ''): Problem {
  return new Problem(code, `Parameter '${name}' is invalid: ${why}. ${hint}${description}`.trim(), { parameter: name });
}

/**
 * A query string decodes '+' as a space (application/x-www-form-urlencoded), so an instant with an
 * offset sent unencoded (`?asOf=2026-11-25T10:00:00+02:00`) arrives as `...10:00:00 02:00`. When
 * the value would pass with its spaces read as '+', the refusal says how to send it.
 */
function plusSentAsSpace<T>(validator: ParamValidator<T>, value: string): string {
  if (!value.includes(' ')) return '';
  const meant = value.replace(/ /g, '+');
  if (validator.check(meant).why !== undefined) return '';
  return `A '+' in a query string arrives as a space: send it as %2B (${meant.replace(/\+/g, '%2B')}). `;
}

/**
 * Checks one parameter with the validator generated from its contract schema
 * (functions/generated/params.ts); a failure is a 400 naming the parameter. Handlers use these
 * rather than the zod schemas so that a function that only checks a parameter does not load zod.
 */
export function checkParam<T>(validator: ParamValidator<T>, name: string, value: string | undefined, code: ProblemCode = 'INVALID_PARAMETER'): T {
  const result = value === undefined ? { why: 'a value is required' } : validator.check(value);
  if (result.why !== undefined) throw refused(code, name, result.why, validator.description, value === undefined ? '' : plusSentAsSpace(validator, value));
  return (result as { value: T }).value;
}

/** Names a caller more likely meant: the same but for case, else one or two letters off (for names of four letters or more). */
function meantName(given: string, known: readonly string[]): string | undefined {
  const lower = given.toLowerCase();
  const sameButCase = known.find((name) => name.toLowerCase() === lower);
  if (sameButCase) return sameButCase;
  if (given.length < 4) return undefined;
  return known.find((name) => editDistance(lower, name.toLowerCase()) <= 2);
}

/** Levenshtein distance, for names of a few letters. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

const quoted = (names: readonly string[]) => names.map((name) => `'${name}'`).join(', ');

/**
 * Refuses a query parameter the operation does not read (400 UNKNOWN_PARAMETER), naming the ones
 * it reads and, for a case slip or a typo, the one meant (`?asof=` answers "did you mean 'asOf'?").
 * Accepting it would answer as if it were absent: `?asof=` would give the current view to someone
 * who asked for a past one. Operations not in QUERY_PARAMETERS_READ (pages, which ignore what they
 * do not read) are let through. HEAD is checked as GET.
 */
export function refuseUnknownQueryParameters(method: string, pathTemplate: string, query: Record<string, string | undefined> | null): void {
  const known = QUERY_PARAMETERS_READ[`${method === 'HEAD' ? 'GET' : method} ${pathTemplate}`];
  if (!known || !query) return;
  const unknown = Object.keys(query).filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  const shown = unknown.map((name) => name.slice(0, 64));
  const didYouMean: Record<string, string> = {};
  for (const name of shown) {
    const meant = meantName(name, known);
    if (meant) didYouMean[name] = meant;
  }
  const suggestions = Object.entries(didYouMean).map(([given, meant]) => `did you mean '${meant}' for '${given}'?`);
  const reads = known.length === 0 ? 'This endpoint reads no query parameters.' : `This endpoint reads ${quoted(known)}.`;
  const detail =
    shown.length === 1 && suggestions.length === 1
      ? `Unknown query parameter '${shown[0]}': did you mean '${didYouMean[shown[0]]}'? ${reads}`
      : `Unknown query parameter${shown.length === 1 ? '' : 's'} ${quoted(shown)}${suggestions.length > 0 ? ` (${suggestions.join(' ')})` : ''}. ${reads}`;
  throw new Problem('UNKNOWN_PARAMETER', detail, {
    parameter: shown[0],
    unknownParameters: shown,
    knownParameters: known,
    ...(Object.keys(didYouMean).length > 0 ? { didYouMean } : {}),
  });
}

/** Validates one parameter against its contract schema with zod (for handlers that load the schemas anyway). */
export function parseParam<T extends z.ZodType>(schema: T, name: string, value: string | undefined, code: ProblemCode = 'INVALID_PARAMETER'): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw refused(code, name, result.error.issues[0]?.message ?? 'invalid value', schema.description ?? '');
  return result.data;
}

/**
 * A record reference. Every operation that takes one declares the same contract schema
 * (Reference); test/unit/generated-from-contract.test.ts holds each of their generated checks to it.
 */
export function parseReference(value: string | undefined): string {
  return checkParam(resolveObjectParams.reference, 'reference', value, 'INVALID_REFERENCE');
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
