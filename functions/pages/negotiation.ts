import { LANGUAGES, type Lang } from '../contract/languages';

/** Media types a page answers errors in when the caller prefers them (browsers do). */
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const PROBLEM_TYPES = new Set(['application/problem+json', 'application/json']);

/**
 * True when the Accept header explicitly prefers HTML over problem details. Wildcards count for
 * neither, so curl and fetch() (Accept: *\/*) get problem details, a browser gets a page.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let htmlQ = 0;
  let problemQ = 0;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.trim().toLowerCase().split(';');
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k === 'q') q = Number.isFinite(Number(v)) ? Math.min(1, Math.max(0, Number(v))) : 0;
    }
    if (HTML_TYPES.has(type.trim())) htmlQ = Math.max(htmlQ, q);
    if (PROBLEM_TYPES.has(type.trim())) problemQ = Math.max(problemQ, q);
  }
  return htmlQ > 0 && htmlQ >= problemQ;
}

/** True for a language the pages speak. */
export const isLang = (value: string): value is Lang => (LANGUAGES as readonly string[]).includes(value);

/**
 * A language range the pages read (RFC 4647 §2.1's basic language range, its primary subtag two or
 * three letters): anything else in Accept-Language (`de-`, `de--AT`, `*`) is passed over, here and
 * at the edge, whose function is given this same pattern (lib/stack/edge-negotiation.ts).
 */
export const LANGUAGE_RANGE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

/**
 * The page language an Accept-Language header asks for: its ranges by quality (RFC 9110 §12.5.4,
 * the first of equal quality first), the first that is a language range (LANGUAGE_RANGE) whose
 * primary subtag the pages speak (`*` and anything else are passed over), else English.
 * A language we do not have is passed over, never an error: a person asking for Italian gets the
 * next language they accept.
 *
 * This language is all a page takes from the header (a region it names does not change the page:
 * `?lang=de-AT` does), so the header has as many meanings as the pages have languages. A shared
 * cache in front of the service can therefore normalise Accept-Language to this value before it
 * looks up its copy (the edge does), and keep one copy per language instead of one per header a
 * browser happens to send.
 */
export function acceptedLanguage(acceptLanguage: string | undefined): Lang {
  const ranges = (acceptLanguage ?? '')
    .slice(0, 1024)
    .split(',')
    .map((part, order) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim().match(/^q=([01](?:\.\d{0,3})?)$/i)).find(Boolean);
      return { tag: tag.trim(), q: q ? Number(q[1]) : 1, order };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
  for (const range of ranges) {
    if (!LANGUAGE_RANGE.test(range.tag)) continue;
    const primary = range.tag.split('-')[0].toLowerCase();
    if (isLang(primary)) return primary;
  }
  return 'en';
}
