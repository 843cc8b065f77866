import type { APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../logging/logger';
import { StoreNotConfigured, StoreUnavailable } from '../store/errors';
import type { RouteCaching } from '../contract/caching';
import { errorCacheHeaders } from './cache-policy';
import type { HttpMiddleware } from './middleware';
import { Problem, problemBody } from './problem';
import { requestOrFallback, type HttpRequest } from './request';
import { toProxyResult } from './response';

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

/**
 * An error as RFC 9457 problem details (application/problem+json). A 404 to a read may be kept
 * briefly by a shared cache (negative caching absorbs floods of unknown references); every other
 * problem, the service's own failures above all, is never stored (errorCacheHeaders). A 5xx is logged
 * with the debug lines that led to it (the invocation's buffer, written first); an unexpected error
 * with its stack, in the log only.
 */
export function problemResult(
  error: unknown,
  request: Pick<HttpRequest, 'correlationId' | 'path' | 'endpoint'> & { method?: string },
  caching?: RouteCaching,
): APIGatewayProxyResult {
  const known = problemOf(error);
  const problem = known ?? new Problem('INTERNAL_ERROR', 'The service could not complete the request.');
  // The invocation's buffered debug lines go before the line that says what failed: an ERROR line
  // writes them itself (flushOnErrorLog), a 503's warning is preceded by them here.
  if (!known) logger.error('unexpected error', { error: error as Error });
  else if (problem.status >= 500) {
    logger.flushBuffer();
    logger.warn('dependency problem', { code: problem.code, detail: problem.detail, ...dependencyCause(error) });
  }
  const body = problemBody(problem, {
    correlationId: request.correlationId,
    instance: request.path,
    endpoint: request.endpoint || null,
  });
  return toProxyResult(
    { status: problem.status, body, mediaType: 'application/problem+json', headers: { ...errorCacheHeaders(request.method, problem.status, caching), ...problem.headers } },
    request.correlationId,
  );
}

/** Every failure, thrown anywhere in the chain (the time limit included), answered as problem details. */
export function problemDetails(caching?: RouteCaching): HttpMiddleware {
  return {
    name: 'problemDetails',
    onError: (request) => {
      request.response = problemResult(request.error, requestOrFallback(request.event, request.context), caching);
    },
  };
}
