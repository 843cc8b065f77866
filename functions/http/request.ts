import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { correlationIdFrom } from './correlation';

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
  correlationId: string;
  /** Absolute base URL of this API as the caller reached it (stage prefix included). */
  baseUrl: string;
}

/** What an operation answers; functions/http/http-response.ts turns it into the proxy result. */
export interface HttpResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Defaults to application/json; text/html bodies are strings. */
  mediaType?: string;
  /**
   * Tag the answer with an ETag and answer 304 to a matching If-None-Match, so a client
   * revalidates without downloading an unchanged view again. `{}`: a strong ETag over the exact
   * bytes (answers that are the same bytes every time). `{ weakOver }`: a weak ETag over what the
   * answer says apart from per-request detail (e.g. the instant a current view was evaluated at),
   * since equal meaning with different bytes is exactly what RFC 9110 calls weak.
   */
  revalidate?: { weakOver?: unknown };
}

/** The Lambda context as the service's middlewares leave it for the operation: the request, read once. */
export type HttpContext = Context & { httpRequest?: HttpRequest };

/** application/json, application/problem+json, application/cloudevents+json; parameters allowed. */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9.!#$&^_-]+\+)?json\s*(?:;.*)?$/i;

export function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_MEDIA_TYPE.test(contentType.trim());
}

function lowerCaseKeys(input: Record<string, string | undefined> | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

function definedValues(input: Record<string, string | undefined> | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input ?? {})) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * The base URL callers used: PUBLIC_BASE_URL when configured (custom domains), else the
 * scheme and host of the request plus whatever prefix (the API Gateway stage) sits in front
 * of the operation path.
 */
export function baseUrlOf(event: APIGatewayProxyEvent, headers: Record<string, string>): string {
  const configured = process.env.PUBLIC_BASE_URL;
  if (configured) return configured.replace(/\/+$/, '');
  const proto = headers['x-forwarded-proto'] ?? 'https';
  const host = headers.host ?? event.requestContext?.domainName ?? 'localhost';
  const fullPath = event.requestContext?.path ?? event.path;
  const prefix = fullPath.endsWith(event.path) ? fullPath.slice(0, fullPath.length - event.path.length) : '';
  return `${proto}://${host}${prefix}`;
}

export function toHttpRequest(event: APIGatewayProxyEvent): HttpRequest {
  const headers = lowerCaseKeys(event.headers);
  const requestId = event.requestContext?.requestId ?? 'unknown-request';
  const body =
    event.body === null || event.body === undefined
      ? null
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  return {
    method: event.httpMethod,
    path: event.path,
    endpoint: event.resource,
    pathParameters: definedValues(event.pathParameters),
    query: definedValues(event.queryStringParameters),
    headers,
    body,
    correlationId: correlationIdFrom(headers['x-correlation-id'], requestId),
    baseUrl: baseUrlOf(event, headers),
  };
}

/**
 * What the answer to a request too malformed to read (no usable event) is still addressed by:
 * whatever the raw event holds, never throwing.
 */
export function requestOrFallback(event: APIGatewayProxyEvent | undefined, context: HttpContext | undefined): Pick<HttpRequest, 'correlationId' | 'path' | 'endpoint'> {
  if (context?.httpRequest) return context.httpRequest;
  return {
    correlationId: event?.requestContext?.requestId ?? 'unknown-request',
    path: typeof event?.path === 'string' ? event.path : '',
    endpoint: typeof event?.resource === 'string' ? event.resource : '',
  };
}
