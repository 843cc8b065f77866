import { isProxyResult, type HttpMiddleware } from './middleware';

/** The answer to HEAD is the answer to GET without its body (same status and headers), refusals included. */
export function headAsGet(): HttpMiddleware {
  const withoutBody: NonNullable<HttpMiddleware['after']> = (request) => {
    if (request.event?.httpMethod === 'HEAD' && isProxyResult(request.response)) request.response = { ...request.response, body: '' };
  };
  return { name: 'headAsGet', after: withoutBody, onError: withoutBody };
}
