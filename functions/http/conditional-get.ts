import { matchesIfNoneMatch } from '../domain/documents';
import { isHttpResponse, type HttpMiddleware } from './middleware';
import { strongEtag } from './response';

/**
 * Every 200 answer to a read gets an ETag, and a matching If-None-Match gets 304 with no body
 * (with the same ETag, Cache-Control and Vary), so a browser or a shared cache revalidates
 * without downloading an unchanged answer again. By default the tag is strong, over the exact
 * bytes (serialised here once and passed on as text); an answer that names a per-request instant
 * gives `revalidate.weakOver` (HttpResponse.revalidate); an answer that brings its own tag (a
 * document, tagged as the bucket tags it) keeps it.
 */
export function conditionalGet(): HttpMiddleware {
  return {
    name: 'conditionalGet',
    after: (request) => {
      const response = request.response;
      const method = request.event.httpMethod;
      if (!isHttpResponse(response) || response.status !== 200 || (method !== 'GET' && method !== 'HEAD')) return;
      const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
      const weakOver = response.revalidate?.weakOver;
      const etag = response.headers?.etag ?? (weakOver !== undefined ? `W/${strongEtag(JSON.stringify(weakOver))}` : strongEtag(text));
      const headers = { ...response.headers, etag };
      const ifNoneMatch = request.context.httpRequest?.headers['if-none-match'];
      request.response = matchesIfNoneMatch(ifNoneMatch, etag)
        ? { status: 304, headers, body: '', ...(response.mediaType ? { mediaType: response.mediaType } : {}) }
        : { ...response, headers, body: text, revalidate: undefined };
    },
  };
}
