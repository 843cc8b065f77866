import { documentEtag, matchesIfNoneMatch, serializeDocument } from '../domain/documents';
import type { HttpRequest, HttpResponse } from '../http/request';

/*
 * Answers of the JSON surfaces (catalogues, readiness). Kept apart from the page helpers, so a
 * function that answers JSON carries no page frame.
 */

/**
 * Catalogue documents change only with a release: served like the developer documents (same
 * serialisation and ETag, 304 on a matching If-None-Match; their routes' caching class is `document`).
 */
export function catalogueResponse(request: HttpRequest, body: unknown): HttpResponse {
  const text = serializeDocument(body);
  const etag = documentEtag(text);
  const headers = { etag };
  if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return { status: 304, headers, body: '' };
  return { status: 200, headers, body: text };
}

/** Links between the readiness surfaces (all published by operations/surfaces.ts). */
export function readinessLinks(baseUrl: string): Record<string, string> {
  return {
    activationReadiness: `${baseUrl}/v1/activation-readiness`,
    productionFoundations: `${baseUrl}/v1/activation-readiness/production-foundations`,
    trustInfrastructure: `${baseUrl}/v1/trust-infrastructure`,
    studio: `${baseUrl}/studio`,
  };
}
