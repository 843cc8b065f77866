import { isHttpResponse, type HttpMiddleware } from './middleware';
import { toProxyResult } from './response';

/** The operation's answer serialised as API Gateway's proxy result, with the request's correlation id. */
export function httpResponse(): HttpMiddleware {
  return {
    name: 'httpResponse',
    after: (request) => {
      if (isHttpResponse(request.response)) request.response = toProxyResult(request.response, request.context.httpRequest!.correlationId);
    },
  };
}
