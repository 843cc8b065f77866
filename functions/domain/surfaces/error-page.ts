import { html, pageDocument } from './html';
import { lookupForm } from './verify-page';

export interface ErrorPageInput {
  baseUrl: string;
  status: number;
  title: string;
  detail: string;
  code: string;
  correlationId: string;
}

/**
 * The HTML face of a problem (same status, title, detail, code and correlation id as the
 * problem details a JSON client gets), with the verify form so a person can try again.
 */
export function renderErrorPage(input: ErrorPageInput): string {
  const main = html`<h1>${input.title}</h1>
<section class="error" role="alert">
<p>${input.detail}</p>
<p class="muted">Status ${input.status}, code <code>${input.code}</code>. Correlation id <code>${input.correlationId}</code> (quote it if you ask for help).</p>
</section>
<h2>Verify another reference</h2>
${lookupForm(input.baseUrl, undefined, false)}`;
  return pageDocument({ title: input.title, baseUrl: input.baseUrl, main });
}
