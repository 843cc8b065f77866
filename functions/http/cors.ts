/**
 * CORS for a public, read-only API that never uses credentials: any origin may read every
 * answer, and the headers a client needs to page, revalidate, retry and correlate are exposed.
 * The local host, the functions and the API Gateway import document all take these values.
 */

/** Request headers a browser may send cross-origin (Standard Webhooks headers for the receivers). */
export const CORS_ALLOWED_HEADERS = ['content-type', 'if-none-match', 'x-correlation-id', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

/** Response headers a cross-origin script may read. */
export const CORS_EXPOSED_HEADERS = ['x-correlation-id', 'link', 'etag', 'retry-after'];

/** How long a browser may reuse a preflight answer (seconds). */
export const CORS_MAX_AGE_SECONDS = 600;

/** On every answer (GET, HEAD, POST, problems): readable from any origin, no credentials. */
export const CORS_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '),
};

/** The 204 answer to a preflight on a path whose methods are `methods` (HEAD and OPTIONS added). */
export function preflightHeaders(methods: readonly string[]): Record<string, string> {
  const allowed = [...new Set([...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'])];
  return {
    ...CORS_RESPONSE_HEADERS,
    'access-control-allow-methods': allowed.join(', '),
    'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
    'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
    allow: allowed.join(', '),
  };
}
