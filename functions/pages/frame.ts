import { SITE_PATHS } from '../contract/site-paths';
import { PAGE_STYLE_SHA256 } from '../generated/page-style';
import { RECEIPT_SCRIPT_SHA256 } from '../generated/receipt-script';
import { PAGE_STYLE } from './page-style';
import { englishFrame, type FrameWords } from './i18n';
import { html, raw, type SafeHtml } from './markup';
import type { LanguageLink } from './language-links';

/**
 * No external resource, and one script: the trust receipt's own ledger check, allowed by its hash
 * (no other script, inline handler or eval can run). The pages work without it. The one inline
 * style block is allowed by its hash; forms may only submit to this origin.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `script-src 'sha256-${RECEIPT_SCRIPT_SHA256}'`,
  `style-src 'sha256-${PAGE_STYLE_SHA256}'`,
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers every page carries (the boundary adds content type, nosniff and the correlation id, and
 * Cache-Control and Vary from the route's row of the contract table).
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

export interface PageInput {
  title: string;
  baseUrl: string;
  main: SafeHtml;
  /** A second inline style block, which the page's own policy must allow by its hash (the API reference's). */
  extraStyle?: string;
  /** The page's language (English when absent). */
  t?: FrameWords;
  /** For pages offered in every language: this page in each (the switcher, hreflang links). */
  languages?: readonly LanguageLink[];
  /** The machine-readable form of what the page shows (rel=alternate). */
  jsonAlternate?: string;
}

function languageSwitcher(t: FrameWords, languages: readonly LanguageLink[]): SafeHtml {
  return html`<nav class="langs" aria-label="${t('frame.languages')}">
${languages.map((l) => html`<a href="${l.href}" lang="${l.lang}" hreflang="${l.lang}"${l.current ? html` aria-current="true"` : ''}>${l.name}</a>\n`)}</nav>`;
}

/** The shared page frame: language, landmarks, skip link, navigation and the disclosure footer. */
export function pageDocument({ title, baseUrl, main, extraStyle, t = englishFrame, languages, jsonAlternate }: PageInput): string {
  const lang = t.locale.lang;
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} &middot; ${t('frame.serviceName')}</title>
<link rel="icon" href="${baseUrl}${SITE_PATHS.favicon}" type="image/svg+xml">
${jsonAlternate ? html`<link rel="alternate" type="application/json" href="${jsonAlternate}">
` : ''}${languages ? languages.map((l) => html`<link rel="alternate" hreflang="${l.lang}" href="${l.href}">
`) : ''}<style>${raw(PAGE_STYLE)}</style>
${extraStyle ? html`<style>${raw(extraStyle)}</style>
` : ''}</head>
<body>
<a class="skip" href="#main">${t('frame.skip')}</a>
<header class="site"><nav aria-label="${t('frame.nav')}">
<a class="name" href="${baseUrl}/${languages ? html`?lang=${lang}` : ''}">${t('frame.serviceName')}</a>
<a href="${baseUrl}/verify${languages ? html`?lang=${lang}` : ''}">${t('frame.verify')}</a>
<a href="${baseUrl}/studio">${t('frame.studio')}</a>
</nav></header>
<main id="main">
${languages ? languageSwitcher(t, languages) : ''}
${main}
</main>
<footer>
<p>${t('frame.footer')}</p>
</footer>
</body>
</html>
`.value;
}

/** An instant for a person, in the page's locale and in UTC (zone stated), inside <time> carrying the exact value. */
export function timeElement(instant: string | null | undefined, t: FrameWords = englishFrame): SafeHtml {
  if (!instant) return html`<span class="muted">${t('time.never')}</span>`;
  const ms = Date.parse(instant);
  if (Number.isNaN(ms)) return html`${instant}`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${t.instant(iso)}</time>`;
}
