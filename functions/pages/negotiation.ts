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
