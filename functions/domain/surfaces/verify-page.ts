import type { CommercialProofEvidence } from '../../contract/schemas/proofs';
import { html, pageDocument, segment, type SafeHtml } from './html';
import { proofStatusCard } from './proof-presentation';
import { objectLinksList, statusCard, type ResolutionView } from './presentation';

/** The kinds of record /verify can point to beyond living objects, and where their answer lives. */
export const OTHER_KIND_ROUTES: Record<string, { label: string; path: (ref: string) => string }> = {
  CREDENTIAL: { label: 'a credential', path: (ref) => `/v1/credentials/verify/${ref}` },
};

export type VerifyOutcome =
  | { kind: 'form' }
  | ({ kind: 'object' } & ResolutionView)
  | { kind: 'proof'; evidence: CommercialProofEvidence }
  | { kind: 'other-kind'; reference: string; recordKind: string }
  | { kind: 'problem'; status: number; title: string; detail: string; correlationId: string };

export interface VerifyPageInput {
  baseUrl: string;
  /** What the person typed, shown back in the field (escaped). */
  entered?: string;
  outcome: VerifyOutcome;
  ledgerUrl?: string;
}

/** The characters a reference may hold, as an HTML pattern (v-flag syntax); surrounding spaces are trimmed by the server. */
export const REFERENCE_INPUT_PATTERN = String.raw`\s*[A-Za-z0-9][A-Za-z0-9._:~\-]*\s*`;

export function lookupForm(baseUrl: string, entered: string | undefined, invalid: boolean): SafeHtml {
  return html`<form class="lookup" method="get" action="${baseUrl}/verify" role="search" aria-label="Verify a reference">
<label for="reference">Reference</label>
<input id="reference" name="reference" type="text" required minlength="3" maxlength="200" pattern="${REFERENCE_INPUT_PATTERN}"
 autocomplete="off" autocapitalize="none" spellcheck="false" inputmode="text" aria-describedby="reference-hint"${invalid ? html` aria-invalid="true"` : ''} value="${entered ?? ''}">
<button type="submit">Check status</button>
<p id="reference-hint" class="hint">As printed on a receipt or encoded in a QR code: 3 to 180 letters, digits and <code>. _ : ~ -</code>, for example <code>ORD-2026-0001</code>.</p>
</form>`;
}

function outcomeSection(input: VerifyPageInput): SafeHtml {
  const { outcome, baseUrl } = input;
  switch (outcome.kind) {
    case 'form':
      return html``;
    case 'object': {
      const reference = String(outcome.resolution.object.reference ?? input.entered ?? '');
      return html`${statusCard(outcome, 'result-heading')}
<h2>Next</h2>
${objectLinksList(baseUrl, reference, 'verify', input.ledgerUrl)}`;
    }
    case 'proof': {
      const ref = segment(outcome.evidence.proof.reference);
      return html`${proofStatusCard(outcome.evidence, baseUrl, 'result-heading')}
<h2>Next</h2>
<ul>
<li><a href="${baseUrl}/trust-receipt/${ref}">Full trust receipt</a>, with the timeline</li>
<li><a href="${baseUrl}/v1/commercial-proofs/${ref}">Machine-readable evidence (JSON)</a></li>
${input.ledgerUrl ? html`<li><a href="${input.ledgerUrl}">Ledger origin and verifier key</a>, to re-check the integrity evidence yourself</li>` : ''}
</ul>`;
    }
    case 'other-kind': {
      const route = OTHER_KIND_ROUTES[outcome.recordKind];
      return html`<section class="card" aria-labelledby="result-heading">
<h2 id="result-heading">Reference <code>${outcome.reference}</code></h2>
<p role="status">This reference is ${route ? route.label : 'not a living object'}, so it has no lifecycle receipt.
${route ? html`Its public verification answer is <a href="${baseUrl}${route.path(segment(outcome.reference))}">here (JSON)</a>.` : ''}</p>
</section>`;
    }
    case 'problem':
      return html`<section class="error" role="alert" aria-labelledby="result-heading">
<h2 id="result-heading">${outcome.title}</h2>
<p>${outcome.detail}</p>
<p class="muted">Status ${outcome.status}. Correlation id <code>${outcome.correlationId}</code> (quote it if you ask for help).</p>
</section>`;
  }
}

/** /verify: the entry form, and below it the answer for the reference entered, if any. */
export function renderVerifyPage(input: VerifyPageInput): string {
  const invalid = input.outcome.kind === 'problem' && input.outcome.status === 400;
  const main = html`<h1>Verify a reference</h1>
<p>Enter the reference printed on a receipt, label or credential to see what is true about it right now.</p>
${lookupForm(input.baseUrl, input.entered, invalid)}
${outcomeSection(input)}`;
  const title =
    input.outcome.kind === 'object'
      ? `Status of ${String(input.outcome.resolution.object.reference ?? '')}`
      : input.outcome.kind === 'proof'
        ? `Status of ${input.outcome.evidence.proof.reference}`
        : 'Verify';
  return pageDocument({ title, baseUrl: input.baseUrl, main });
}
