import { createHash } from 'node:crypto';
import { RECEIPT_SCRIPT } from '../../functions/generated/receipt-script';
import fc from 'fast-check';
import { escapeHtml, html, raw } from '../../functions/pages/markup';
import { PAGE_CSP, PAGE_HEADERS, pageDocument, timeElement } from '../../functions/pages/frame';
import { prefersHtml } from '../../functions/pages/negotiation';

describe('html template', () => {
  it('escapes every interpolated string, so no input can open a tag or leave an attribute', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const out = html`<p title="${text}">${text}</p>`.value;
        expect(html`${text}`.value).not.toMatch(/[<>"']/);
        expect(out.split('"').length).toBe(3);
        expect(out).toBe(`<p title="${escapeHtml(text)}">${escapeHtml(text)}</p>`);
      }),
    );
  });

  it('passes SafeHtml through, joins arrays and drops null, undefined and false', () => {
    const items = ['a<b', 'c&d'];
    expect(html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>${null}${undefined}${false}${raw('<hr>')}`.value).toBe(
      '<ul><li>a&lt;b</li><li>c&amp;d</li></ul><hr>',
    );
    expect(escapeHtml(`"'`)).toBe('&quot;&#39;');
  });

  it('writes instants for people with the exact value for machines', () => {
    expect(timeElement('2026-03-04T05:06:07.000+01:00').value).toBe('<time datetime="2026-03-04T04:06:07.000Z">Mar 4, 2026, 04:06 AM UTC</time>');
    expect(timeElement(null).value).toContain('never');
  });
});

describe('page frame and policy', () => {
  const page = pageDocument({ title: 'T <x>', baseUrl: 'https://svc.example', main: html`<p>hi</p>` });

  it('is a complete, language-tagged document with landmarks and no script', () => {
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain('<html lang="en">');
    expect(page).toMatch(/<main id="main">/);
    expect(page).toContain('<title>T &lt;x&gt; &middot; Public Trust and Verification</title>');
    expect(page).not.toMatch(/<script/i);
    expect(page).toContain('href="https://svc.example/verify"');
  });

  it('allows its one inline style by hash and nothing else', () => {
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)![1];
    const hash = createHash('sha256').update(style).digest('base64');
    expect(PAGE_CSP).toContain(`style-src 'sha256-${hash}'`);
    expect(PAGE_CSP).toContain("default-src 'none'");
    expect(PAGE_CSP).toContain("frame-ancestors 'none'");
    expect(PAGE_CSP).toContain("form-action 'self'");
    expect(PAGE_CSP).not.toMatch(/unsafe-inline|unsafe-eval/);
    // One script may run: the trust receipt's ledger check, by the hash of its exact text.
    expect(PAGE_CSP).toContain(`script-src 'sha256-${createHash('sha256').update(RECEIPT_SCRIPT).digest('base64')}';`);
    expect(PAGE_HEADERS['content-security-policy']).toBe(PAGE_CSP);
    // How long a page may be kept and what it varies on come from its route's row of the contract table (cache-policy.ts).
    expect(PAGE_HEADERS).not.toHaveProperty('cache-control');
    expect(PAGE_HEADERS).not.toHaveProperty('vary');
  });
});

describe('prefersHtml', () => {
  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8', true],
    ['text/html', true],
    ['application/xhtml+xml', true],
    ['*/*', false],
    [undefined, false],
    ['', false],
    ['application/json', false],
    ['application/problem+json, text/html;q=0.5', false],
    ['text/html;q=0.9, application/json;q=0.8', true],
    ['text/html;q=0', false],
    ['TEXT/HTML', true],
    ['text/html;q=abc', false],
  ])('%s -> %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });
});
