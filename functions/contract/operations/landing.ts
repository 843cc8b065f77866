import { defineOperations, type Operation, type ResponseMediaType } from '../operation';
import { LandingIndex, StaticFile } from '../schemas/landing';
import { HtmlPage } from '../schemas/surfaces';
import { PageLanguage } from './surfaces';
import { documentOperation } from './document';
import { API_REFERENCE_ASSETS, SITE_PATHS } from '../site-paths';

const TAG = 'Landing and API reference';

/** A built static file served from the catalogue bucket like every developer document. */
const staticFile = (operationId: string, path: string, summary: string, mediaType: ResponseMediaType, key?: string): Operation =>
  documentOperation(TAG, operationId, path, summary, StaticFile, { mediaType, key });

const NEGOTIATED =
  'Content negotiation: a client whose Accept header explicitly prefers text/html (a browser) gets an HTML page; ' +
  'every other client (*/*, application/json, curl, fetch) gets this JSON index. Answers vary on Accept and Accept-Language.';

/** Where people and clients start: the landing, the developer index, the rendered API reference and the site icon. */
export const landingOperations = defineOperations([
  {
    operationId: 'getLanding',
    method: 'GET',
    path: SITE_PATHS.home,
    tag: TAG,
    summary: 'Where to start: what the service answers, its pages, and the index of every route',
    description: NEGOTIATED,
    liveState: 'LIVE',
    queryParams: { lang: PageLanguage.describe(`${PageLanguage.description} Only the page speaks it: the JSON index is the same in every language.`) },
    response: { schema: LandingIndex },
    // A malformed ?lang= on the page (the JSON index ignores it).
    errors: [400],
    negotiatesPage: true,
    caching: ['document'],
    varies: ['Accept', 'Accept-Language'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-landing.ts', access: 'none' },
  },
  {
    operationId: 'getDeveloperLanding',
    method: 'GET',
    path: SITE_PATHS.developers,
    tag: TAG,
    summary: 'Developer start: the API reference, every developer document, the sandbox and the trust routes',
    description: NEGOTIATED,
    liveState: 'LIVE',
    response: { schema: LandingIndex },
    errors: [],
    negotiatesPage: true,
    caching: ['document'],
    varies: ['Accept', 'Accept-Language'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-landing-developers.ts', access: 'none' },
  },
  {
    operationId: 'getApiReference',
    method: 'GET',
    path: SITE_PATHS.apiReference,
    tag: TAG,
    summary: 'The OpenAPI contract rendered for people (Swagger UI, self-hosted)',
    description:
      'An HTML page that loads the self-hosted renderer from this origin and points it at the published OpenAPI contract. ' +
      'It runs only same-origin scripts (Content-Security-Policy script-src self) and requests nothing from elsewhere.',
    liveState: 'LIVE',
    response: { schema: HtmlPage, mediaType: 'text/html' },
    errors: [],
    caching: ['document'],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-landing-reference.ts', access: 'none' },
  },
  staticFile('getApiReferenceScript', API_REFERENCE_ASSETS.script, 'Swagger UI bundle (from swagger-ui-dist, unmodified)', 'text/javascript'),
  staticFile('getApiReferenceStyle', API_REFERENCE_ASSETS.style, 'Swagger UI stylesheet (from swagger-ui-dist, without its source-map comment)', 'text/css'),
  staticFile('getApiReferenceStart', API_REFERENCE_ASSETS.start, 'Starts Swagger UI on the OpenAPI contract (generated)', 'text/javascript'),
  staticFile('getApiReferenceLicences', API_REFERENCE_ASSETS.licences, 'Licences of Swagger UI and of the libraries bundled in it', 'text/plain'),
  staticFile('getSiteIcon', SITE_PATHS.favicon, 'The site icon (SVG)', 'image/svg+xml'),
  staticFile('getFavicon', SITE_PATHS.faviconIco, 'The site icon at the address browsers ask for by default (served as SVG)', 'image/svg+xml', SITE_PATHS.favicon.slice(1)),
]);
