/**
 * Paths of the landing, the API reference and the site icon, named once. The contract table
 * (operations/landing.ts) declares operations on them; the pages that must link to them (every
 * page's head, the reference page) import them from here rather than from the table, so a page
 * function does not load the whole table and its schemas just to know where the icon is.
 */
export const SITE_PATHS = {
  home: '/',
  developers: '/developers',
  apiReference: '/developers/reference',
  favicon: '/developers/favicon.svg',
  /** Browsers ask for it whatever a page says; answered with the same icon. */
  faviconIco: '/favicon.ico',
} as const;

/**
 * The self-hosted renderer of the API reference (Swagger UI, from the swagger-ui-dist package)
 * and the script that starts it, published as built documents beside the reference page.
 */
export const API_REFERENCE_ASSETS = {
  script: '/developers/reference/swagger-ui-bundle.js',
  style: '/developers/reference/swagger-ui.css',
  start: '/developers/reference/start.js',
  /** The bundle's first line points readers to this file (its third-party licences), next to it. */
  licences: '/developers/reference/swagger-ui-bundle.js.LICENSE.txt',
} as const;

/**
 * The ledger's C2SP tlog-tiles log: served at this URL path (its monitoring prefix is the API's
 * base URL followed by it) from objects with this key prefix in the catalogue bucket. The log's
 * origin line should be the prefix without its scheme and trailing slash (docs/ledger.md).
 */
export const LEDGER_LOG = {
  path: '/ledger/',
  keyPrefix: 'ledger/',
} as const;
