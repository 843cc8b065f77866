import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'playwright-core';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { LANGUAGES } from '../../functions/contract/languages';
import { RECEIPT_SCRIPT } from '../../functions/generated/receipt-script';
import type { LocalService } from '../../lib/local/service';
import { launchChromium } from '../support/browser';
import { getJson, startTestService } from '../support/local';

/**
 * The trust receipt as its visitors meet it, in a real Chromium: the ledger evidence checked on
 * the device with WebCrypto (and agreeing with the service's own verdict for every demo record,
 * the tampered one included), without JavaScript, in four languages, by keyboard, on paper, and
 * with a QR code that a second implementation (jsQR) reads back as the receipt's address.
 */
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

const DESKTOP = { width: 1100, height: 900 };
const PHONE = { width: 390, height: 844 };

async function open(path: string, options: { viewport?: typeof DESKTOP; javaScriptEnabled?: boolean; locale?: string } = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, javaScriptEnabled: options.javaScriptEnabled ?? true, locale: options.locale });
  const page = await context.newPage();
  await page.goto(`${service.url}${path}`, { waitUntil: 'load' });
  return page;
}

const close = (page: Page) => page.context().close();

/** The device check's outcome once it is no longer pending. */
async function deviceOutcome(page: Page): Promise<{ state: string | null; text: string; checks: string[] }> {
  await page.waitForFunction("document.getElementById('device-check').dataset.verification !== 'pending'", undefined, { timeout: 10_000 });
  const check = page.locator('#device-check');
  return { state: await check.getAttribute('data-verification'), text: (await check.textContent()) ?? '', checks: await page.locator('#device-checks li').allTextContents() };
}

const objects = Object.values(DEMO_OBJECTS).map((reference) => ({ reference, json: `/v1/objects/${reference}` }));
const proofs = Object.values(DEMO_PROOFS).map((reference) => ({ reference, json: `/v1/commercial-proofs/${reference}` }));

describe.each([
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as const)('checked on the device (%s)', (_name, viewport) => {
  test.each([...objects, ...proofs])('$reference: the browser reaches the service’s integrity verdict itself', async ({ reference, json }) => {
    const answer = (await getJson(`${service.url}${json}`)).body;
    const serviceConfirmed: boolean = answer.current?.evidenceIntegrityConfirmed ?? answer.verification.proofVerified;
    const page = await open(`/trust-receipt/${reference}`, { viewport });
    try {
      const outcome = await deviceOutcome(page);
      expect(outcome.state).toBe(serviceConfirmed ? 'verified' : 'failed');
      if (serviceConfirmed) {
        const evidence = answer.current?.ledger ?? answer.verification.ledger;
        expect(outcome.text).toBe(`Checked on this device: the record shown is the one in the public log of size ${evidence.treeSize}, leaf ${evidence.leafIndex}, signed by ${evidence.origin}.`);
        expect(outcome.checks).toHaveLength(5);
        expect(outcome.checks.every((c) => c.startsWith('passed '))).toBe(true);
      } else {
        expect(outcome.text).toMatch(/^The check on this device failed: .+\. Do not rely on the integrity of this record\.$/);
      }
    } finally {
      await close(page);
    }
  });
});

test('the tampered demo proof fails visibly on the device, naming the check', async () => {
  const page = await open(`/trust-receipt/${DEMO_PROOFS.tampered}`);
  try {
    const outcome = await deviceOutcome(page);
    expect(outcome.state).toBe('failed');
    expect(outcome.text).toContain('the record shown is not the content that was logged');
    expect(outcome.checks.filter((c) => c.startsWith('failed ')).map((c) => c.split(':')[0])).toEqual(['failed canonical-hash', 'failed inclusion-proof']);
  } finally {
    await close(page);
  }
});

test('a record changed in the page after it was served fails the check: the browser verifies what it holds', async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  // The same page, its embedded record altered on the way (as a tampering proxy would).
  await page.route('**/trust-receipt/**', async (route) => {
    const response = await route.fetch();
    const body = (await response.text()).replace(/("record":\{[\s\S]*?"state":")([A-Z_]+)/, '$1RETURNED');
    await route.fulfill({ response, body });
  });
  try {
    await page.goto(`${service.url}/trust-receipt/${DEMO_OBJECTS.current}`);
    const outcome = await deviceOutcome(page);
    expect(outcome.state).toBe('failed');
    expect(outcome.text).toContain('the record shown is not the content that was logged');
  } finally {
    await context.close();
  }
});

test('without JavaScript the page still gives the service’s verdict and says the device check did not run', async () => {
  const page = await open(`/trust-receipt/${DEMO_OBJECTS.current}`, { javaScriptEnabled: false });
  try {
    expect(await page.locator('#device-check').getAttribute('data-verification')).toBe('pending');
    expect(await page.locator('#device-check').textContent()).toContain('the check needs JavaScript');
    expect(await page.locator('.card [role=status] .status').textContent()).toBeTruthy();
  } finally {
    await close(page);
  }
});

test('the script is small, and the only one the page runs', async () => {
  expect(Buffer.byteLength(RECEIPT_SCRIPT)).toBeLessThan(16 * 1024);
  const page = await open(`/trust-receipt/${DEMO_OBJECTS.current}`);
  try {
    const scripts = await page.locator('script:not([type="application/json"])').evaluateAll((nodes) => nodes.map((n) => n.textContent));
    expect(scripts).toEqual([RECEIPT_SCRIPT]);
    expect(await page.locator('[onclick], [onload], [onerror]').count()).toBe(0);
  } finally {
    await close(page);
  }
});

describe('in the visitor’s language', () => {
  const HEADINGS = { en: 'Trust receipt', de: 'Vertrauensbeleg', fr: 'Reçu de confiance', es: 'Recibo de confianza' };
  const VERIFIED = { en: 'Checked on this device', de: 'Auf diesem Gerät geprüft', fr: 'Vérifié sur cet appareil', es: 'Comprobado en este dispositivo' };

  test.each(LANGUAGES)('%s from Accept-Language, and the check speaks it too', async (lang) => {
    const page = await open(`/trust-receipt/${DEMO_OBJECTS.current}`, { locale: lang === 'en' ? 'en-US' : `${lang}-${lang.toUpperCase()}` });
    try {
      expect(await page.locator('html').getAttribute('lang')).toBe(lang);
      expect(await page.locator('h1').textContent()).toBe(HEADINGS[lang]);
      const outcome = await deviceOutcome(page);
      expect(outcome.state).toBe('verified');
      expect(outcome.text.startsWith(VERIFIED[lang])).toBe(true);
      // Dates in the visitor's locale, the zone stated; the machine value kept beside.
      const time = page.locator('time').first();
      expect(await time.textContent()).toMatch(/UTC$/);
      expect(await time.getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // Machine values stay as they are.
      expect(await page.locator('.card dd code').first().textContent()).toBe(DEMO_OBJECTS.current);
    } finally {
      await close(page);
    }
  });

  test('?lang= wins over Accept-Language, and the switcher changes language keeping the page', async () => {
    const response = await fetch(`${service.url}/trust-receipt/${DEMO_OBJECTS.current}?lang=es`, { headers: { 'accept-language': 'de' } });
    expect(response.headers.get('content-language')).toBe('es');
    expect(response.headers.get('vary')).toContain('Accept-Language');
    const page = await open(`/trust-receipt/${DEMO_OBJECTS.current}`, { locale: 'de-DE' });
    try {
      await page.locator('nav.langs a[hreflang=fr]').click();
      await page.waitForURL(/lang=fr$/);
      expect(await page.locator('html').getAttribute('lang')).toBe('fr');
      expect(await page.locator('nav.langs a[aria-current]').textContent()).toBe('Français');
    } finally {
      await close(page);
    }
  });
});

test('works with the keyboard alone: skip link first, then the language switcher, links and the JSON', async () => {
  const page = await open(`/trust-receipt/${DEMO_OBJECTS.current}`);
  try {
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    const reached: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      reached.push(String(await page.evaluate('document.activeElement.getAttribute("href") || document.activeElement.tagName')));
    }
    expect(reached.some((href) => href.endsWith('?lang=de'))).toBe(true);
    expect(reached.some((href) => href.endsWith(`/v1/objects/${DEMO_OBJECTS.current}`))).toBe(true);
    // Following a link by keyboard.
    const toGerman = reached.findIndex((href) => href.endsWith('?lang=de'));
    await page.goto(`${service.url}/trust-receipt/${DEMO_OBJECTS.current}`);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    for (let i = 0; i <= toGerman; i++) await page.keyboard.press('Tab');
    await Promise.all([page.waitForURL(/lang=de$/), page.keyboard.press('Enter')]);
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
  } finally {
    await close(page);
  }
});

test('the QR code on the page reads back as the receipt’s address (decoded by jsQR)', async () => {
  const page = await open(`/trust-receipt/${DEMO_OBJECTS.current}?lang=de`);
  try {
    const svg = page.locator('.share svg');
    expect(await svg.getAttribute('role')).toBe('img');
    const png = PNG.sync.read(await svg.screenshot());
    const decoded = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
    // The address without a language: whoever scans it reads the receipt in their own.
    expect(decoded?.data).toBe(`${service.url}/trust-receipt/${DEMO_OBJECTS.current}`);
  } finally {
    await close(page);
  }
});

test.each([
  ['A4', `/trust-receipt/${DEMO_OBJECTS.current}`],
  ['Letter', `/trust-receipt/${DEMO_OBJECTS.current}?lang=de`],
  ['A4', `/trust-receipt/${DEMO_PROOFS.current}?lang=fr`],
  ['Letter', `/trust-receipt/${DEMO_OBJECTS.longHistory}?lang=es`],
] as const)('prints on one %s page (%s)', async (format, path) => {
  const page = await open(path);
  try {
    await deviceOutcome(page);
    const pdf = (await page.pdf({ format, printBackground: false })).toString('latin1');
    expect(pdf.match(/\/Type\s*\/Page[^s]/g)).toHaveLength(1);
  } finally {
    await close(page);
  }
});

test('links to its JSON resolution as an alternate, in the Link header and the document', async () => {
  const response = await fetch(`${service.url}/trust-receipt/${DEMO_PROOFS.current}`);
  expect(response.headers.get('link')).toBe(`<${service.url}/v1/commercial-proofs/${DEMO_PROOFS.current}>; rel="alternate"; type="application/json"`);
  expect(await response.text()).toContain(`<link rel="alternate" type="application/json" href="${service.url}/v1/commercial-proofs/${DEMO_PROOFS.current}">`);
});

test('/verify after a lookup runs the same check', async () => {
  const page = await open(`/verify?reference=${DEMO_PROOFS.current}&lang=es`);
  try {
    const outcome = await deviceOutcome(page);
    expect(outcome.state).toBe('verified');
    expect(outcome.text.startsWith('Comprobado en este dispositivo')).toBe(true);
  } finally {
    await close(page);
  }
});
