import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { API_REFERENCE_ASSETS, SITE_PATHS } from '../../functions/contract/site-paths';
import type { LocalService } from '../../lib/local/service';
import { launchChromium } from '../support/browser';
import { startTestService } from '../support/local';

export const SCREENSHOTS = { landing: '/tmp/landing-home.png', developers: '/tmp/landing-developers.png', reference: '/tmp/landing-reference.png' };

let service: LocalService;
let browser: Browser;
let context: BrowserContext;

/** What one page load produced: console errors and warnings, uncaught errors, policy violations, requests. */
interface Observed {
  problems: string[];
  requests: string[];
}

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  // Runs before any page script (and outside the page's policy): collects every CSP violation the page meets.
  await context.addInitScript(() => {
    const w = globalThis as unknown as { __violations: string[]; document: { addEventListener(t: string, f: (e: { violatedDirective: string; blockedURI: string }) => void): void } };
    w.__violations = [];
    w.document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await service?.close();
});

async function open(path: string, settle?: (page: Page) => Promise<unknown>): Promise<{ page: Page; observed: Observed }> {
  const page = await context.newPage();
  const observed: Observed = { problems: [], requests: [] };
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') observed.problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => observed.problems.push(`uncaught: ${e.message}`));
  page.on('request', (r) => observed.requests.push(r.url()));
  page.on('requestfailed', (r) => observed.problems.push(`request failed: ${r.url()}`));
  page.on('response', (r) => {
    if (r.status() >= 400) observed.problems.push(`${r.status()} ${r.url()}`);
  });
  const response = await page.goto(`${service.url}${path}`, { waitUntil: 'load' });
  expect(`${path} ${response?.status()}`).toBe(`${path} 200`);
  if (settle) await settle(page);
  await page.waitForLoadState('networkidle');
  const violations = await page.evaluate(() => (globalThis as unknown as { __violations: string[] }).__violations);
  observed.problems.push(...violations.map((v) => `CSP violation: ${v}`));
  return { page, observed };
}

/** The icon a page's head names, loaded and decoded as an image by the browser under the page's own policy. */
async function decodeIcon(page: Page, href: string): Promise<number> {
  return page.evaluate(async (src) => {
    const g = globalThis as unknown as { Image: new () => { src: string; decode(): Promise<void>; naturalWidth: number } };
    const img = new g.Image();
    img.src = src;
    await img.decode();
    return img.naturalWidth;
  }, href);
}

const PAGES = [SITE_PATHS.home, SITE_PATHS.developers, SITE_PATHS.apiReference, '/verify', '/studio', `/trust-receipt/${DEMO_OBJECTS.current}`];

test.each(PAGES)('%s loads with no console error, no policy violation, no failed request, nothing from another origin, and an icon that decodes', async (path) => {
  const { page, observed } = await open(path, path === SITE_PATHS.apiReference ? (p) => p.locator('.opblock').first().waitFor() : undefined);
  expect(observed.problems).toEqual([]);
  expect(observed.requests.filter((url) => !url.startsWith(`${service.url}/`))).toEqual([]);
  const icon = await page.locator('head link[rel="icon"]').getAttribute('href');
  expect(icon).toBe(`${service.url}${SITE_PATHS.favicon}`);
  expect(await decodeIcon(page, icon!)).toBeGreaterThan(0);
  await page.close();
});

test('/favicon.ico, which browsers ask for on their own, is an image the browser decodes', async () => {
  const { page, observed } = await open(SITE_PATHS.home);
  expect(await decodeIcon(page, `${service.url}${SITE_PATHS.faviconIco}`)).toBeGreaterThan(0);
  expect(observed.problems).toEqual([]);
  await page.close();
});

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

test('a person lands on /, follows the developer start to the API reference, and sees every operation of the contract rendered', async () => {
  const { page } = await open(SITE_PATHS.home);
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Public Trust and Verification');
  await page.screenshot({ path: SCREENSHOTS.landing, fullPage: true });

  await Promise.all([page.waitForURL(`${service.url}${SITE_PATHS.developers}`), page.getByRole('link', { name: 'Developers' }).click()]);
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Developers');
  await expect(page.locator('main').innerText()).resolves.toContain('/developers/catalogue.json');
  await page.screenshot({ path: SCREENSHOTS.developers, fullPage: true });

  await Promise.all([page.waitForURL(`${service.url}${SITE_PATHS.apiReference}`), page.getByRole('link', { name: 'API reference' }).first().click()]);
  await page.locator('.opblock').first().waitFor();
  const contract = (await (await fetch(`${service.url}/developers/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const expected = Object.entries(contract.paths)
    // A path item also holds non-operation fields (servers, the path's origin); only methods render.
    .flatMap(([path, item]) => Object.keys(item).filter((key) => HTTP_METHODS.has(key)).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
  const rendered = await page.locator('.opblock').evaluateAll((blocks) =>
    blocks.map((b) => {
      const el = b as unknown as { querySelector(s: string): { textContent: string | null; getAttribute(n: string): string | null } | null };
      return `${el.querySelector('.opblock-summary-method')?.textContent} ${el.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`;
    }),
  );
  expect(rendered.sort()).toEqual(expected);
  await expect(page.locator('#api-reference').innerText()).resolves.toContain('resolveObject');

  // Open one operation: its parameters and responses render from the contract.
  await page.locator('.opblock-summary', { hasText: '/v1/objects/{reference}' }).first().click();
  await page.locator('.opblock.is-open .responses-table').first().waitFor(); // the body renders after the click
  await expect(page.locator('.opblock.is-open').innerText()).resolves.toMatch(/reference[\s\S]*asOf[\s\S]*200/);
  await page.screenshot({ path: SCREENSHOTS.reference });
  const violations = await page.evaluate(() => (globalThis as unknown as { __violations: string[] }).__violations);
  expect(violations).toEqual([]);
  await page.close();
});

test('the renderer runs only because its files are same-origin scripts: the page policy names no other source', async () => {
  const { page } = await open(SITE_PATHS.apiReference, (p) => p.locator('.opblock').first().waitFor());
  const scripts = await page.locator('script').evaluateAll((nodes) => nodes.map((n) => (n as unknown as { src: string; textContent: string | null }).src || `inline:${n.textContent}`));
  expect(scripts).toEqual([`${service.url}${API_REFERENCE_ASSETS.script}`, `${service.url}${API_REFERENCE_ASSETS.start}`]);
  await page.close();
});

test('the violation collector sees a violation when there is one (so the empty lists above prove something)', async () => {
  const { page } = await open(SITE_PATHS.home);
  await page.evaluate(() => {
    const d = (globalThis as unknown as { document: { createElement(t: string): { src: string }; body: { append(n: unknown): void } } }).document;
    const img = d.createElement('img');
    img.src = 'https://example.invalid/pixel.png';
    d.body.append(img);
  });
  await page.waitForFunction(() => (globalThis as unknown as { __violations: string[] }).__violations.length > 0);
  const violations = await page.evaluate(() => (globalThis as unknown as { __violations: string[] }).__violations);
  expect(violations).toEqual(['img-src https://example.invalid/pixel.png']);
  await page.close();
});
