import { logger } from '../logging/logger';
import { problemOf } from '../http/problem-details';
import { configuredBaseUrl, type HttpRequest, type HttpResponse } from '../http/request';
import { Problem, PROBLEMS } from '../http/problem';
import { renderErrorPage } from '../pages/error-page';
import { PAGE_HEADERS } from '../pages/frame';
import { englishFrame, type FrameWords } from '../pages/i18n';
import { prefersHtml } from '../pages/negotiation';

type Operation = (request: HttpRequest) => Promise<HttpResponse>;
type PageOperation<Words> = (request: HttpRequest, t: Words) => Promise<HttpResponse>;

/**
 * A page: strict security headers on every answer; errors as an HTML page for browsers, problem
 * details otherwise. Pages that speak several languages pass `wordsFor` (page-languages.ts
 * requestFrameWords: ?lang=, then Accept-Language); the others speak English. The language is
 * stated in Content-Language, and error pages speak it too.
 */
export function htmlPage<Words extends FrameWords = FrameWords>(
  operation: PageOperation<Words>,
  wordsFor: (request: HttpRequest) => Words = () => englishFrame as Words,
): Operation {
  return async (request) => {
    const t = wordsFor(request);
    const language = { 'content-language': t.locale.lang };
    try {
      const response = await operation(request, t);
      return { ...response, mediaType: 'text/html', headers: { ...PAGE_HEADERS, ...language, ...response.headers } };
    } catch (error) {
      if (!prefersHtml(request.headers.accept)) throw error;
      const known = problemOf(error);
      if (!known) logger.error('unexpected error', { error: error as Error });
      const problem = known ?? new Problem('INTERNAL_ERROR', 'The service could not complete the request.');
      return {
        status: problem.status,
        mediaType: 'text/html',
        headers: { ...PAGE_HEADERS, ...language, ...problem.headers },
        body: renderErrorPage({
          t,
          // An error page may have to say that the origin is not configured: then its links are relative.
          baseUrl: configuredBaseUrl() ?? '',
          status: problem.status,
          title: PROBLEMS[problem.code].title,
          detail: problem.detail,
          code: problem.code,
          correlationId: request.correlationId,
        }),
      };
    }
  };
}

/** The machine-readable form of what a page shows (RFC 8288), as the page's <link rel="alternate"> also says. */
export const alternateLink = (jsonUrl: string): Record<string, string> => ({ link: `<${jsonUrl}>; rel="alternate"; type="application/json"` });
