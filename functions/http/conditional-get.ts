import { matchesIfNoneMatch } from '../domain/documents';
import { isHttpResponse, type HttpMiddleware } from './middleware';
import { strongEtag } from './response';

/**
 * An answer that asks to be revalidated (HttpResponse.revalidate) gets its ETag, and a matching
 * If-None-Match gets 304 with no body. A strong tag is over the exact bytes, so the body is
 * serialised here once and passed on as text.
 */
export function conditionalGet(): HttpMiddleware {
  return {
    name: 'conditionalGet',
    after: (request) => {
      const response = request.response;
      if (!isHttpResponse(response) || !response.revalidate) return;
      const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
      const { revalidate } = response;
      const etag = 'weakOver' in revalidate ? `W/${strongEtag(JSON.stringify(revalidate.weakOver))}` : strongEtag(text);
      const headers = { ...response.headers, etag };
      const ifNoneMatch = request.context.httpRequest?.headers['if-none-match'];
      request.response =
        response.status === 200 && matchesIfNoneMatch(ifNoneMatch, etag)
          ? { status: 304, headers, body: '', ...(response.mediaType ? { mediaType: response.mediaType } : {}) }
          : { ...response, headers, body: text, revalidate: undefined };
    },
  };
}
