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
 * True when a shared cache may keep the answer to a request: a read (GET, HEAD) of a route some
 * of whose answers are kept, or of a path no route serves (its 404 is kept briefly). A POST, and a
 * read of a route whose every class is never stored (health, readiness), are never shared.
 */
export function answerMayBeShared(method: string | undefined, caching: RouteCaching | undefined): boolean {
  return (method === 'GET' || method === 'HEAD') && (caching?.shared ?? true);
}
