import type { CredentialVerification } from '../contract/schemas/credentials';
import type { LivingObjectResolution, TimelineEntry } from '../contract/schemas/objects';
import type { CommercialProofEvidence } from '../contract/schemas/proofs';
import type { CredentialTimelineEntry } from '../domain/credentials/model';
import type { ProofTimelineEntry } from '../domain/proofs';
import { credentialLinksList, credentialStatusCard, credentialTimeline } from './credential-presentation';
import { deviceCheckSection, type DeviceCheckInput } from './device-check';
import { code, html, segment, type SafeHtml } from './markup';
import { pageDocument, timeElement } from './frame';
import { PRINTED_TIMELINE_ROWS } from './page-style';
import { type Lang, type Translator } from './i18n';
import { english, languageLinks } from './page-languages';
import { proofStatusCard, proofTimeline } from './proof-presentation';
import { objectLinksList, partyName, rightsSection, stateWord, statusCard, type IntegrityKind, type ResolutionView } from './presentation';
import { qrCode } from './qr';

interface ReceiptCommon {
  baseUrl: string;
  reference: string;
  /** True when older timeline entries exist than the window shown. */
  olderEntriesExist: boolean;
  ledgerUrl?: string;
  /** The page's language (English when absent). */
  t?: Translator;
  /** The version shown, its ledger evidence and the published keys, for the check on the visitor's device. */
  device?: DeviceCheckInput;
}

export type TrustReceiptInput = ReceiptCommon & ResolutionView;

/** Where a receipt lives: without a language, so whoever scans or follows it reads it in theirs. */
export const receiptUrl = (baseUrl: string, reference: string): string => `${baseUrl}/trust-receipt/${segment(reference)}`;

/** A receipt's page: its title, this receipt in each language, and its JSON answer as the alternate. */
function receiptDocument(input: ReceiptCommon, t: Translator, main: SafeHtml, jsonAlternate: string): string {
  const languages = languageLinks(t, (lang: Lang) => `${receiptUrl(input.baseUrl, input.reference)}?lang=${lang}`);
  return pageDocument({ title: t.text('receipt.title', { reference: input.reference }), baseUrl: input.baseUrl, main, t, languages, jsonAlternate });
}

function describeEntry(entry: TimelineEntry, t: Translator): SafeHtml {
  if (entry.type === 'STATE_CHANGED') {
    return entry.previousState
      ? t('timeline.changed', { from: stateWord(entry.previousState, t), to: stateWord(entry.state, t) })
      : t('timeline.recorded', { state: stateWord(entry.state, t) });
  }
  return t('timeline.observed', { state: stateWord(entry.state, t) });
}

function timelineSection(input: TrustReceiptInput, t: Translator): SafeHtml {
  const entries = [...(input.resolution.timeline ?? [])].reverse();
  if (entries.length === 0) return html`<h2 id="timeline-heading">${t('timeline.heading')}</h2><p>${t('timeline.empty')}</p>`;
  return html`<section aria-labelledby="timeline-heading">
<h2 id="timeline-heading">${t('timeline.heading')}</h2>
<div class="scroll"><table class="rows">
<caption>${t('timeline.caption', { count: entries.length, older: input.olderEntriesExist ? 'yes' : 'no' })}</caption>
<thead><tr><th scope="col">${t('timeline.when')}</th><th scope="col">${t('timeline.what')}</th><th scope="col">${t('timeline.source')}</th></tr></thead>
<tbody>
${entries.map((e) => html`<tr><td>${timeElement(e.at, t)}</td><td>${describeEntry(e, t)}</td><td>${partyName(e.source, t)}</td></tr>\n`)}
</tbody>
</table></div>
${entries.length > PRINTED_TIMELINE_ROWS ? html`<p class="print-only">${t('timeline.printNote')}</p>` : ''}
${input.olderEntriesExist ? html`<p class="noprint">${t('timeline.fullHistory', { href: `${input.baseUrl}/v1/objects/${segment(input.reference)}` })}</p>` : ''}
</section>`;
}

/** The QR code of the receipt's address, to open it on another device or keep it on paper. */
function shareSection(input: ReceiptCommon, t: Translator): SafeHtml {
  const url = receiptUrl(input.baseUrl, input.reference);
  return html`<section aria-labelledby="share-heading">
<h2 id="share-heading">${t('receipt.shareHeading')}</h2>
<div class="share">${qrCode(url, t.text('receipt.qrLabel', { url }))}
<p>${t('receipt.qrHint')}<br>${code(url)}</p></div>
</section>`;
}

const deviceSection = (input: ReceiptCommon, t: Translator): SafeHtml | '' => (input.device ? deviceCheckSection(input.device, t) : '');

/** /trust-receipt/{reference}: the resolution of a living object for a person, lifecycle first. */
export function renderTrustReceipt(input: TrustReceiptInput): string {
  const t = input.t ?? english;
  const resolution: LivingObjectResolution = input.resolution;
  const main = html`<h1>${t('receipt.heading')}</h1>
<p class="muted">${t('receipt.intro', { reference: input.reference, at: timeElement(resolution.current.evaluatedAt, t) })} ${t('time.zoneNote')}</p>
${statusCard(input, 'status-heading', t)}
${deviceSection(input, t)}
${rightsSection(resolution, t)}
${timelineSection(input, t)}
<section aria-labelledby="check-heading">
<h2 id="check-heading">${t('receipt.checkHeading')}</h2>
${objectLinksList(input.baseUrl, input.reference, 'receipt', input.ledgerUrl, t)}
<p class="muted">${t('receipt.disclosure')}</p>
</section>
${shareSection(input, t)}`;
  return receiptDocument(input, t, main, `${input.baseUrl}/v1/objects/${segment(input.reference)}`);
}

export interface ProofReceiptInput extends ReceiptCommon {
  evidence: CommercialProofEvidence;
  integrity?: IntegrityKind;
  /** Timeline window, oldest first. */
  timeline: ProofTimelineEntry[];
}

/** /trust-receipt/{reference} for a commercial proof: the proof, where its source stands now, and its history. */
export function renderProofReceipt(input: ProofReceiptInput): string {
  const t = input.t ?? english;
  const ref = segment(input.reference);
  const main = html`<h1>${t('receipt.heading')}</h1>
<p class="muted">${t('receipt.proofIntro', { reference: input.reference, at: timeElement(String(input.evidence.verification.synchronization.evaluatedAt ?? ''), t) })} ${t('time.zoneNote')}</p>
${proofStatusCard(input.evidence, input.baseUrl, 'status-heading', t, input.integrity)}
${deviceSection(input, t)}
${proofTimeline(input.timeline, input.olderEntriesExist, t)}
<section aria-labelledby="check-heading">
<h2 id="check-heading">${t('receipt.checkHeading')}</h2>
<ul class="noprint">
<li><a href="${input.baseUrl}/verify?reference=${ref}&amp;lang=${t.locale.lang}">${t('receipt.checkAgain')}</a></li>
<li><a href="${input.baseUrl}/v1/commercial-proofs/${ref}" type="application/json">${t('receipt.proofJson')}</a></li>
${input.ledgerUrl ? html`<li><a href="${input.ledgerUrl}" type="application/json">${t('receipt.ledger')}</a></li>` : ''}
</ul>
<p class="muted">${t('receipt.disclosure')}</p>
</section>
${shareSection(input, t)}`;
  return receiptDocument(input, t, main, `${input.baseUrl}/v1/commercial-proofs/${ref}`);
}

export interface CredentialReceiptInput extends ReceiptCommon {
  verification: CredentialVerification;
  integrity: IntegrityKind;
  /** Timeline window, newest first. */
  timeline: CredentialTimelineEntry[];
}

/** /trust-receipt/{reference} for a credential: whether it holds, its checks and its history. */
export function renderCredentialReceipt(input: CredentialReceiptInput): string {
  const t = input.t ?? english;
  const ref = segment(input.reference);
  const v = input.verification;
  const main = html`<h1>${t('receipt.heading')}</h1>
<p class="muted">${t('receipt.credentialIntro', { reference: input.reference, at: timeElement(v.evaluatedAt, t) })} ${t('time.zoneNote')}</p>
${credentialStatusCard(v, 'status-heading', input.integrity, t)}
${deviceSection(input, t)}
${credentialTimeline(input.timeline, input.olderEntriesExist, t)}
<section aria-labelledby="check-heading">
<h2 id="check-heading">${t('receipt.checkHeading')}</h2>
${credentialLinksList(input.baseUrl, input.reference, 'receipt', v, input.ledgerUrl, t)}
<p class="muted">${t('receipt.disclosure')}</p>
</section>
${shareSection(input, t)}`;
  return receiptDocument(input, t, main, `${input.baseUrl}/v1/credentials/verify/${ref}`);
}

