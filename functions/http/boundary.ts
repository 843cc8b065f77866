import middy, { type MiddyfiedHandler } from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../logging/logger';
import { conditionalGet } from './conditional-get';
import { headAsGet } from './head-as-get';
import { httpResponse } from './http-response';
import { Problem } from './problem';
import { problemDetails } from './problem-details';
import type { HttpContext, HttpRequest, HttpResponse } from './request';
import { requestContext } from './request-context';
import { requestGuards, type RequestGuardOptions } from './request-guards';
import { requestLog } from './request-log';

type Operation = (request: HttpRequest) => Promise<HttpResponse>;

export interface HttpHandlerOptions extends RequestGuardOptions {
  /**
   * The event carries what no log line may hold (a signature, an authority's event body): it is
   * never logged, whatever POWERTOOLS_LOGGER_LOG_EVENT says.
   */
  neverLogEvent?: true;
}

/** A Lambda handler of an HTTP operation: a middy handler, open to an operator's own middlewares. */
export type HttpLambdaHandler = MiddyfiedHandler<APIGatewayProxyEvent, APIGatewayProxyResult, Error, HttpContext>;

/**
 * How long before the function's own time limit middy stops waiting for the operation
 * (`timeoutEarlyInMillis`; the store's own budget is far shorter), so that the caller gets a 503
 * it may retry instead of a gateway timeout.
 */
export const ANSWER_BEFORE_LIMIT_MS = 5;

const outOfTime = (): never => {
  throw new Problem('DEPENDENCY_UNAVAILABLE', 'The service could not answer in time. Retry shortly.', {}, { 'retry-after': '1' });
};

/**
 * Wraps an operation as a middy handler with the Powertools Logger and the service's middlewares
 * (functions/http/*.ts, one concern each). Before: the Lambda context on every log line, the
 * request read once with its correlation id, the request-shape guards. After: the ETag and 304,
 * the answer serialised with CORS headers, HEAD without a body, one log line. On error: RFC 9457
 * problem details with no internals (the time limit too: middy's timeoutEarlyResponse).
 *
 * middy runs `before` in the order of use and `after` / `onError` in reverse, so the list reads
 * outermost first: the log keys are reset last, the request line is logged after HEAD is applied,
 * problem details are made before anything that reads the answer.
 */
export function httpHandler(operation: Operation, options: HttpHandlerOptions = {}): HttpLambdaHandler {
  const handler = middy<APIGatewayProxyEvent, HttpResponse, Error, HttpContext>(
    (_event: APIGatewayProxyEvent, context: HttpContext) => operation(context.httpRequest!),
    { timeoutEarlyInMillis: ANSWER_BEFORE_LIMIT_MS, timeoutEarlyResponse: outOfTime },
  )
    .use(injectLambdaContext(logger, { resetKeys: true, ...(options.neverLogEvent ? { logEvent: false } : {}) }))
    .use(requestLog())
    .use(headAsGet())
    .use(requestContext())
    .use(problemDetails())
    .use(requestGuards(options))
    .use(httpResponse())
    .use(conditionalGet());
  // The chain's last after-step (httpResponse) or problemDetails always leaves a proxy result.
  return handler as unknown as HttpLambdaHandler;
}
