import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { CacheClassName, RouteCaching } from '../contract/caching';
import { answerMayBeShared, correlationIdFrom } from './correlation';
import { Problem } from './problem';

/** What an operation sees: the proxy event reduced to what operations use. */
export interface HttpRequest {
  method: string;
  /** Concrete path, e.g. /v1/objects/ORD-1 (the problem `instance`). */
  path: string;
  /** Path template of the operation, e.g. /v1/objects/{reference} (the problem `endpoint`). */
  endpoint: string;
  pathParameters: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string | null;
  /** The id the answer and the log lines name (functions/http/correlation.ts). */
  correlationId: string;
  /**
   * Absolute base URL of the service's links: the configured public origin (PUBLIC_BASE_URL),
   * never anything the request says. Reading it without one configured throws the 503 problem
   * ORIGIN_NOT_CONFIGURED, so an answer that would carry a link fails closed.
   */
  readonly baseUrl: string;
}

/** What an operation answers; functions/http/http-response.ts turns it into the proxy result. */
export interface HttpResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Defaults to application/json; text/html bodies are strings. */
  mediaType?: string;
  /**
   * How the answer's ETag is made (functions/http/conditional-get.ts: every 200 to a read gets one,
   * and a matching If-None-Match gets 304). Absent or `{}`: a strong ETag over the exact bytes.
   * `{ weakOver }`: a weak ETag over what the answer says apart from per-request detail (e.g. the
   * instant a current view was evaluated at), since equal meaning with different bytes is exactly
   * what RFC 9110 calls weak.
   */
  revalidate?: { weakOver?: unknown };
  /**
   * The caching class of this answer when it is not the route's default (functions/contract/caching.ts),
   * e.g. `past` for a view of a past instant; it must be one of the classes the contract table gives the route.
   */
  cacheClass?: CacheClassName;
}

/** The Lambda context as the service's middlewares leave it for the operation: the request, read once. */
export type HttpContext = Context & { httpRequest?: HttpRequest };

/** application/json, application/problem+json, application/cloudevents+json; parameters allowed. */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9.!#$&^_-]+\+)?json\s*(?:;.*)?$/i;

export function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_MEDIA_TYPE.test(contentType.trim());
}

/** The defined values of a map of the event (headers with their names in lower case). */
function definedValues(input: Record<string, string | undefined> | null, lowerCaseNames = false): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input ?? {})) if (v !== undefined) out[lowerCaseNames ? k.toLowerCase() : k] = v;
  return out;
}

/** The setting that names the service's public origin (the stack sets it; `npm start` sets its own URL). */
export const PUBLIC_BASE_URL_SETTING = 'PUBLIC_BASE_URL';

/** An absolute http(s) URL with no query, fragment or credentials (a path prefix allowed). */
const ORIGIN_URL = /^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/;

/**
 * The configured public origin, without a trailing slash; null when the setting is missing or
 * not an absolute http(s) URL. Never derived from a request: Host, X-Forwarded-Host and
 * X-Forwarded-Proto are whatever a client sends, and behind a shared cache one forged request
 * would put its host in the answer every later client gets.
 */
export function configuredBaseUrl(): string | null {
  const raw = process.env[PUBLIC_BASE_URL_SETTING] ?? '';
  return ORIGIN_URL.test(raw) ? raw.replace(/\/+$/, '') : null;
}

function requireBaseUrl(): string {
  const base = configuredBaseUrl();
  if (base === null) throw new Problem('ORIGIN_NOT_CONFIGURED', `Set ${PUBLIC_BASE_URL_SETTING}: this answer carries links.`);
  return base;
}

export function toHttpRequest(event: APIGatewayProxyEvent, caching?: RouteCaching): HttpRequest {
  const headers = definedValues(event.headers, true);
  const requestId = event.requestContext?.requestId ?? 'unknown-request';
  const body =
    event.body === null || event.body === undefined
      ? null
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  const request = {
    method: event.httpMethod,
    path: event.path,
    endpoint: event.resource,
    pathParameters: definedValues(event.pathParameters),
    query: definedValues(event.queryStringParameters),
    headers,
    body,
    // A caller's id only where no shared cache keeps the answer: a cache hands it, headers and body, to later clients.
    correlationId: answerMayBeShared(event.httpMethod, caching) ? requestId : correlationIdFrom(headers['x-correlation-id'], requestId),
  };
  // Read when an answer makes a link, so an answer without links never depends on the setting.
  return Object.defineProperty(request, 'baseUrl', { get: requireBaseUrl, enumerable: false }) as HttpRequest;
}

/**
 * What the answer to a request too malformed to read (no usable event) is still addressed by:
 * whatever the raw event holds, never throwing.
 */
export function requestOrFallback(
  event: APIGatewayProxyEvent | undefined,
  context: HttpContext | undefined,
): Pick<HttpRequest, 'correlationId' | 'path' | 'endpoint'> & Partial<Pick<HttpRequest, 'method'>> {
  // Without a readable request, no method: its problem is never stored.
  if (context?.httpRequest) return context.httpRequest;
  return {
    correlationId: event?.requestContext?.requestId ?? 'unknown-request',
    path: typeof event?.path === 'string' ? event.path : '',
    endpoint: typeof event?.resource === 'string' ? event.resource : '',
  };
}
