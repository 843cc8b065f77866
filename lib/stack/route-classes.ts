import type { Operation } from '../../functions/contract/operation';
import { SITE_PATHS } from '../../functions/contract/site-paths';
import { firstMatchingPattern } from '../assembly/edge/path-pattern';
import type { ThrottleClass } from './settings';

/**
 * Every operation of the contract table falls in one route class, derived from its row (never
 * typed again here): what the edge keys a cached answer on, where it sends the request, and which
 * method throttle guards it at the API.
 *
 *   log       the ledger's tile log (integration `log`): straight from the bucket; keyed on the path
 *   receiver  a POST that writes (access `ingress-write`): never cached, every header and the body forwarded
 *   sandbox   any other POST (access `none`): never cached, every header and the body forwarded
 *   document  a built document from the bucket through the API (integration `document`): keyed on the path
 *   page      an HTML page (response text/html): keyed on the path, the query parameters it reads
 *             (others are dropped at the edge: a page ignores them, and a printed QR code may carry
 *             tracking parameters), Accept (errors are an HTML page or problem details) and, for a
 *             page with `?lang=`, Accept-Language
 *   landing   `/` and `/developers`: an HTML page or a JSON index by Accept (get-landing-responses.ts)
 *   read      every other GET: JSON answered by a function; keyed on the path and every query
 *             parameter, since an unknown, misspelt or repeated parameter is itself answered (400)
 *
 * Negotiated headers enter the key only as the edge normalises them (lib/stack/edge-negotiation-function.js):
 * Accept to text/html or application/json, Accept-Language to the page language it selects.
 */
export type RouteClassName = 'log' | 'receiver' | 'sandbox' | 'document' | 'page' | 'landing' | 'read';

export type NegotiatedHeader = 'accept' | 'accept-language';

export interface CacheKey {
  /** 'all': every query parameter; a list: only those (the rest never reach the origin); 'none'. */
  queryStrings: 'all' | 'none' | readonly string[];
  /** Request headers the answer is negotiated on, as normalised at the edge. */
  headers: readonly NegotiatedHeader[];
}

export interface RouteClass {
  name: RouteClassName;
  /** The distribution's origin: the REST API, or the catalogue bucket (the tile log). */
  origin: 'api' | 'log-bucket';
  /** What a cached answer is keyed on; null: never cached (every header but Host, every query parameter and the body forwarded). */
  key: CacheKey | null;
  /** The method throttle of the class's methods at the API. */
  throttle: ThrottleClass;
}

/** The landing paths answer an HTML page to a browser and a JSON index to everyone else. */
const LANDING_PATHS: readonly string[] = [SITE_PATHS.home, SITE_PATHS.developers];

/** The query parameter of the pages that speak several languages (its value overrides Accept-Language). */
const PAGE_LANGUAGE_PARAMETER = 'lang';

export function routeClassOf(op: Operation): RouteClass {
  const integration = op.integration;
  // The API still serves the log (without the edge, or to whoever calls it directly): a read there.
  if (integration.kind === 'log') return { name: 'log', origin: 'log-bucket', key: { queryStrings: 'none', headers: [] }, throttle: 'read' };
  if (op.method === 'POST') {
    if (integration.kind === 'lambda' && integration.access === 'ingress-write') return { name: 'receiver', origin: 'api', key: null, throttle: 'receiver' };
    if (integration.kind === 'lambda' && integration.access === 'none') return { name: 'sandbox', origin: 'api', key: null, throttle: 'sandbox' };
    throw new Error(`${op.operationId}: a POST that neither receives events nor runs in the sandbox has no route class`);
  }
  if (integration.kind === 'document') return { name: 'document', origin: 'api', key: { queryStrings: 'none', headers: [] }, throttle: 'read' };
  if (op.response.mediaType === 'text/html') {
    const parameters = Object.keys(op.queryParams ?? {}).sort();
    const headers: NegotiatedHeader[] = parameters.includes(PAGE_LANGUAGE_PARAMETER) ? ['accept', 'accept-language'] : ['accept'];
    return { name: 'page', origin: 'api', key: { queryStrings: parameters.length > 0 ? parameters : 'none', headers }, throttle: 'read' };
  }
  if (LANDING_PATHS.includes(op.path)) return { name: 'landing', origin: 'api', key: { queryStrings: 'none', headers: ['accept'] }, throttle: 'read' };
  return { name: 'read', origin: 'api', key: { queryStrings: 'all', headers: [] }, throttle: 'read' };
}

/** Two operations may share a cache behaviour when everything the edge does with them is the same. */
export const routeClassId = (c: RouteClass): string => JSON.stringify({ name: c.name, origin: c.origin, key: c.key });

/** A cache behaviour: the requests whose path matches `pathPattern` (first match wins) are handled as `routeClass`. */
export interface EdgeBehaviour {
  pathPattern: string;
  routeClass: RouteClass;
  /** The operations whose path this pattern is the first to match. */
  operationIds: string[];
}

export interface EdgeRouting {
  /** The default behaviour (`*`): the root's class, which also takes every path no pattern matches. */
  defaultClass: RouteClass;
  /** The other behaviours, in the order CloudFront evaluates them. */
  behaviours: EdgeBehaviour[];
}

/** CloudFront's default quota of cache behaviours per distribution (adjustable). */
export const MAX_CACHE_BEHAVIOURS = 25;

interface Entry {
  op: Operation;
  segments: string[];
  routeClass: RouteClass;
}

/** An operation path as pattern segments: a path parameter (one segment or, `{name+}`, several) is `*`. */
function patternSegments(path: string): string[] {
  return path
    .split('/')
    .slice(1)
    .map((segment) => (/^\{[^}]+\}$/.test(segment) ? '*' : segment));
}

/** A concrete path of the operation, its parameters filled (a multi-segment one with two segments). */
export function samplePath(op: Operation): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => ((op.multiSegmentParams ?? []).includes(name) ? 'sample/path' : 'sample'));
}

const patternOf = (segments: readonly string[]) => `/${segments.join('/')}`;

/**
 * The fewest behaviours (within reason) that route every operation by its class: the operations
 * below a path prefix that share a class are covered by one `prefix/*` pattern, the exceptions get
 * patterns of their own placed before it. The result is checked by matching every operation's
 * path the way CloudFront does; a table that cannot be routed stops the synth.
 */
export function edgeRouting(operations: readonly Operation[]): EdgeRouting {
  const root = operations.find((op) => op.path === SITE_PATHS.home && op.method === 'GET');
  if (!root) throw new Error(`the contract table has no GET ${SITE_PATHS.home}: the default behaviour takes its class`);
  const defaultClass = routeClassOf(root);
  const entries: Entry[] = operations.filter((op) => op.path !== SITE_PATHS.home).map((op) => ({ op, segments: patternSegments(op.path), routeClass: routeClassOf(op) }));
  conflictsOnOnePath(entries);

  const patterns: Array<{ pathPattern: string; routeClass: RouteClass }> = [];
  cover([], entries, defaultClass, patterns);

  const behaviours: EdgeBehaviour[] = patterns.map((p) => ({ ...p, operationIds: [] }));
  const unrouted: string[] = [];
  for (const entry of entries) {
    const path = samplePath(entry.op);
    const pattern = firstMatchingPattern(
      behaviours.map((b) => b.pathPattern),
      path,
    );
    const behaviour = behaviours.find((b) => b.pathPattern === pattern);
    const routed = behaviour?.routeClass ?? defaultClass;
    if (routeClassId(routed) !== routeClassId(entry.routeClass)) unrouted.push(`${entry.op.operationId} (${path}) would be handled as ${routed.name} by ${pattern ?? 'the default behaviour'}`);
    behaviour?.operationIds.push(entry.op.operationId);
  }
  if (unrouted.length > 0) throw new Error(`the edge's behaviours do not route the contract table: ${unrouted.join('; ')}`);
  if (behaviours.length > MAX_CACHE_BEHAVIOURS - 1) throw new Error(`the contract table needs ${behaviours.length} cache behaviours; CloudFront's quota is ${MAX_CACHE_BEHAVIOURS} per distribution`);
  return { defaultClass, behaviours };
}

/** GET and POST on one path must agree on the cache behaviour (a behaviour is chosen by path alone). */
function conflictsOnOnePath(entries: readonly Entry[]): void {
  const byPath = new Map<string, Entry>();
  for (const entry of entries) {
    const other = byPath.get(entry.op.path);
    if (other && routeClassId(other.routeClass) !== routeClassId(entry.routeClass)) {
      throw new Error(`${other.op.operationId} and ${entry.op.operationId} share the path ${entry.op.path} but not a route class: CloudFront chooses a behaviour by path alone`);
    }
    byPath.set(entry.op.path, entry);
  }
}

/**
 * Appends the patterns that route `entries` (every path below `prefix`) when whatever no pattern
 * matches is handled as `inherited`. Children first (literal segments before parameters), then the
 * node's own wildcard for the class most entries below share, then the node's exact path.
 */
function cover(prefix: readonly string[], entries: readonly Entry[], inherited: RouteClass, out: Array<{ pathPattern: string; routeClass: RouteClass }>): void {
  const exact = entries.filter((e) => e.segments.length === prefix.length);
  const below = entries.filter((e) => e.segments.length > prefix.length);
  let wildcardClass = inherited;
  if (below.length > 0 && prefix.length > 0) {
    // The class most entries below share takes the node's wildcard (ties: the one already inherited).
    const counts = new Map<string, { routeClass: RouteClass; count: number }>();
    for (const e of below) {
      const id = routeClassId(e.routeClass);
      counts.set(id, { routeClass: e.routeClass, count: (counts.get(id)?.count ?? 0) + 1 });
    }
    const inheritedCount = counts.get(routeClassId(inherited))?.count ?? 0;
    const [top] = [...counts.values()].sort((a, b) => b.count - a.count || routeClassId(a.routeClass).localeCompare(routeClassId(b.routeClass)));
    if (top.count > inheritedCount) wildcardClass = top.routeClass;
  }
  const children = new Map<string, Entry[]>();
  for (const e of below) {
    const segment = e.segments[prefix.length];
    children.set(segment, [...(children.get(segment) ?? []), e]);
  }
  const order = [...children.keys()].sort((a, b) => Number(a === '*') - Number(b === '*') || a.localeCompare(b));
  for (const segment of order) cover([...prefix, segment], children.get(segment)!, wildcardClass, out);
  // The node's own path: `prefix/*` does not match it, so it needs a pattern unless its class is the
  // inherited one. After the children: a path parameter's `*` would also match the paths below it.
  const [own] = exact;
  if (own && routeClassId(own.routeClass) !== routeClassId(inherited)) out.push({ pathPattern: patternOf(prefix), routeClass: own.routeClass });
  if (below.length > 0 && routeClassId(wildcardClass) !== routeClassId(inherited)) out.push({ pathPattern: patternOf([...prefix, '*']), routeClass: wildcardClass });
}
