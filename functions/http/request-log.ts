import { invocationLogsDebug, logger } from '../logging/logger';
import { isProxyResult, type HttpMiddleware } from './middleware';

/**
 * One INFO line per request with its status ('request served', or 'request refused' for an
 * answer made from an error). The invocation's buffered debug lines are written when the answer
 * is a 5xx (a page's error answer included) or the invocation logs at DEBUG anyway; otherwise
 * Powertools drops them when the invocation ends (injectLambdaContext).
 */
export function requestLog(): HttpMiddleware {
  const logged = (message: string): NonNullable<HttpMiddleware['after']> => (request) => {
    if (!isProxyResult(request.response)) return;
    const status = request.response.statusCode;
    if (status >= 500 || invocationLogsDebug()) logger.flushBuffer();
    logger.info(message, { status });
  };
  return { name: 'requestLog', after: logged('request served'), onError: logged('request refused') };
}
