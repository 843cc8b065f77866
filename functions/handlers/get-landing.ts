import { SITE_PATHS } from '../contract/site-paths';
import { getLandingParams } from '../generated/params';
import { landingWords, type LandingWords } from '../pages/landing-languages';
import { renderLanding } from '../pages/landing-page';
import { httpHandler } from '../http/boundary';
import { checkParam } from '../http/params';
import { getLandingCaching as caching } from '../generated/caching';
import { landingOperation } from './get-landing-responses';

/**
 * GET /: the landing page for browsers, in the visitor's language (?lang=, then Accept-Language),
 * and the JSON index of every route otherwise.
 */
export const handler = httpHandler(
  landingOperation<LandingWords>(
    SITE_PATHS.home,
    (index, t, request) => {
      if (request.query.lang !== undefined) checkParam(getLandingParams.lang, 'lang', request.query.lang);
      return renderLanding(index, t);
    },
    (request) => landingWords(request.headers['accept-language'], request.query.lang),
  ),
  { caching },
);
