import { html, type SafeHtml } from './markup';
import { englishFrame, isFrameKey, type FrameWords } from './i18n';

/*
 * The lookup form and the way a problem reads for a person: shared by /verify, the error pages
 * and /studio, in the page's language (English unless the page speaks others).
 */

/** The characters a reference may hold, as an HTML pattern (v-flag syntax); surrounding spaces are trimmed by the server. */
export const REFERENCE_INPUT_PATTERN = String.raw`\s*[A-Za-z0-9][A-Za-z0-9._:~\-]*\s*`;

export function lookupForm(baseUrl: string, entered: string | undefined, invalid: boolean, t: FrameWords = englishFrame): SafeHtml {
  return html`<form class="lookup" method="get" action="${baseUrl}/verify" role="search" aria-label="${t('form.ariaLabel')}">
<label for="reference">${t('form.label')}</label>
<input id="reference" name="reference" type="text" required minlength="3" maxlength="200" pattern="${REFERENCE_INPUT_PATTERN}"
 autocomplete="off" autocapitalize="none" spellcheck="false" inputmode="text" aria-describedby="reference-hint"${invalid ? html` aria-invalid="true"` : ''} value="${entered ?? ''}">
${t.locale.lang === 'en' ? '' : html`<input type="hidden" name="lang" value="${t.locale.lang}">`}
<button type="submit">${t('form.submit')}</button>
<p id="reference-hint" class="hint">${t('form.hint')}</p>
</form>`;
}

interface ProblemView {
  status: number;
  code?: string;
  title: string;
  detail: string;
  correlationId: string;
}

/** A problem's title in the page's language: the catalogue's, by problem code, else the service's (English). */
export function problemTitle(problem: ProblemView, t: FrameWords): SafeHtml {
  const key = `problem.${problem.code ?? ''}`;
  if (problem.code && isFrameKey(key)) return t(key);
  return t.locale.lang === 'en' ? html`${problem.title}` : t('problem.other');
}

/**
 * A problem for a person: an explanation in the page's language (by problem code), the status and
 * correlation id, and the service's own detail (English technical text) one click away. With a heading id
 * it carries its title as a heading (on /verify); the error page has it as its h1.
 */
export function problemSection(problem: ProblemView, t: FrameWords, headingId?: string): SafeHtml {
  const explainKey = `problem.explain.${problem.code ?? ''}`;
  const explain = t(problem.code && isFrameKey(explainKey) ? explainKey : 'problem.explain.other');
  const status = problem.code
    ? t('problem.statusCode', { status: problem.status, code: problem.code, correlationId: problem.correlationId })
    : t('problem.status', { status: problem.status, correlationId: problem.correlationId });
  return html`<section class="error" role="alert"${headingId ? html` aria-labelledby="${headingId}"` : ''}>
${headingId ? html`<h2 id="${headingId}">${problemTitle(problem, t)}</h2>` : ''}
<p>${explain}</p>
<p class="muted">${status}</p>
<details class="codes"><summary>${t('problem.detailLabel')}</summary><p lang="en">${problem.detail}</p></details>
</section>`;
}

