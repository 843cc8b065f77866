import type { CredentialVerification } from '../contract/schemas/credentials';
import type { CommercialProofEvidence } from '../contract/schemas/proofs';
import { credentialLinksList, credentialStatusCard } from './credential-presentation';
import { deviceCheckSection, type DeviceCheckInput } from './device-check';
import { html, segment, type SafeHtml } from './markup';
import { pageDocument } from './frame';
import { type Lang, type Translator } from './i18n';
import { lookupForm, problemSection } from './lookup';
import { english, languageLinks } from './page-languages';
import { proofStatusCard } from './proof-presentation';
import { objectLinksList, statusCard, type IntegrityKind, type ResolutionView } from './presentation';

export type VerifyOutcome =
  | { kind: 'form' }
  | ({ kind: 'object'; device?: DeviceCheckInput } & ResolutionView)
  | { kind: 'proof'; evidence: CommercialProofEvidence; integrity?: IntegrityKind; device?: DeviceCheckInput }
  | { kind: 'credential'; verification: CredentialVerification; integrity: IntegrityKind; device?: DeviceCheckInput }
  | { kind: 'other-kind'; reference: string; recordKind: string }
  | { kind: 'problem'; status: number; code?: string; title: string; detail: string; correlationId: string };

export interface VerifyPageInput {
  baseUrl: string;
  /** What the person typed, shown back in the field (escaped). */
  entered?: string;
  outcome: VerifyOutcome;
  ledgerUrl?: string;
  /** The page's language (English when absent). */
  t?: Translator;
}

function outcomeSection(input: VerifyPageInput, t: Translator): SafeHtml {
  const { outcome, baseUrl } = input;
  switch (outcome.kind) {
    case 'form':
      return html``;
    case 'object': {
      const reference = String(outcome.resolution.object.reference ?? input.entered ?? '');
      return html`${statusCard(outcome, 'result-heading', t)}
${outcome.device ? deviceCheckSection(outcome.device, t) : ''}
<h2>${t('verify.next')}</h2>
${objectLinksList(baseUrl, reference, 'verify', input.ledgerUrl, t)}`;
    }
    case 'proof': {
      const ref = segment(outcome.evidence.proof.reference);
      return html`${proofStatusCard(outcome.evidence, baseUrl, 'result-heading', t, outcome.integrity)}
${outcome.device ? deviceCheckSection(outcome.device, t) : ''}
<h2>${t('verify.next')}</h2>
<ul>
<li><a href="${baseUrl}/trust-receipt/${ref}?lang=${t.locale.lang}">${t('receipt.fullReceipt')}</a></li>
<li><a href="${baseUrl}/v1/commercial-proofs/${ref}" type="application/json">${t('receipt.proofJson')}</a></li>
${input.ledgerUrl ? html`<li><a href="${input.ledgerUrl}" type="application/json">${t('receipt.ledger')}</a></li>` : ''}
</ul>`;
    }
    case 'credential':
      return html`${credentialStatusCard(outcome.verification, 'result-heading', outcome.integrity, t)}
${outcome.device ? deviceCheckSection(outcome.device, t) : ''}
<h2>${t('verify.next')}</h2>
${credentialLinksList(baseUrl, outcome.verification.credentialId, 'verify', outcome.verification, input.ledgerUrl, t)}`;
    case 'other-kind':
      return html`<section class="card" aria-labelledby="result-heading">
<h2 id="result-heading">${t('card.reference')} <code>${outcome.reference}</code></h2>
<p role="status">${t('verify.otherKind')}</p>
</section>`;
    case 'problem':
      return problemSection(outcome, t, 'result-heading');
  }
}

/** The JSON answer behind a status shown on /verify (its rel=alternate), if it shows one. */
export function jsonAlternateOf(baseUrl: string, outcome: VerifyOutcome): string | undefined {
  if (outcome.kind === 'object') return `${baseUrl}/v1/objects/${segment(String(outcome.resolution.object.reference ?? ''))}`;
  if (outcome.kind === 'proof') return `${baseUrl}/v1/commercial-proofs/${segment(outcome.evidence.proof.reference)}`;
  if (outcome.kind === 'credential') return `${baseUrl}/v1/credentials/verify/${segment(outcome.verification.credentialId)}`;
  return undefined;
}

/** The reference whose status the page shows, if it shows one. */
function shownReference(outcome: VerifyOutcome): string | undefined {
  switch (outcome.kind) {
    case 'object':
      return String(outcome.resolution.object.reference ?? '');
    case 'proof':
      return outcome.evidence.proof.reference;
    case 'credential':
      return outcome.verification.credentialId;
    default:
      return undefined;
  }
}

/** /verify: the entry form, and below it the answer for the reference entered, if any. */
export function renderVerifyPage(input: VerifyPageInput): string {
  const t = input.t ?? english;
  const invalid = input.outcome.kind === 'problem' && input.outcome.status === 400;
  const main = html`<h1>${t('verify.heading')}</h1>
<p>${t('verify.intro')}</p>
${lookupForm(input.baseUrl, input.entered, invalid, t)}
${outcomeSection(input, t)}`;
  const shown = shownReference(input.outcome);
  const title = shown === undefined ? t.text('verify.title') : t.text('verify.titleFor', { reference: shown });
  const query = input.entered !== undefined ? `reference=${encodeURIComponent(input.entered)}&` : '';
  const jsonAlternate = jsonAlternateOf(input.baseUrl, input.outcome);
  return pageDocument({ title, baseUrl: input.baseUrl, main, t, languages: languageLinks(t, (lang: Lang) => `${input.baseUrl}/verify?${query}lang=${lang}`), jsonAlternate });
}
