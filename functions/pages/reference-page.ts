import { API_REFERENCE_ASSETS, SITE_PATHS } from '../contract/site-paths';
import { REFERENCE_STYLE_SHA256 } from '../generated/page-style';
import { html } from './markup';
import { PAGE_CSP, PAGE_HEADERS, pageDocument } from './frame';
import { REFERENCE_STYLE } from './page-style';

/** Id of the element the start script mounts the renderer in (start.js reads the same constant at build). */
export const REFERENCE_MOUNT_ID = 'api-reference';

/**
 * What the reference page adds to the pages' policy, and nothing more:
 *  - script-src 'self': the renderer bundle and its start script, both files from this origin
 *    (no inline script, no eval: Swagger UI runs without either);
 *  - style-src 'self': the renderer's stylesheet file, and the hash of this page's own style block
 *    for the renderer on a phone (REFERENCE_STYLE), beside the pages' one hashed inline block;
 *  - img-src data:: Swagger UI's stylesheet draws its icons as data: SVG images (an image cannot
 *    run script);
 *  - connect-src 'self': the renderer fetches the contract, and "Try it out" calls the API, on
 *    this origin only.
 */
const ADDITIONS: Record<string, string[]> = {
  'script-src': ["'self'"],
  'style-src': ["'self'", `'sha256-${REFERENCE_STYLE_SHA256}'`],
  'img-src': ['data:'],
  'connect-src': ["'self'"],
};

/** The pages' policy with the additions above (directives kept in order, new ones appended). */
export function referencePolicy(base: string = PAGE_CSP): string {
  const directives = base.split(';').map((d) => d.trim().split(/\s+/));
  for (const [name, sources] of Object.entries(ADDITIONS)) {
    const directive = directives.find(([n]) => n === name);
    if (directive) directive.push(...sources.filter((s) => !directive.includes(s)));
    else directives.push([name, ...sources]);
  }
  return directives.map((d) => d.join(' ')).join('; ');
}

export const REFERENCE_HEADERS: Readonly<Record<string, string>> = { ...PAGE_HEADERS, 'content-security-policy': referencePolicy() };

/**
 * GET /developers/reference: the pages' frame around Swagger UI. The renderer and its start
 * script are same-origin files published with the developer documents; without JavaScript the
 * page still says where the contract is.
 */
export function renderReferencePage(baseUrl: string): string {
  const asset = (path: string) => `${baseUrl}${path}`;
  const main = html`<h1>API reference</h1>
<p>The OpenAPI 3.1 contract of this service, rendered; the link under its title is the contract itself (JSON).
Every developer document is listed on the <a href="${asset(SITE_PATHS.developers)}">developer start page</a>.</p>
<noscript><p class="hint">The rendered reference needs JavaScript. The developer start page links the contract as plain JSON.</p></noscript>
<link rel="stylesheet" href="${asset(API_REFERENCE_ASSETS.style)}">
<div id="${REFERENCE_MOUNT_ID}"></div>
<script src="${asset(API_REFERENCE_ASSETS.script)}"></script>
<script src="${asset(API_REFERENCE_ASSETS.start)}"></script>`;
  return pageDocument({ title: 'API reference', baseUrl, main, extraStyle: REFERENCE_STYLE });
}
