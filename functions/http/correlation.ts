import type { RouteCaching } from '../contract/caching';

/**
 * A caller's x-correlation-id is kept only when it is well formed: 8 to 128 characters of
 * letters, digits and . _ : - (UUIDs, ULIDs, trace ids). Anything else is replaced, so a
 * header can never inject text into logs or responses.
 */
const WELL_FORMED = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/;

export function correlationIdFrom(header: string | undefined, requestId: string): string {
  return header !== undefined && WELL_FORMED.test(header) ? header : requestId;
}

/**
 * The request's correlation id. A caller's id (well formed) is taken only when no answer to the
 * request may be kept by a shared cache: a POST, or a read of a route whose every class is never
 * stored (health, readiness). An answer a cache keeps is handed, headers and body, to later
 * clients, and must not carry one caller's id to another; it names the request's own id. A read of
 * a path no route serves (`caching` undefined) is answered with a 404 a cache may keep, so it is
 * not either.
 */
export function correlationIdOf(method: string | undefined, caching: RouteCaching | undefined, header: string | undefined, requestId: string): string {
  const neverShared = (method !== 'GET' && method !== 'HEAD') || (caching !== undefined && !caching.shared);
  return neverShared ? correlationIdFrom(header, requestId) : requestId;
}
