/** Fields that say when or how fast an answer was made, not what it says: equal meaning, other bytes. */
const PER_REQUEST_FIELDS = new Set(['evaluatedAt', 'checkedAt', 'lagSeconds', 'ageSeconds', 'durationMs']);

/**
 * What an answer says apart from the moment it was made: `shown` as JSON text without the
 * instants it was evaluated or checked at, the ages counted from them and the time the checks
 * took. A weak ETag is taken over this (HttpResponse.revalidate.weakOver), so a client or cache
 * holding an answer that still means the same gets a 304.
 */
export function meaningOf(shown: unknown): string {
  return JSON.stringify(shown, (key, value: unknown) => (PER_REQUEST_FIELDS.has(key) ? undefined : value));
}
