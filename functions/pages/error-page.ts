import { html } from './markup';
import { pageDocument } from './frame';
import { englishFrame, type FrameWords } from './i18n';
import { lookupForm, problemSection, problemTitle } from './lookup';

export interface ErrorPageInput {
  baseUrl: string;
  status: number;
  title: string;
  detail: string;
  code: string;
  correlationId: string;
  /** The page's language (English when absent). */
  t?: FrameWords;
}

/**
 * The HTML face of a problem (same status, code, detail and correlation id as the problem details
 * a JSON client gets), in the page's language, with the verify form so a person can try again.
 */
export function renderErrorPage(input: ErrorPageInput): string {
  const t = input.t ?? englishFrame;
  const title = problemTitle(input, t);
  const main = html`<h1>${title}</h1>
${problemSection(input, t)}
<h2>${t('form.again')}</h2>
${lookupForm(input.baseUrl, undefined, false, t)}`;
  return pageDocument({ title: title.value, baseUrl: input.baseUrl, main, t });
}
