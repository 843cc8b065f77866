/**
 * How long each kind of answer may be kept, by browsers and by shared caches (a CDN in front of
 * the API, a corporate proxy): one class per kind of answer, each with its Cache-Control and what
 * it promises. Every GET operation of the contract table names its classes (Operation.caching);
 * the functions apply them (functions/http/cache-policy.ts), the bucket objects carry them
 * (developer documents, the tile log), and the contract states them in each route's description.
 * docs/semantics.md explains the figures.
 *
 * Directives (RFC 9111, RFC 5861, RFC 8246): `max-age` is for every cache, `s-maxage` overrides it
 * for shared caches; `stale-while-revalidate` lets a cache answer with an expired copy for that
 * long while it fetches a new one in the background; `stale-if-error` lets it answer with an
 * expired copy while the origin fails; `immutable` says the bytes never change.
 *
 * Pure data, no schema library: a function carries only its own route's values (generated into
 * functions/generated/caching.ts) and the two error rules below; the bucket objects' headers and
 * the contract read the tables.
 */

/** Seconds a shared cache may serve a current view as fresh. */
export const CURRENT_SHARED_MAX_AGE = 5;
/** Seconds after that it may still answer with the expired view while it fetches a new one. */
export const CURRENT_STALE_WHILE_REVALIDATE = 5;
/** The oldest a current view may be when a client gets it from a shared cache. */
export const CURRENT_MAX_STALENESS = CURRENT_SHARED_MAX_AGE + CURRENT_STALE_WHILE_REVALIDATE;

/** Seconds a shared cache may keep a 404: long enough to absorb a flood, short enough for a record loaded meanwhile. */
export const NEGATIVE_SHARED_MAX_AGE = 10;

/** The Cache-Control of each class (200 and 304 answers alike). */
export const CACHE_CONTROL = {
  current: `public, max-age=0, s-maxage=${CURRENT_SHARED_MAX_AGE}, stale-while-revalidate=${CURRENT_STALE_WHILE_REVALIDATE}`,
  past: 'public, max-age=60, s-maxage=300, stale-while-revalidate=60, stale-if-error=86400',
  checkpoint: 'public, max-age=1, stale-while-revalidate=1, stale-if-error=60',
  published: 'public, max-age=300',
  immutable: 'public, max-age=31536000, immutable',
  'partial-tile': 'public, max-age=60',
  settled: 'public, max-age=86400',
  'status-list': 'public, max-age=300',
  document: 'public, max-age=300',
  inspection: 'no-store',
} as const;

export type CacheClassName = keyof typeof CACHE_CONTROL;

/**
 * What each class promises a client, as the contract states it beside the class's Cache-Control
 * (kept apart from CACHE_CONTROL, which every function carries; only the contract reads these).
 */
export const CACHE_CLASS_MEANINGS: Record<CacheClassName, string> = {
  current:
    `A current view: an answer may be up to ${CURRENT_MAX_STALENESS} s old when it comes from a shared cache ` +
    `(fresh for ${CURRENT_SHARED_MAX_AGE} s, then served for up to ${CURRENT_STALE_WHILE_REVALIDATE} s more while the cache fetches a new one); ` +
    'the instants and evidence in it say when what it shows was true. Never served stale when the service fails: a failure is a 503.',
  past:
    'A view of a past instant: an answer may be up to 6 minutes old at a shared cache (1 minute in a browser), ' +
    'and up to a day while the service fails. Never immutable: an event that arrives late can still add to the past.',
  checkpoint: "The log's latest checkpoint: an answer may be up to 2 s old (a minute while the service fails); an older checkpoint is still a true, signed statement about the log.",
  published: "A checkpoint the log published for an earlier size: its text never changes, but witnesses' cosignatures may be added, so it is kept for 5 minutes.",
  immutable: 'Bytes that never change (a full tile or entry bundle, C2SP tlog-tiles): kept for a year, never revalidated.',
  'partial-tile': 'A partial tile: its bytes never change, but it goes away once the full tile exists, so it is kept for a minute.',
  settled: 'Settled by published state (a proof between two published tree sizes of an append-only log): kept for a day.',
  'status-list': 'The current status list: kept for as long as its ttl says (300 s), as Bitstring Status List asks of a publisher; a list version of a past instant is a past view.',
  document: 'Changes only with a deployment: kept for 5 minutes, then revalidated with its ETag.',
  inspection: 'An inspection made when asked (health, readiness): never stored, never reused.',
};

/** A 404 (an unknown reference, path or resource), to GET or HEAD. */
export const NEGATIVE_CACHE_CONTROL = `public, max-age=0, s-maxage=${NEGATIVE_SHARED_MAX_AGE}`;

/** Every other error (the service's own failures above all: 500, 503) and every answer to a POST. */
export const NEVER_STORED = 'no-store';

/** Request headers an answer may depend on besides its URL, each named in its Vary. */
export type NegotiatedHeader = 'Accept' | 'Accept-Language';

/**
 * A GET route's caching as its function applies it, generated from its row of the contract table
 * (functions/generated/caching.ts: Operation.caching and .varies), so a function carries its own
 * route's values and nothing of the other routes'.
 */
export interface RouteCaching {
  /** The class of its answers unless the request chooses another (a past instant). */
  default: CacheClassName;
  /** The Cache-Control of each class its 200 and 304 answers may have. */
  cacheControl: Partial<Record<CacheClassName, string>>;
  /** The request headers its answers depend on, as a Vary value ('' for none). */
  vary: string;
  /** True when a shared cache may keep some answer of the route (isShareable of one of its classes). */
  shared: boolean;
}

/** True when a shared cache may keep an answer with this Cache-Control (and hand it to other clients). */
export function isShareable(cacheControl: string | undefined): boolean {
  if (!cacheControl) return false;
  const directives = cacheControl.toLowerCase().split(',').map((d) => d.trim().split('=')[0]);
  return !directives.includes('no-store') && !directives.includes('private') && (directives.includes('public') || directives.includes('s-maxage'));
}

/** The Cache-Control of an error answer: a 404 to GET or HEAD briefly, anything else never. */
export function errorCacheControl(method: string | undefined, status: number): string {
  return status === 404 && (method === 'GET' || method === 'HEAD') ? NEGATIVE_CACHE_CONTROL : NEVER_STORED;
}
