import { Logger } from '../logging/logger';
import { nodeCrypto } from '../runtime/lazy-crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { SERVICE_NAME } from '../contract/service';
import { correlationIdFrom } from './correlation';
import { CORS_RESPONSE_HEADERS } from './cors';
import { StoreNotConfigured, StoreUnavailable } from '../store/errors';
import { Problem, problemBody } from './problem';

export const logger = new Logger({ serviceName: SERVICE_NAME });

/** Bodies above this size are refused with 413 before any parsing (documented in docs/errors.md). */
export const MAX_BODY_BYTES = 64 * 1024;

/** What a handler sees: the proxy event reduced to what operations use. */
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

type Operation = (request: HttpRequest) => Promise<HttpResponse>;

export interface HttpHandlerOptions {
  /**
   * The operation takes a JSON request body: a non-empty body must be labelled application/json
   * (or a +json type), else 415. A form-encoded body (what `curl -d` sends unlabelled) is refused
   * instead of being read as something the caller did not declare.
   */
  jsonBody?: true;
}

const COMMON_HEADERS = { 'x-content-type-options': 'nosniff', ...CORS_RESPONSE_HEADERS };

/** application/json, application/problem+json, application/cloudevents+json; parameters allowed. */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9.!#$&^_-]+\+)?json\s*(?:;.*)?$/i;

export function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_MEDIA_TYPE.test(contentType.trim());
}

/** A strong entity tag over the exact bytes of an answer (SHA-256, base64url, quoted). */
export function strongEtag(bytes: string): string {
  return `"${nodeCrypto().createHash('sha256').update(bytes).digest('base64url')}"`;
}

/** RFC 9110 If-None-Match for GET/HEAD: any listed tag equal to ours (weak comparison), or "*". */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((candidate) => candidate.trim() === '*' || opaque(candidate) === opaque(etag));
}

/**
 * Refusals that depend on the request's shape, not on the operation: a query parameter given
 * twice (the API Gateway event keeps only the last value, so accepting it would silently ignore
 * one), a body over the limit, a body of a media type a JSON operation does not read.
 */
function refuseMalformed(event: APIGatewayProxyEvent, request: HttpRequest, options: HttpHandlerOptions): void {
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values && values.length > 1) {
      throw new Problem('INVALID_PARAMETER', `Parameter '${name.slice(0, 64)}' is given ${values.length} times; give it once.`, { parameter: name.slice(0, 64) });
    }
  }
  if (request.body === null) return;
  if (Buffer.byteLength(request.body, 'utf8') > MAX_BODY_BYTES) {
    throw new Problem('PAYLOAD_TOO_LARGE', `The request body exceeds ${MAX_BODY_BYTES} bytes.`, { maxBodyBytes: MAX_BODY_BYTES });
  }
  if (options.jsonBody && request.body.length > 0 && !isJsonMediaType(request.headers['content-type'])) {
    throw new Problem('UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON, sent with Content-Type: application/json.', {
      acceptedMediaTypes: ['application/json'],
    });
  }
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

/** The answer to HEAD is the answer to GET without its body (same status and headers). */
function withoutBodyFor(method: string, result: APIGatewayProxyResult): APIGatewayProxyResult {
  return method === 'HEAD' ? { ...result, body: '' } : result;
}

/** Adds the answer's ETag (see HttpResponse.revalidate); a matching If-None-Match gets 304 with no body. */
function revalidated(result: APIGatewayProxyResult, revalidate: { weakOver?: unknown }, ifNoneMatch: string | undefined): APIGatewayProxyResult {
  const etag = 'weakOver' in revalidate ? `W/${strongEtag(JSON.stringify(revalidate.weakOver))}` : strongEtag(result.body);
  const headers = { ...result.headers, etag };
  if (result.statusCode === 200 && ifNoneMatchHits(ifNoneMatch, etag)) return { statusCode: 304, headers, body: '' };
  return { ...result, headers };
}

export function toProxyResult(response: HttpResponse, correlationId: string): APIGatewayProxyResult {
  const mediaType = response.mediaType ?? 'application/json';
  const body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
  return {
    statusCode: response.status,
    headers: {
      'content-type': mediaType.includes('charset') ? mediaType : `${mediaType}; charset=utf-8`,
      'cache-control': 'no-cache',
      ...COMMON_HEADERS,
      ...response.headers,
      'x-correlation-id': correlationId,
    },
    body,
  };
}

/**
 * The problem an error stands for: a Problem as thrown, the store's conditions as 503s (the
 * store itself knows nothing of HTTP), anything else as a 500 that discloses nothing.
 */
export function problemOf(error: unknown): Problem | null {
  if (error instanceof Problem) return error;
  if (error instanceof StoreUnavailable) {
    return new Problem('DEPENDENCY_UNAVAILABLE', 'The record store did not answer in time. Retry shortly.', {}, { 'retry-after': String(error.retryAfterSeconds) });
  }
  if (error instanceof StoreNotConfigured) return new Problem('PERSISTENCE_NOT_CONFIGURED', 'The record store is not configured for this deployment.');
  return null;
}

/**
 * What an operator needs behind a 503 that the answer does not say: the store operation and the
 * error underneath it, by name, code (a system error's, such as ECONNREFUSED) and message; never
 * a request's data.
 */
function dependencyCause(error: unknown): Record<string, unknown> {
  if (!(error instanceof StoreUnavailable)) return {};
  const { cause } = error;
  if (!(cause instanceof Error)) return { operation: error.operation };
  const { code } = cause as { code?: unknown };
  return { operation: error.operation, cause: { name: cause.name, ...(typeof code === 'string' ? { code } : {}), message: cause.message } };
}

export function problemResult(error: unknown, request: Pick<HttpRequest, 'correlationId' | 'path' | 'endpoint'>): APIGatewayProxyResult {
  const known = problemOf(error);
  const problem = known ?? new Problem('INTERNAL_ERROR', 'The service could not complete the request.');
  if (!known) logger.error('unexpected error', { error: error as Error });
  else if (problem.status >= 500) logger.warn('dependency problem', { code: problem.code, detail: problem.detail, ...dependencyCause(error) });
  const body = problemBody(problem, {
    correlationId: request.correlationId,
    instance: request.path,
    endpoint: request.endpoint || null,
  });
  return toProxyResult(
    { status: problem.status, body, mediaType: 'application/problem+json', headers: { 'cache-control': 'no-store', ...problem.headers } },
    request.correlationId,
  );
}

/**
 * How long before the function's own time limit the boundary stops waiting for the operation and
 * answers 503 instead (the 5 ms middy used to keep; the store's own budget is far shorter).
 */
export const ANSWER_BEFORE_LIMIT_MS = 5;

/** The operation did not settle before the function's time limit (less ANSWER_BEFORE_LIMIT_MS). */
class OutOfTime extends Error {
  constructor() {
    super('the function is about to reach its time limit');
    this.name = 'TimeoutError';
  }
}

/**
 * `work`, or OutOfTime when the function's time is nearly up first. Without a remaining-time
 * clock in the context (tests, local tools), it simply waits.
 */
async function beforeTimeLimit<T>(work: Promise<T>, context: Context | undefined): Promise<T> {
  const remaining = context?.getRemainingTimeInMillis?.();
  if (remaining === undefined) return work;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outOfTime = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new OutOfTime()), remaining - ANSWER_BEFORE_LIMIT_MS);
  });
  try {
    return await Promise.race([work, outOfTime]);
  } finally {
    clearTimeout(timer);
  }
}

/** The operation's answer (or its refusal as problem details), logged with the request's correlation id. */
async function serve(operation: Operation, event: APIGatewayProxyEvent, httpRequest: HttpRequest, options: HttpHandlerOptions): Promise<APIGatewayProxyResult> {
  logger.appendKeys({ correlationId: httpRequest.correlationId, endpoint: httpRequest.endpoint });
  try {
    refuseMalformed(event, httpRequest, options);
    const response = await operation(httpRequest);
    let result = toProxyResult(response, httpRequest.correlationId);
    if (response.revalidate) result = revalidated(result, response.revalidate, httpRequest.headers['if-none-match']);
    logger.info('request served', { status: result.statusCode });
    return withoutBodyFor(httpRequest.method, result);
  } catch (error) {
    const result = problemResult(error, httpRequest);
    logger.info('request refused', { status: result.statusCode });
    return withoutBodyFor(httpRequest.method, result);
  }
}

/**
 * Wraps an operation as a Lambda handler: correlation id in, logging with it (the Lambda context's
 * keys on every line), request shape guards (repeated parameters, body size and media type), JSON
 * out with CORS headers, HEAD answered as GET without the body, and every failure as RFC 9457
 * problem details with no internals.
 *
 * This was a middy handler; middy's core imports node:stream, node:stream/promises and
 * node:stream/web at load (for response streaming, which no operation uses), and those web
 * streams were the largest part of what middy added to a cold start (README, Performance). The
 * two things it did here are the two steps below: reset the log keys per invocation, and stop
 * waiting shortly before the time limit so that the caller gets a 503 it may retry.
 */
export function httpHandler(operation: Operation, options: HttpHandlerOptions = {}) {
  return async (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    logger.resetKeys();
    logger.addContext(context);
    let httpRequest: HttpRequest | undefined;
    try {
      httpRequest = toHttpRequest(event);
      return await beforeTimeLimit(serve(operation, event, httpRequest, options), context);
    } catch (error) {
      // What escapes serve(): the time limit (a 503 the caller may retry, never a bare failure),
      // or an event too malformed to read (a 500 that discloses nothing).
      const request = httpRequest ?? { correlationId: event?.requestContext?.requestId ?? 'unknown-request', path: event?.path ?? '', endpoint: event?.resource ?? '', method: event?.httpMethod ?? 'GET' };
      const problem = error instanceof OutOfTime
        ? new Problem('DEPENDENCY_UNAVAILABLE', 'The service could not answer in time. Retry shortly.', {}, { 'retry-after': '1' })
        : error;
      return withoutBodyFor(request.method, problemResult(problem, request));
    }
  };
}
