import { createHash } from 'node:crypto';
import { SITE_PATHS } from '../../contract/site-paths';
import { RECEIPT_SCRIPT_SHA256 } from '../../generated/receipt-script';
import { englishFrame, type FrameWords } from './i18n';
import type { LanguageLink } from './page-languages';

/** Markup that is already safe: produced by `html` or `raw` only. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/**
 * Template tag that escapes every interpolated value unless it is SafeHtml, so page code cannot
 * forget to escape: data from a record is text, never markup. Attribute values must be quoted.
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0];
  values.forEach((v, i) => (out += render(v) + strings[i + 1]));
  return new SafeHtml(out);
}

/** Trusted constant markup (never record data). */
export const raw = (markup: string): SafeHtml => new SafeHtml(markup);

/** Path segment for a reference inside a URL, then escaped by `html` when placed in an attribute. */
export const segment = (value: string): string => encodeURIComponent(value);

/** Timeline rows a printed page keeps (the newest); the page says so on paper and its QR code opens the rest. */
export const PRINTED_TIMELINE_ROWS = 8;

const STYLE = `
:root{color-scheme:light;--ink:#1b1f24;--muted:#4a5560;--line:#d5dbe1;--bg:#f6f8fa;--ok:#0b6b2f;--warn:#8a5300;--bad:#a01616;--info:#1f4f99}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:#fff}
a{color:var(--info)}
a:focus,button:focus,input:focus{outline:3px solid #f5a623;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px}
header.site{background:var(--ink);color:#fff;padding:.75rem 1rem}
header.site a{color:#fff;margin-right:1rem}
header.site .name{font-weight:700;margin-right:2rem}
main{max-width:60rem;margin:0 auto;padding:1rem}
main.wide{max-width:80rem}
td.path code{font-size:.85em}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
.card{border:1px solid var(--line);border-radius:6px;padding:1rem;background:var(--bg);margin:1rem 0}
.status{display:inline-block;font-weight:700;padding:.15rem .6rem;border-radius:4px;border:2px solid currentColor}
.status.ok{color:var(--ok)}.status.warn{color:var(--warn)}.status.bad{color:var(--bad)}.status.info{color:var(--info)}
dl.facts{display:grid;grid-template-columns:minmax(10rem,max-content) 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
caption{text-align:left;color:var(--muted);padding:.25rem 0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.95em;overflow-wrap:anywhere}
form.lookup{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
form.lookup label{display:block;font-weight:600;width:100%}
form.lookup input{font:inherit;padding:.45rem .6rem;border:2px solid var(--muted);border-radius:4px;min-width:16rem;flex:1}
form.lookup button{font:inherit;font-weight:600;padding:.45rem 1.2rem;border:0;border-radius:4px;background:var(--info);color:#fff;cursor:pointer}
.hint,.muted{color:var(--muted)}
.error{border-left:4px solid var(--bad);padding:.5rem 1rem;background:#fff5f5}
.card h2{margin-top:0}
.scroll{overflow-x:auto}
td time,td.path code{white-space:nowrap}
@media (max-width:40rem){dl.facts{grid-template-columns:1fr;gap:0}dl.facts dd{margin-bottom:.5rem}header.site .name{display:block;margin-bottom:.25rem}td time,td.path code{white-space:normal}th,td{overflow-wrap:anywhere;padding:.3rem .25rem}}
.print-only{display:none}
footer{max-width:60rem;margin:2rem auto;padding:1rem;color:var(--muted);border-top:1px solid var(--line);font-size:.9rem}
nav.langs{float:right}nav.langs a{margin:0 0 0 .75rem}nav.langs a[aria-current]{font-weight:700;text-decoration:none}
.device [data-verification]{border-left:6px solid var(--info);padding:.5rem 1rem;background:var(--bg);font-weight:600}
.device [data-verification=verified]{border-color:var(--ok)}.device [data-verification=failed]{border-color:var(--bad)}
.share{display:flex;flex-wrap:wrap;gap:1rem;align-items:center}.share svg{width:9rem;height:9rem;flex:none}
@media print{@page{size:auto;margin:12mm}
html,body{font-size:11px;line-height:1.3}header.site,footer,.skip,nav.langs,form.lookup,#device-details,.noprint{display:none}
main{max-width:none;padding:0}h1{font-size:15px;margin:0 0 .25rem}h2{font-size:12px;margin:.5rem 0 .2rem;padding:0;break-after:avoid}
.card{padding:.35rem .5rem;margin:.35rem 0;break-inside:avoid}section{break-inside:avoid}table{margin:.2rem 0}th,td{padding:.05rem .3rem}caption{padding:0}
tbody tr:nth-child(n+${PRINTED_TIMELINE_ROWS + 1}){display:none}.print-only{display:block}
.scroll{overflow:visible}a{color:inherit;text-decoration:none}.share svg{width:24mm;height:24mm}p{margin:.3rem 0}
.device [data-verification]{padding:.2rem .5rem}.status{border-width:1px;padding:0 .3rem}}
`.trim();

const styleHash = createHash('sha256').update(STYLE).digest('base64');

/**
 * No external resource, and one script: the trust receipt's own ledger check, allowed by its hash
 * (no other script, inline handler or eval can run). The pages work without it. The one inline
 * style block is allowed by its hash; forms may only submit to this origin.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `script-src 'sha256-${RECEIPT_SCRIPT_SHA256}'`,
  `style-src 'sha256-${styleHash}'`,
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers every page carries (the boundary adds content type, nosniff and the correlation id). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  // Pages show live state, errors negotiate on Accept and words on Accept-Language: never reuse a stored copy.
  'cache-control': 'no-store',
  vary: 'Accept, Accept-Language',
};

export interface PageInput {
  title: string;
  baseUrl: string;
  main: SafeHtml;
  /** Wide layout for tables of many columns (studio). */
  wide?: boolean;
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
export function pageDocument({ title, baseUrl, main, wide, t = englishFrame, languages, jsonAlternate }: PageInput): string {
  const lang = t.locale.lang;
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · ${t('frame.serviceName')}</title>
<link rel="icon" href="${baseUrl}${SITE_PATHS.favicon}" type="image/svg+xml">
${jsonAlternate ? html`<link rel="alternate" type="application/json" href="${jsonAlternate}">
` : ''}${languages ? languages.map((l) => html`<link rel="alternate" hreflang="${l.lang}" href="${l.href}">
`) : ''}<style>${raw(STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">${t('frame.skip')}</a>
<header class="site"><nav aria-label="${t('frame.nav')}">
<span class="name">${t('frame.serviceName')}</span>
<a href="${baseUrl}/verify${languages ? html`?lang=${lang}` : ''}">${t('frame.verify')}</a>
<a href="${baseUrl}/studio">${t('frame.studio')}</a>
</nav></header>
<main id="main"${wide ? html` class="wide"` : ''}>
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
