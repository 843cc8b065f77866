import fc from 'fast-check';
import { mediaTypeOf } from '../../lib/local/documents';
import { buildStaticFiles, SITE_ICON, startScript, stylesheet } from '../../lib/publish/reference';
import { operations } from '../../functions/contract/operations';
import { landingOperations } from '../../functions/contract/operations/landing';
import type { Operation } from '../../functions/contract/operation';
import { LandingIndex } from '../../functions/contract/schemas/landing';
import { API_REFERENCE_ASSETS, SITE_PATHS } from '../../functions/contract/site-paths';
import { PAGE_CSP } from '../../functions/pages/frame';
import { buildLandingIndex, landingSection, renderDeveloperLanding, renderLanding, type LandingSection } from '../../functions/pages/landing-page';
import { codeText } from '../../functions/pages/markup';
import { landingWords } from '../../functions/pages/landing-languages';
import { REFERENCE_MOUNT_ID, referencePolicy, renderReferencePage } from '../../functions/pages/reference-page';
import { REFERENCE_STYLE_SHA256 } from '../../functions/generated/page-style';

const BASE = 'https://trust.example.test/prod';
const SECTIONS: LandingSection[] = ['trustRoutes', 'pages', 'developerDocuments', 'sandbox', 'files'];
const entriesOf = (index: LandingIndex) => SECTIONS.flatMap((s) => index[s]);
const english = landingWords(undefined, undefined);

describe('the landing index', () => {
  const index = buildLandingIndex(operations, BASE, SITE_PATHS.home);

  test('satisfies its published schema', () => {
    expect(LandingIndex.safeParse(index).success).toBe(true);
  });

  test('lists every operation of the contract table exactly once, in table order within each section', () => {
    const listed = entriesOf(index).map((e) => `${e.method} ${e.path}`);
    expect([...listed].sort()).toEqual(operations.map((op) => `${op.method} ${op.path}`).sort());
    for (const section of SECTIONS) {
      const order = index[section].map((e) => operations.findIndex((op) => op.operationId === e.operationId));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });

  test('gives every entry its absolute URL on the base URL callers used, templates marked', () => {
    for (const e of entriesOf(index)) {
      const op = operations.find((o) => o.operationId === e.operationId)!;
      // Required query parameters are an RFC 6570 form-style query expansion after the path.
      const query = op.requiredQueryParams?.length ? `{?${op.requiredQueryParams.join(',')}}` : '';
      expect(e.href).toBe(`${BASE}${e.path}${query}`);
      expect(e.templated).toBe(e.path.includes('{') || query !== '');
    }
    expect(entriesOf(index).find((e) => e.operationId === 'getLedgerConsistency')?.href).toBe(`${BASE}/v1/ledger/consistency{?from,to}`);
    expect(index.links).toMatchObject({ self: `${BASE}/`, home: `${BASE}/`, developers: `${BASE}/developers`, apiReference: `${BASE}/developers/reference` });
    expect(buildLandingIndex(operations, BASE, SITE_PATHS.developers).links.self).toBe(`${BASE}/developers`);
  });

  test('links only to routes the table publishes, found by operationId (never a dead link)', () => {
    const paths = new Set(operations.filter((op) => op.method === 'GET').map((op) => `${BASE}${op.path}`));
    for (const href of Object.values(index.links)) expect(paths.has(href!)).toBe(true);
    const withoutStudio = buildLandingIndex(operations.filter((op) => op.operationId !== 'getStudio'), BASE, '/');
    expect(withoutStudio.links.studio).toBeUndefined();
    expect(renderLanding(withoutStudio, english)).not.toContain('Studio</a>: the live status');
    expect(renderLanding(index, english)).toContain('Studio</a>: the live status');
  });

  test('sections: pages are HTML, the sandbox is POST, files are neither JSON nor HTML, documents are JSON under /developers/', () => {
    expect(index.pages.map((e) => e.path)).toEqual(expect.arrayContaining(['/verify', '/studio', '/trust-receipt/{reference}', '/', '/developers', '/developers/reference']));
    expect(index.files.map((e) => e.path)).toEqual(expect.arrayContaining([SITE_PATHS.favicon, SITE_PATHS.faviconIco, ...Object.values(API_REFERENCE_ASSETS)]));
    expect(index.developerDocuments.map((e) => e.path)).toContain('/developers/openapi.json');
    expect(index.trustRoutes.map((e) => e.path)).toEqual(expect.arrayContaining(['/health', '/v1/objects/{reference}']));
    expect(index.sandbox.every((e) => e.method === 'POST')).toBe(true);
    expect(index.developerDocuments.every((e) => e.mediaType === 'application/json' && e.path.startsWith('/developers/'))).toBe(true);
  });

  test('any table: each operation lands in exactly one section, and the index holds the whole table (property, seeded)', () => {
    const row = fc.record({
      operationId: fc.stringMatching(/^[a-z][A-Za-z]{0,12}$/),
      method: fc.constantFrom('GET' as const, 'POST' as const),
      path: fc.constantFrom('/', '/developers', '/health', '/v1/x/{id}', '/developers/a.json', '/developers/sandbox/run', '/developers/r/x.js', '/favicon.ico'),
      liveState: fc.constantFrom('LIVE' as const, 'READY' as const, 'SHADOW' as const, 'GATED_BY_PERSISTENCE' as const),
      summary: fc.string({ maxLength: 20 }),
      response: fc.record({ mediaType: fc.constantFrom(undefined, 'application/json' as const, 'text/html' as const, 'text/javascript' as const, 'image/svg+xml' as const) }),
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 25 }), (rows) => {
        const built = buildLandingIndex(rows, BASE, '/');
        expect(entriesOf(built)).toHaveLength(rows.length);
        for (const r of rows) {
          const section = landingSection(r);
          expect(built[section].some((e) => e.operationId === r.operationId && e.path === r.path)).toBe(true);
        }
      }),
      { seed: 20261122, numRuns: 200 },
    );
  });
});

describe('the landing pages', () => {
  const index = buildLandingIndex(operations, BASE, SITE_PATHS.home);

  test('/ is for people, in their language: the form to check a reference, what can be checked, and where developers and operators start', () => {
    const page = renderLanding(index, english);
    expect(page).toContain(`<form class="lookup" method="get" action="${BASE}/verify"`);
    for (const href of [index.links.developers, index.links.studio]) expect(page).toContain(`href="${href}"`);
    expect(page).toMatch(/<html lang="en">/);
    expect(page).not.toMatch(/<script/);
    // The route index is on /developers (and in the JSON answered at /), not on the page people land on.
    expect(page).not.toContain('/v1/objects/{reference}');
    expect(page).not.toMatch(/GATED_BY_PERSISTENCE|liveState/);
    const german = renderLanding(index, landingWords('de-DE,de;q=0.9', undefined));
    expect(german).toMatch(/<html lang="de">/);
    expect(german).toContain('<input type="hidden" name="lang" value="de">');
    expect(german).toContain(`<a href="${BASE}/?lang=fr" lang="fr" hreflang="fr">Français</a>`);
    expect(renderLanding(index, landingWords('de', 'es'))).toMatch(/<html lang="es">/);
  });

  test('/developers lists the trust routes, every developer document, the sandbox and the pages, each with its availability in words and its liveState', () => {
    const page = renderDeveloperLanding(buildLandingIndex(operations, BASE, SITE_PATHS.developers));
    for (const e of index.developerDocuments) expect(page).toContain(`<a href="${e.href}"><code>${codeText(e.path).value}</code></a>`);
    for (const e of index.sandbox) expect(page).toContain(`<code>${codeText(e.path).value}</code>`);
    for (const e of index.trustRoutes) expect(page).toContain(`<code>${codeText(e.path).value}</code>`);
    expect(page).not.toContain(`href="${BASE}/v1/objects/{reference}"`);
    expect(page).toContain(`Live where its store is configured <code class="muted">GATED_<wbr>BY_<wbr>PERSISTENCE</code>`);
    expect(page).toContain(`curl ${BASE}/developers`);
  });

  test('every page links the site icon in its head', () => {
    for (const page of [renderLanding(index, english), renderDeveloperLanding(index), renderReferencePage(BASE)]) {
      const head = page.slice(0, page.indexOf('</head>'));
      expect(head).toContain(`<link rel="icon" href="${BASE}${SITE_PATHS.favicon}" type="image/svg+xml">`);
    }
  });
});

describe('the API reference page', () => {
  test('loads the renderer, its stylesheet and the start script from this service, and nothing inline but the pages\' styles', () => {
    const page = renderReferencePage(BASE);
    const sources = [...page.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    expect(sources).toEqual([` src="${BASE}${API_REFERENCE_ASSETS.script}"`, ` src="${BASE}${API_REFERENCE_ASSETS.start}"`]);
    expect(page).toContain(`<link rel="stylesheet" href="${BASE}${API_REFERENCE_ASSETS.style}">`);
    expect(page).toContain(`<div id="${REFERENCE_MOUNT_ID}"></div>`);
    expect(page).not.toMatch(/ on[a-z]+=/);
  });

  test('its policy adds same-origin scripts, styles and fetches, and data: images, to the pages policy and nothing else', () => {
    const policy = referencePolicy();
    const directives = Object.fromEntries(policy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    const base = Object.fromEntries(PAGE_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual([...base['script-src'], "'self'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    // Its own style block (Swagger UI on a phone) by its hash, and the renderer's stylesheet file.
    expect(directives['style-src']).toEqual([...base['style-src'], "'self'", `'sha256-${REFERENCE_STYLE_SHA256}'`]);
    expect(directives['img-src']).toEqual([...base['img-src'], 'data:']);
    expect(policy).not.toMatch(/unsafe|\*|https?:/);
    for (const name of ['form-action', 'base-uri', 'frame-ancestors']) expect(directives[name]).toEqual(base[name]);
    expect(referencePolicy("default-src 'none'; script-src 'self'")).toBe(`default-src 'none'; script-src 'self'; style-src 'self' 'sha256-${REFERENCE_STYLE_SHA256}'; img-src data:; connect-src 'self'`);
  });
});

describe('the static files', () => {
  const files = buildStaticFiles(operations);

  test('one file per static-file operation, served under its own key with the media type the contract declares', () => {
    const declared = operations.filter((op) => op.integration.kind === 'document' && (op.response.mediaType ?? 'application/json') !== 'application/json');
    expect(declared.length).toBeGreaterThanOrEqual(6);
    for (const op of declared) {
      const key = op.integration.kind === 'document' ? op.integration.key : '';
      expect(files.has(`/${key}`)).toBe(true);
      expect(`${op.path} ${mediaTypeOf(key).split(';')[0]}`).toBe(`${op.path} ${op.response.mediaType}`);
    }
    expect(landingOperations.find((op) => op.path === SITE_PATHS.faviconIco)?.integration).toEqual({ kind: 'document', key: SITE_PATHS.favicon.slice(1) });
  });

  test('a file without an operation, or an operation without a file, fails the build', () => {
    expect(() => buildStaticFiles(operations.filter((op) => op.path !== API_REFERENCE_ASSETS.style))).toThrow(/swagger-ui\.css is built but no GET document operation/);
    const orphan: Operation = { ...landingOperations.find((op) => op.path === SITE_PATHS.favicon)!, operationId: 'getOrphan', path: '/developers/orphan.svg', integration: { kind: 'document', key: 'developers/orphan.svg' } };
    expect(() => buildStaticFiles([...operations, orphan])).toThrow(/no file for \/developers\/orphan\.svg/);
  });

  test('the renderer is the package file byte for byte; the stylesheet loses only its source-map comment', () => {
    const dir = require('node:path').dirname(require.resolve('swagger-ui-dist/package.json'));
    const read = (f: string) => require('node:fs').readFileSync(`${dir}/${f}`, 'utf8');
    expect(files.get(API_REFERENCE_ASSETS.script)).toBe(read('swagger-ui-bundle.js'));
    const css = read('swagger-ui.css');
    expect(files.get(API_REFERENCE_ASSETS.style)).toBe(stylesheet(css));
    expect(stylesheet(css)).not.toContain('sourceMappingURL');
    expect(css.length - stylesheet(css).length).toBeLessThan(60);
    expect(files.get(API_REFERENCE_ASSETS.licences)).toContain('Apache License');
  });

  test('the start script points the renderer at the contract relative to the page (stage prefixes kept), with no outside validator and no query-string configuration', () => {
    const script = startScript('/developers/openapi.json');
    expect(script).toContain('new URL("openapi.json", document.baseURI)');
    expect(script).toContain('validatorUrl: null');
    expect(script).toContain('queryConfigEnabled: false');
    expect(new URL('openapi.json', `${BASE}/developers/reference`).href).toBe(`${BASE}/developers/openapi.json`);
    expect(files.get(API_REFERENCE_ASSETS.start)).toBe(startScript(operations.find((op) => op.operationId === 'getOpenApiContract')!.path));
  });

  test('the icon is a small SVG with no script and no external reference', () => {
    expect(SITE_ICON.length).toBeLessThan(1024);
    expect(SITE_ICON).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(SITE_ICON).not.toMatch(/<script|href=|url\(/);
  });
});
