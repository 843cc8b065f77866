import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { DEMO_OBJECTS, DEMO_RESTRICTED_VALUES } from '../../fixtures/demo';
import { startTestService } from '../support/local';
import type { LocalService } from '../../lib/local/service';
import { launchChromium } from '../support/browser';

export const SCREENSHOTS = { verify: '/tmp/surfaces-verify.png', receipt: '/tmp/surfaces-trust-receipt.png', studio: '/tmp/surfaces-studio.png' };

let service: LocalService;
let browser: Browser;
let page: Page;
const cspViolations: string[] = [];
const referenceField = () => page.getByRole('textbox', { name: 'Reference' });

beforeAll(async () => {
  service = await startTestService();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on('console', (message: ConsoleMessage) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) cspViolations.push(message.text());
  });
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

test('a person opens /verify, types a demo reference and sees its state, then opens its trust receipt', async () => {
  const response = await page.goto(`${service.url}/verify`);
  expect(response?.status()).toBe(200);
  await expect(page.title()).resolves.toContain('Verify');

  await referenceField().fill(DEMO_OBJECTS.current);
  await Promise.all([page.waitForURL(/\/verify\?reference=/), page.getByRole('button', { name: 'Check status' }).click()]);

  const result = page.locator('.card').getByRole('status');
  await expect(result.textContent()).resolves.toMatch(/Trusted|Unverified/);
  const body = await page.locator('main').innerText();
  expect(body).toContain('Delivered');
  expect(body).toContain('ORDER 2026-0001');
  expect(await referenceField().inputValue()).toBe(DEMO_OBJECTS.current);
  await page.screenshot({ path: SCREENSHOTS.verify, fullPage: true });

  await Promise.all([page.waitForURL(/\/trust-receipt\//), page.getByRole('link', { name: 'Full trust receipt' }).click()]);
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Trust receipt');
  const receipt = await page.locator('main').innerText();
  expect(receipt).toContain('Delivered');
  expect(receipt).toMatch(/State changed from Shipped to\s+Delivered/);
  expect(receipt).toContain('Not disclosed');
  for (const secret of DEMO_RESTRICTED_VALUES) expect(receipt).not.toContain(secret);
  await page.screenshot({ path: SCREENSHOTS.receipt, fullPage: true });
});

test('a cancelled order reads as ended, saying how it ended, and an unknown reference as not found, inside the form page', async () => {
  await page.goto(`${service.url}/verify`);
  await referenceField().fill(DEMO_OBJECTS.revoked);
  await Promise.all([page.waitForURL(/reference=/), page.getByRole('button', { name: 'Check status' }).click()]);
  await expect(page.locator('.card').getByRole('status').textContent()).resolves.toBe('Ended It was cancelled: it no longer gives anyone a right.');

  await referenceField().fill('ORD-0000-NONE');
  const [response] = await Promise.all([page.waitForResponse(/reference=ORD-0000-NONE/), page.getByRole('button', { name: 'Check status' }).click()]);
  expect(response.status()).toBe(404);
  await page.waitForLoadState();
  await expect(page.getByRole('alert').textContent()).resolves.toContain("No record is held under reference 'ORD-0000-NONE'");
});

test('the browser refuses to submit a malformed reference (the field carries the reference rules)', async () => {
  await page.goto(`${service.url}/verify`);
  await referenceField().fill('<b>x</b>');
  const valid = await referenceField().evaluate((input) => (input as unknown as { checkValidity(): boolean }).checkValidity());
  expect(valid).toBe(false);
  await referenceField().fill(` ${DEMO_OBJECTS.stale} `);
  expect(await referenceField().evaluate((input) => (input as unknown as { checkValidity(): boolean }).checkValidity())).toBe(true);
});

test('the studio shows the live status and links the catalogues, with no policy violation on any page', async () => {
  const response = await page.goto(`${service.url}/studio`);
  expect(response?.status()).toBe(200);
  const text = await page.locator('main').innerText();
  expect(text).toContain('Service status');
  expect(text).toMatch(/TABLE_REACHABLE\s+Passed/);
  expect(text).toContain('/v1/trust-infrastructure');
  await page.screenshot({ path: SCREENSHOTS.studio, fullPage: true });
  // The inline style is allowed by hash: if the policy blocked it, the status badge would have no border.
  const border = await page.locator('.status').first().evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { borderTopStyle: string } }).getComputedStyle(el).borderTopStyle);
  expect(border).toBe('solid');
  expect(cspViolations).toEqual([]);
});
