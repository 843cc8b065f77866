import { operations } from '../../functions/contract/operations';
import { LandingIndex } from '../../functions/contract/schemas/landing';
import { API_REFERENCE_ASSETS, SITE_PATHS } from '../../functions/contract/site-paths';
import { PAGE_HEADERS } from '../../functions/pages/frame';
import { referencePolicy } from '../../functions/pages/reference-page';
import type { LocalService } from '../../lib/local/service';
import { startTestService } from '../support/local';

/** What Chromium sends on a navigation. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';

let service: LocalService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service?.close();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${service.url}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

/** The function's Vary, plus the Accept-Encoding the local edge adds since it compresses for clients that accept it. */
const EDGE_VARY = (vary: string) => `${vary}, Accept-Encoding`;

describe.each([SITE_PATHS.home, SITE_PATHS.developers])('GET %s', (path) => {
  test('answers clients that do not prefer HTML (curl, fetch, JSON) with the JSON index, cached and revalidated like the catalogues', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'text/html;q=0.5, application/json']) {
      const res = await get(path, accept ? { accept } : {});
      expect(`${accept} ${res.status} ${res.headers.get('content-type')}`).toBe(`${accept} 200 application/json; charset=utf-8`);
      expect(res.headers.get('vary')).toBe(EDGE_VARY('Accept, Accept-Language'));
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      const index = JSON.parse(res.text);
      expect(LandingIndex.safeParse(index).success).toBe(true);
      expect(index.links.self).toBe(`${service.url}${path}`);
    }
    const first = await get(path);
    const again = await get(path, { 'if-none-match': first.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  test('answers a browser with a page carrying the pages security headers, varying on Accept', async () => {
    const res = await get(path, { accept: BROWSER_ACCEPT });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    for (const [name, value] of Object.entries(PAGE_HEADERS)) expect(`${name}: ${res.headers.get(name)}`).toBe(`${name}: ${value}`);
    // Kept like the JSON index (it changes only with a deployment), varying on what it negotiates.
    expect([res.headers.get('cache-control'), res.headers.get('vary')]).toEqual(['public, max-age=300', EDGE_VARY('Accept, Accept-Language')]);
    expect(res.text).toMatch(/^<!doctype html>/);
    expect(res.text).toContain(`<link rel="icon" href="${service.url}${SITE_PATHS.favicon}" type="image/svg+xml">`);
    expect(res.text).not.toMatch(/<script/);
  });
});

test('the landing speaks the visitor\'s language (?lang=, then Accept-Language) and says so; a malformed ?lang= is a 400 page in the visitor\'s language', async () => {
  const german = await get(SITE_PATHS.home, { accept: BROWSER_ACCEPT, 'accept-language': 'de-AT,de;q=0.9' });
  expect(german.headers.get('content-language')).toBe('de');
  expect(german.text).toMatch(/<html lang="de">/);
  expect(german.text).toContain('Was Sie prüfen können');
  const spanish = await get(`${SITE_PATHS.home}?lang=es`, { accept: BROWSER_ACCEPT, 'accept-language': 'de' });
  expect(spanish.headers.get('content-language')).toBe('es');
  expect(spanish.text).toContain('<input type="hidden" name="lang" value="es">');
  const malformed = await get(`${SITE_PATHS.home}?lang=${encodeURIComponent('<x>')}`, { accept: BROWSER_ACCEPT, 'accept-language': 'fr' });
  expect(malformed.status).toBe(400);
  expect(malformed.text).toMatch(/<html lang="fr">/);
  // The JSON index is the same in every language.
  const json = await get(`${SITE_PATHS.home}?lang=de`);
  expect(JSON.parse(json.text).links.self).toBe(`${service.url}/`);
});

test('every route the index lists carries an absolute URL on this server, and every GET it lists without parameters answers 200 with its declared media type', async () => {
  const index = JSON.parse((await get('/')).text);
  const entries = [...index.trustRoutes, ...index.pages, ...index.developerDocuments, ...index.sandbox, ...index.files];
  expect(entries).toHaveLength(operations.length);
  const failures: string[] = [];
  for (const e of entries) {
    expect(e.href.replace(/\{\?[\w,]+\}$/, '')).toBe(`${service.url}${e.path}`);
    if (e.method !== 'GET' || e.templated) continue;
    const res = await fetch(e.href);
    await res.arrayBuffer();
    const type = res.headers.get('content-type')?.split(';')[0];
    if (res.status !== 200 || type !== e.mediaType) failures.push(`${e.path} -> ${res.status} ${type} (declared ${e.mediaType})`);
  }
  expect(failures).toEqual([]);
});

test('the API reference page allows only same-origin scripts, styles and fetches (and data: images) and links its files on this server', async () => {
  const res = await get(SITE_PATHS.apiReference, { accept: BROWSER_ACCEPT });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-security-policy')).toBe(referencePolicy());
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  for (const file of [API_REFERENCE_ASSETS.script, API_REFERENCE_ASSETS.style, API_REFERENCE_ASSETS.start]) expect(res.text).toContain(`"${service.url}${file}"`);
});

test('the renderer and its start script are served as JavaScript (a browser refuses a script of another type under nosniff)', async () => {
  for (const file of [API_REFERENCE_ASSETS.script, API_REFERENCE_ASSETS.start]) {
    const res = await get(file);
    expect(`${file} ${res.status} ${res.headers.get('content-type')} ${res.headers.get('x-content-type-options')}`).toBe(`${file} 200 text/javascript; charset=utf-8 nosniff`);
  }
  const css = await get(API_REFERENCE_ASSETS.style);
  expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
});

test('/favicon.ico answers the site icon (the same bytes and ETag as the SVG document), so no page meets a 404 for it', async () => {
  const ico = await get(SITE_PATHS.faviconIco);
  const svg = await get(SITE_PATHS.favicon);
  expect(ico.status).toBe(200);
  expect(ico.headers.get('content-type')).toBe('image/svg+xml');
  expect(ico.text).toBe(svg.text);
  expect(ico.headers.get('etag')).toBe(svg.headers.get('etag'));
  expect((await get(SITE_PATHS.faviconIco, { 'if-none-match': svg.headers.get('etag')! })).status).toBe(304);
});
