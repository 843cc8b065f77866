import type { RouteCaching } from '../contract/caching';
import { logger } from '../logging/logger';
import type { HttpMiddleware } from './middleware';
import { toHttpRequest } from './request';

/**
 * Reads the request once (functions/http/request.ts) and leaves it on the context for the
 * operation and the other middlewares; its correlation id (the caller's well-formed
 * x-correlation-id where no cache keeps the answer, else API Gateway's request id:
 * functions/http/correlation.ts) goes on every log line the Powertools way,
 * as `correlation_id`, with the operation's path template as `endpoint`.
 */
export function requestContext(caching?: RouteCaching): HttpMiddleware {
  return {
    name: 'requestContext',
    before: (request) => {
      const httpRequest = toHttpRequest(request.event, caching);
      request.context.httpRequest = httpRequest;
      logger.setCorrelationId(httpRequest.correlationId);
      logger.appendKeys({ endpoint: httpRequest.endpoint });
      // Names only: a query value or a header may carry what a log must not.
      logger.debug('request received', { method: httpRequest.method, path: httpRequest.path, queryParameters: Object.keys(httpRequest.query) });
    },
  };
}
