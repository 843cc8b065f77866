import { SITE_PATHS } from '../contract/site-paths';
import { renderDeveloperLanding } from '../pages/landing-page';
import { httpHandler } from '../http/boundary';
import { getDeveloperLandingCaching as caching } from '../generated/caching';
import { landingOperation } from './get-landing-responses';

/** GET /developers: the developer page for browsers, the same JSON index otherwise. */
export const handler = httpHandler(landingOperation(SITE_PATHS.developers, renderDeveloperLanding), { caching });
