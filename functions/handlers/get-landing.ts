import { SITE_PATHS } from '../contract/site-paths';
import { renderLanding } from '../pages/landing-page';
import { httpHandler } from '../http/boundary';
import { getLandingCaching as caching } from '../generated/caching';
import { landingOperation } from './get-landing-responses';

/** GET /: the landing page for browsers, the JSON index of every route otherwise. */
export const handler = httpHandler(landingOperation(SITE_PATHS.home, renderLanding), { caching });
