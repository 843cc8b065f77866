import middy from '@middy/core';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { SERVICE_NAME } from '../contract/service';
import { correlationIdFrom } from './correlation';
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
}

type Operation = (request: HttpRequest) => Promise<HttpResponse>;

const COMMON_HEADERS = { 'x-content-type-options': 'nosniff' };

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

export function problemResult(error: unknown, request: Pick<HttpRequest, 'correlationId' | 'path' | 'endpoint'>): APIGatewayProxyResult {
  const known = problemOf(error);
  const problem = known ?? new Problem('INTERNAL_ERROR', 'The service could not complete the request.');
  if (!known) logger.error('unexpected error', { error: error as Error });
  else if (problem.status >= 500) logger.warn('dependency problem', { code: problem.code, detail: problem.detail });
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
 * Wraps an operation as a Lambda handler (middy): correlation id in, logging with it,
 * body size guard, JSON out, and every failure as RFC 9457 problem details with no internals.
 */
export function httpHandler(operation: Operation) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use({
      before: (request) => {
        logger.resetKeys();
        logger.addContext(request.context);
      },
    })
    .handler(async (event) => {
      const httpRequest = toHttpRequest(event);
      logger.appendKeys({ correlationId: httpRequest.correlationId, endpoint: httpRequest.endpoint });
      try {
        if (httpRequest.body !== null && Buffer.byteLength(httpRequest.body, 'utf8') > MAX_BODY_BYTES) {
          throw new Problem('PAYLOAD_TOO_LARGE', `The request body exceeds ${MAX_BODY_BYTES} bytes.`, {
            maxBodyBytes: MAX_BODY_BYTES,
          });
        }
        const response = await operation(httpRequest);
        logger.info('request served', { status: response.status });
        return toProxyResult(response, httpRequest.correlationId);
      } catch (error) {
        const result = problemResult(error, httpRequest);
        logger.info('request refused', { status: result.statusCode });
        return result;
      }
    });
}
