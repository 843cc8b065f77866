/**
 * Markup the pages build: text is escaped unless it is SafeHtml, so page code cannot forget to
 * escape record data. Nothing here depends on the pages' words or frame (functions/pages/frame.ts).
 */
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


/**
 * A machine code such as NOT_CONFIGURED, a path or an address as text that a narrow screen wraps
 * after an underscore or a slash, never inside a word: browsers break neither there on their own
 * (a <wbr> after each; copying the text copies it as it is).
 */
export const codeText = (value: string): SafeHtml => new SafeHtml(escapeHtml(value).replace(/([_/])(?=[^_/])/g, '$1<wbr>'));

/** A machine code, path or address in a <code> element, wrapping after its underscores and slashes (codeText). */
export const code = (value: string, className?: string): SafeHtml => html`<code${className ? html` class="${className}"` : ''}>${codeText(value)}</code>`;
