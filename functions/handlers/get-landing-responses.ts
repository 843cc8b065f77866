import { routes } from '../generated/routes';
import type { LandingIndex } from '../contract/schemas/landing';
import { buildLandingIndex } from '../pages/landing-page';
import { englishFrame, type FrameWords } from '../pages/i18n';
import { prefersHtml } from '../pages/negotiation';
import type { HttpRequest, HttpResponse } from '../http/request';
import { catalogueResponse } from './json-responses';
import { htmlPage } from './surface-responses';

/**
 * GET / and GET /developers: one index of the contract table, answered as a page to clients that
 * prefer HTML and as JSON to every other client. Both are static per release and base URL, so
 * they are cached and revalidated like the catalogues; both vary on Accept (the contract table says
 * so for the route), so a cache never hands the JSON to a browser or the page to a script. The page
 * speaks the words `wordsFor` gives it (the landing: the visitor's language; the developer page: English).
 */
export function landingOperation<Words extends FrameWords>(
  selfPath: string,
  render: (index: LandingIndex, t: Words, request: HttpRequest) => string,
  wordsFor: (request: HttpRequest) => Words = () => englishFrame as Words,
) {
  const page = htmlPage<Words>(async (request, t) => ({ status: 200, body: render(buildLandingIndex(routes(), request.baseUrl, selfPath), t, request) }), wordsFor);
  return async (request: HttpRequest): Promise<HttpResponse> => {
    if (prefersHtml(request.headers.accept)) return page(request);
    return catalogueResponse(request, buildLandingIndex(routes(), request.baseUrl, selfPath));
  };
}
