import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_CREDENTIALS } from '../../fixtures/demo-credentials';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { SITE_PATHS } from '../../functions/contract/site-paths';
import type { LocalService } from '../../lib/local/service';
import { launchChromium } from '../support/browser';
import { startTestService } from '../support/local';

/**
 * Every page at a desktop width and at a phone's (390 CSS pixels, the width of common phones):
 * axe-core finds no accessibility violation, and on the phone nothing scrolls sideways: neither
 * the page nor any region inside it (a wide timeline table would).
 */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const VIEWPORTS = [
  { name: 'desktop', width: 1100, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
/** Every page in English; the accessibility check at both widths runs on these. */
const ENGLISH_PAGES = [
  ...Object.values(DEMO_OBJECTS).map((reference) => `/trust-receipt/${reference}`),
  '/trust-receipt/ORD-0000-UNKNOWN',
  `/trust-receipt/${DEMO_CREDENTIALS.suspended}`,
  `/verify?reference=${DEMO_CREDENTIALS.unconfirmed}`,
  '/verify',
  `/verify?reference=${DEMO_OBJECTS.current}`,
  `/verify?reference=${DEMO_OBJECTS.longHistory}`,
  '/studio',
  SITE_PATHS.home,
  SITE_PATHS.developers,
  `/trust-receipt/${DEMO_PROOFS.current}`,
];
/**
 * The person-facing pages in every other language they speak, each kind of page once. A language
 * changes the words, not the layout's rules: their accessibility is checked at the phone's width
 * (where longer words matter), the widths' differences on the English pages.
 */
const OTHER_LANGUAGES = [
  ...['de', 'fr', 'es'].flatMap((lang) => [
    `/trust-receipt/${DEMO_OBJECTS.current}?lang=${lang}`,
    `/trust-receipt/${DEMO_OBJECTS.longHistory}?lang=${lang}`,
    `/trust-receipt/${DEMO_PROOFS.tampered}?lang=${lang}`,
    `/trust-receipt/${DEMO_CREDENTIALS.revoked}?lang=${lang}`,
    `/?lang=${lang}`,
    `/trust-receipt/ORD-0000-UNKNOWN?lang=${lang}`,
    `/verify?lang=${lang}`,
    `/verify?reference=${DEMO_PROOFS.current}&lang=${lang}`,
    `/verify?reference=-bad-&lang=${lang}`,
  ]),
];
const PAGES = [...ENGLISH_PAGES, ...OTHER_LANGUAGES];

let service: LocalService;
let browser: Browser;
beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** bypassCSP only where the test injects axe-core: the pages' policy rightly refuses inline scripts. */
async function open(path: string, viewport: { width: number; height: number }, bypassCSP = false): Promise<Page> {
  const page = await browser.newPage({ viewport, bypassCSP });
  await page.goto(`${service.url}${path}`, { waitUntil: 'load' });
  return page;
}

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: string[] }[];
}

/** axe-core injected from the npm package (no network), run on the whole document. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  // Browser-side code is given as text: this project's TypeScript has no DOM types.
  const violations = (await page.evaluate('axe.run(document).then((result) => result.violations)')) as AxeViolation[];
  return violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The page and every element that scrolls sideways (content wider than its box, and allowed to scroll). */
async function horizontalScrollers(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const found = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push('the page (' + root.scrollWidth + ' px wide in ' + root.clientWidth + ')');
    for (const el of document.querySelectorAll('body *')) {
      const overflowX = getComputedStyle(el).overflowX;
      if ((overflowX === 'auto' || overflowX === 'scroll') && el.scrollWidth > el.clientWidth) {
        const classes = el.className ? '.' + String(el.className).split(' ').join('.') : '';
        found.push(el.tagName.toLowerCase() + classes + ' (' + el.scrollWidth + ' px in ' + el.clientWidth + ')');
      }
    }
    return found;
  })()`) as Promise<string[]>;
}

describe.each(VIEWPORTS)('$name ($width px)', (viewport) => {
  test.each(viewport.name === 'phone' ? PAGES : ENGLISH_PAGES)('%s: no accessibility violation', async (path) => {
    const page = await open(path, viewport, true);
    try {
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

test.each(PAGES)('%s on a 390-pixel phone: nothing scrolls sideways', async (path) => {
  const page = await open(path, VIEWPORTS[1]);
  try {
    expect(await horizontalScrollers(page)).toEqual([]);
  } finally {
    await page.close();
  }
});

test('the check is real: a page wider than the phone is found', async () => {
  const page = await open('/verify', VIEWPORTS[1]);
  try {
    // Styles set through the CSSOM, which the pages' policy allows (style attributes in markup it refuses).
    await page.evaluate(`(() => {
      const wide = document.createElement('div');
      wide.style.overflowX = 'auto';
      const inner = document.createElement('div');
      inner.style.width = '900px';
      inner.textContent = 'wide';
      wide.append(inner);
      document.body.append(wide);
    })()`);
    expect(await horizontalScrollers(page)).toEqual([expect.stringMatching(/^div \(900 px in/)]);
  } finally {
    await page.close();
  }
});

test('the accessibility check is real: an image without a text alternative is reported', async () => {
  const page = await open('/verify', VIEWPORTS[1], true);
  try {
    await page.evaluate(`(() => {
      const image = document.createElement('img');
      image.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
      document.querySelector('main').append(image);
    })()`);
    expect(await axeViolations(page)).toEqual([expect.stringMatching(/^image-alt /)]);
  } finally {
    await page.close();
  }
});
