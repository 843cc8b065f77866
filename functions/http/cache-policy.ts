import { errorCacheControl, NEVER_STORED, type RouteCaching } from '../contract/caching';
import { isHttpResponse, type HttpMiddleware } from './middleware';

/** Cache-Control and Vary of an error answer to the route: a 404 to a read briefly (negative caching), any other error never. */
export function errorCacheHeaders(method: string | undefined, status: number, caching: RouteCaching | undefined): Record<string, string> {
  return { 'cache-control': errorCacheControl(method, status), ...(caching?.vary ? { vary: caching.vary } : {}) };
}

/**
 * Every answer says how long it may be kept, from the route's row of the contract table
 * (`caching`, generated into functions/generated/caching.ts; the classes are in
 * functions/contract/caching.ts): a 200 or 304 to a read by its route's class (the default, or the
 * one the operation chose for this request: a past instant), a 404 to a read briefly, every other
 * error and every answer to a POST never. Vary names the request headers the route negotiates on
 * (the only place an answer gets its Vary: a shared cache must know them all). Thrown errors are
 * answered by problemDetails with the same rule (errorCacheHeaders).
 */
export function cachePolicy(caching: RouteCaching | undefined): HttpMiddleware {
  return {
    name: 'cachePolicy',
    after: (request) => {
      const response = request.response;
      const method = request.event.httpMethod;
      // An answer to a POST keeps the serialiser's default, no-store (functions/http/response.ts).
      if (!isHttpResponse(response) || (method !== 'GET' && method !== 'HEAD')) return;
      const headers = errorCacheHeaders(method, response.status, caching);
      if (response.status === 200 || response.status === 304) headers['cache-control'] = caching?.cacheControl[response.cacheClass ?? caching.default] ?? NEVER_STORED;
      request.response = { ...response, headers: { ...response.headers, ...headers } };
    },
  };
}
