import type { CommercialProofEvidence, ProofVerificationStatus } from '../contract/schemas/proofs';
import type { ProofTimelineEntry } from '../domain/proofs';
import { assuranceLevelOf } from '../domain/surfaces/assurance';
import { html, segment, type SafeHtml } from './markup';
import { timeElement } from './frame';
import { PRINTED_TIMELINE_ROWS } from './page-style';
import { type Translator } from './i18n';
import { english } from './page-languages';
import { explained, integrityExplanation, stateWords } from './presentation';

type Tone = 'ok' | 'warn' | 'bad';

/** The colour of each proof verification status; it only repeats the word. */
export const PROOF_STATUS_TONES: Record<ProofVerificationStatus, Tone> = { CONFIRMED: 'ok', REVIEW_REQUIRED: 'warn', NOT_CONFIRMED: 'bad' };

/** The proof's verification status for a person: one label and one sentence, in the page's language. */
export function proofStatusWording(status: ProofVerificationStatus, t: Translator = english): { label: string; tone: Tone; sentence: SafeHtml } {
  return { label: t.text(`proof.${status}.label`), tone: PROOF_STATUS_TONES[status], sentence: t(`proof.${status}.sentence`) };
}

/** A claim name such as purchasedOn or coverage_ends, as words (Purchased on, Coverage ends). */
export const claimName = (name: string): string => {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const claimValue = (value: unknown, t: Translator): SafeHtml | string => (typeof value === 'boolean' ? (value ? t('words.yes') : t('words.no')) : String(value));

/** The status card of a commercial proof: verification, source lifecycle, integrity and its public claims. */
export function proofStatusCard(evidence: CommercialProofEvidence, baseUrl: string, headingId: string, t: Translator = english): SafeHtml {
  const { proof, verification } = evidence;
  const wording = proofStatusWording(verification.status, t);
  const source = verification.currentSourceStatus;
  const assurance = assuranceLevelOf({ disposition: source.disposition, fresh: source.fresh, evidenceIntegrityConfirmed: verification.proofVerified });
  const integrityReason = verification.ledger?.integrity?.reason ?? (verification.proofVerified ? 'Verified.' : 'No ledger evidence is held for this proof.');
  const claims = Object.entries(proof.claims ?? {});
  return html`<section class="card" aria-labelledby="${headingId}">
<h2 id="${headingId}">${proof.title}</h2>
<p role="status"><span class="status ${wording.tone}">${wording.label}</span> ${wording.sentence}</p>
<dl class="facts">
<dt>${t('proof.kind')}</dt><dd>${stateWords(proof.proofType)}</dd>
<dt>${t('card.reference')}</dt><dd><code>${proof.reference}</code></dd>
<dt>${t('proof.issuedBy')}</dt><dd>${proof.issuer}, ${timeElement(proof.issuedAt, t)}</dd>
${proof.subjectReference ? html`<dt>${t('proof.about')}</dt><dd><a href="${baseUrl}/trust-receipt/${segment(proof.subjectReference)}?lang=${t.locale.lang}"><code>${proof.subjectReference}</code></a></dd>` : ''}
${claims.map(([name, value]) => html`<dt${t.locale.lang === 'en' ? '' : html` lang="en"`}>${claimName(name)}</dt><dd>${claimValue(value, t)}</dd>\n`)}
<dt>${t('proof.source')}</dt><dd>${String(verification.synchronization.sourceSystem ?? '')}: ${stateWords(source.state)} <code class="muted">(${source.state})</code></dd>
<dt>${t('proof.sourceDisposition')}</dt><dd><code>${source.disposition}</code>: ${explained(t, 'sourceMeaning', source.disposition)}</dd>
<dt>${t('proof.sourceFresh')}</dt><dd>${source.fresh ? t('words.yes') : t('words.no')}</dd>
<dt>${t('proof.lastSourceCheck')}</dt><dd>${timeElement(source.observedAt, t)}</dd>
<dt>${t('card.integrity')}</dt><dd>${verification.proofVerified ? t('words.confirmed') : t('words.notConfirmed')}: ${integrityExplanation(verification.proofVerified, integrityReason, t)}</dd>
<dt>${t('card.assurance')}</dt><dd><code>${assurance}</code>: ${t(`assurance.${assurance}`)}</dd>
</dl>
</section>`;
}

function describeProofEntry(entry: ProofTimelineEntry, t: Translator): SafeHtml {
  if (entry.type === 'PROOF_ISSUED') return t('timeline.proofIssued');
  return t('timeline.sourceObserved', { state: stateWords(entry.state) });
}

/** A proof's timeline, newest first (the entries arrive oldest first). */
export function proofTimeline(entries: readonly ProofTimelineEntry[], olderEntriesExist: boolean, t: Translator = english): SafeHtml {
  const newestFirst = [...entries].reverse();
  return html`<section aria-labelledby="timeline-heading">
<h2 id="timeline-heading">${t('timeline.heading')}</h2>
<div class="scroll"><table>
<caption>${t('timeline.caption', { count: newestFirst.length, older: olderEntriesExist ? 'yes' : 'no' })}</caption>
<thead><tr><th scope="col">${t('timeline.when')}</th><th scope="col">${t('timeline.what')}</th><th scope="col">${t('timeline.source')}</th></tr></thead>
<tbody>
${newestFirst.map((e) => html`<tr><td>${timeElement(e.at, t)}</td><td>${describeProofEntry(e, t)}</td><td>${e.source}</td></tr>\n`)}
</tbody>
</table></div>
${newestFirst.length > PRINTED_TIMELINE_ROWS ? html`<p class="print-only">${t('timeline.printNote')}</p>` : ''}
</section>`;
}
