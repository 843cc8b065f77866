import { invocationLogsDebug, logger } from '../logging/logger';
import { isProxyResult, type HttpMiddleware } from './middleware';
import { problemOf } from './problem-details';

/**
 * What a request leaves in the function's log (docs/deploy.md#logs). API Gateway's access log
 * already holds one line for every request (status, path, latency, caller), so the function adds
 * only what that line cannot say:
 *   - a refusal (4xx, 5xx): one INFO line 'request refused' with its status and, for an answer
 *     made from an error, its problem code: the why behind the access log's status;
 *   - a failure (5xx): before it, the invocation's buffered debug lines and what failed underneath
 *     (functions/http/problem-details.ts);
 *   - an answer (2xx, 3xx): a DEBUG line 'request served' with its status, buffered like every
 *     debug line: written, with the invocation's whole story, only when the invocation logs at
 *     DEBUG (the level, or chosen by sampling); otherwise Powertools drops it when the invocation
 *     ends (injectLambdaContext).
 */
export function requestLog(): HttpMiddleware {
  return {
    name: 'requestLog',
    after: (request) => {
      if (!isProxyResult(request.response)) return;
      const status = request.response.statusCode;
      // A page answers some errors itself (an HTML error page), without throwing.
      if (status >= 400) {
        if (status >= 500 || invocationLogsDebug()) logger.flushBuffer();
        logger.info('request refused', { status });
        return;
      }
      logger.debug('request served', { status });
      if (invocationLogsDebug()) logger.flushBuffer();
    },
    onError: (request) => {
      if (!isProxyResult(request.response)) return;
      const status = request.response.statusCode;
      if (status >= 500 || invocationLogsDebug()) logger.flushBuffer();
      logger.info('request refused', { status, problem: problemOf(request.error)?.code ?? 'INTERNAL_ERROR' });
    },
  };
}
