import { createHash } from 'node:crypto';
import { SITE_PATHS } from '../../contract/site-paths';

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
footer{max-width:60rem;margin:2rem auto;padding:1rem;color:var(--muted);border-top:1px solid var(--line);font-size:.9rem}
`.trim();

const styleHash = createHash('sha256').update(STYLE).digest('base64');

/**
 * No script, no external resource: the pages work without JavaScript and the policy says so.
 * The one inline style block is allowed by its hash; forms may only submit to this origin.
 */
export const PAGE_CSP = [
  "default-src 'none'",
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
  // Pages show live state and errors negotiate on Accept: never reuse a stored copy.
  'cache-control': 'no-store',
  vary: 'Accept',
};

export interface PageInput {
  title: string;
  baseUrl: string;
  main: SafeHtml;
  /** Wide layout for tables of many columns (studio). */
  wide?: boolean;
}

/** The shared page frame: language, landmarks, skip link, navigation and the disclosure footer. */
export function pageDocument({ title, baseUrl, main, wide }: PageInput): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · Public Trust and Verification</title>
<link rel="icon" href="${baseUrl}${SITE_PATHS.favicon}" type="image/svg+xml">
<style>${raw(STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site"><nav aria-label="Service">
<span class="name">Public Trust and Verification</span>
<a href="${baseUrl}/verify">Verify</a>
<a href="${baseUrl}/studio">Studio</a>
</nav></header>
<main id="main"${wide ? html` class="wide"` : ''}>
${main}
</main>
<footer>
<p>Public and read-only. Pages and responses never contain customer personal data or payment account data.
Ledger evidence proves integrity only, never authority.</p>
</footer>
</body>
</html>
`.value;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An instant for a person (UTC, minutes) inside <time> carrying the exact value for machines. */
export function timeElement(instant: string | null | undefined): SafeHtml {
  if (!instant) return html`<span class="muted">never</span>`;
  const ms = Date.parse(instant);
  if (Number.isNaN(ms)) return html`${instant}`;
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  const text = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
  return html`<time datetime="${d.toISOString()}">${text}</time>`;
}
