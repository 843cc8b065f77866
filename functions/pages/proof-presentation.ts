import type { CommercialProofEvidence, ProofVerificationStatus } from '../contract/schemas/proofs';
import type { ProofTimelineEntry } from '../domain/proofs';
import { assuranceLevelOf } from '../domain/surfaces/assurance';
import { code, html, segment, type SafeHtml } from './markup';
import { timeElement } from './frame';
import { PRINTED_TIMELINE_ROWS } from './page-style';
import { type MessageKey, type Translator } from './i18n';
import { english, isMessageKey } from './page-languages';
import { checkItem, codeRow, codesDetails, freshnessWindow, kindWord, partyName, stateWord, wordOr, type IntegrityKind, type Tone } from './presentation';

/** The colour of each proof verification status; it only repeats the word. */
export const PROOF_STATUS_TONES: Record<ProofVerificationStatus, Tone> = { CONFIRMED: 'ok', REVIEW_REQUIRED: 'warn', NOT_CONFIRMED: 'bad' };

/** The proof's verification status for a person: one label and one sentence, in the page's language. */
export function proofStatusWording(status: ProofVerificationStatus, t: Translator = english): { label: string; tone: Tone; sentence: SafeHtml } {
  return { label: t.text(`proof.${status}.label`), tone: PROOF_STATUS_TONES[status], sentence: t(`proof.${status}.sentence`) };
}

const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A claim's name: the catalogue's words for a claim it knows, else the name as the issuer wrote it, as code. */
function claimName(name: string, t: Translator): SafeHtml {
  const key = `claim.${name}`;
  return isMessageKey(key) ? t(key) : code(name);
}

/**
 * A claim's value: yes or no, a date in the visitor's locale, a number, or the issuer's own text
 * exactly as issued (marked not to be translated: it is the record's, not the page's).
 */
function claimValue(value: unknown, t: Translator): SafeHtml {
  if (typeof value === 'boolean') return t(value ? 'words.yes' : 'words.no');
  if (typeof value === 'number') return html`${String(value)}`;
  if (typeof value === 'string' && CALENDAR_DATE.test(value) && !Number.isNaN(Date.parse(value))) return html`<time datetime="${value}">${t.date(value)}</time>`;
  return html`<span translate="no">${String(value)}</span>`;
}

/** Where the proof's source stands, in one sentence per source disposition. */
function sourceSentence(evidence: CommercialProofEvidence, party: SafeHtml, t: Translator): SafeHtml {
  const source = evidence.verification.currentSourceStatus;
  const at = source.observedAt ? timeElement(source.observedAt, t) : '';
  const window = freshnessWindow(evidence.verification.synchronization.freshnessWindowSeconds, t) ?? '';
  const key = `source.${source.disposition}`;
  return t((isMessageKey(key) ? key : 'source.UNKNOWN') as MessageKey, { party, at, window });
}

/**
 * The status card of a commercial proof: the verdict, what the proof states (its claims), who
 * issued it, where its source stands now, what was checked; then the issuer's title and the codes.
 */
export function proofStatusCard(evidence: CommercialProofEvidence, baseUrl: string, headingId: string, t: Translator = english, integrity?: IntegrityKind): SafeHtml {
  const { proof, verification } = evidence;
  const wording = proofStatusWording(verification.status, t);
  const source = verification.currentSourceStatus;
  const system = partyName(String(verification.synchronization.sourceSystem ?? ''), t);
  const assurance = assuranceLevelOf({ disposition: source.disposition, fresh: source.fresh, evidenceIntegrityConfirmed: verification.proofVerified });
  const integrityWords = integrity ?? (verification.proofVerified ? 'CONFIRMED' : verification.ledger ? 'FAILED' : 'NO_EVIDENCE');
  const claims = Object.entries(proof.claims ?? {});
  return html`<section class="card" aria-labelledby="${headingId}">
<h2 id="${headingId}">${t('card.heading', { kind: kindWord(t, 'proofKind', proof.proofType), reference: proof.reference })}</h2>
<p role="status"><span class="status ${wording.tone}">${wording.label}</span> ${wording.sentence}</p>
<dl class="facts">
${claims.map(([name, value]) => html`<dt>${claimName(name, t)}</dt><dd>${claimValue(value, t)}</dd>\n`)}
<dt>${t('proof.issuedBy')}</dt><dd>${t('proof.issuedByValue', { party: partyName(proof.issuer, t), at: timeElement(proof.issuedAt, t) })}</dd>
${proof.subjectReference ? html`<dt>${t('proof.about')}</dt><dd><a href="${baseUrl}/trust-receipt/${segment(proof.subjectReference)}?lang=${t.locale.lang}"><code>${proof.subjectReference}</code></a></dd>` : ''}
<dt>${t('proof.sourceNow')}</dt><dd>${t('proof.sourceNowValue', { state: stateWord(source.state, t), party: system })}</dd>
<dt>${t('card.checked')}</dt><dd><ul class="checks">
${checkItem(source.disposition === 'CURRENT', sourceSentence(evidence, system, t))}
${checkItem(verification.proofVerified, t(`integrity.${integrityWords}`))}
</ul></dd>
<dt>${t('card.issuerTitle')}</dt><dd translate="no">${proof.title}</dd>
</dl>
${codesDetails(
  [
    codeRow(t('card.reference'), proof.reference),
    codeRow(t('card.kind'), proof.proofType),
    codeRow(t('card.verdict'), verification.status),
    codeRow(t('card.state'), source.state),
    codeRow(t('card.disposition'), source.disposition, wordOr(t, 'sourceMeaning', source.disposition)),
    codeRow(t('card.assurance'), assurance, t(`assurance.${assurance}`)),
    codeRow(t('proof.sourceFresh'), String(source.fresh)),
  ],
  verification.ledger,
  verification.synchronization.evaluatedAt,
  t,
)}
</section>`;
}

function describeProofEntry(entry: ProofTimelineEntry, t: Translator): SafeHtml {
  if (entry.type === 'PROOF_ISSUED') return t('timeline.proofIssued');
  return t('timeline.sourceObserved', { state: stateWord(entry.state, t) });
}

/** A proof's timeline, newest first (the entries arrive oldest first). */
export function proofTimeline(entries: readonly ProofTimelineEntry[], olderEntriesExist: boolean, t: Translator = english): SafeHtml {
  const newestFirst = [...entries].reverse();
  return html`<section aria-labelledby="timeline-heading">
<h2 id="timeline-heading">${t('timeline.heading')}</h2>
<div class="scroll"><table class="rows">
<caption>${t('timeline.caption', { count: newestFirst.length, older: olderEntriesExist ? 'yes' : 'no' })}</caption>
<thead><tr><th scope="col">${t('timeline.when')}</th><th scope="col">${t('timeline.what')}</th><th scope="col">${t('timeline.source')}</th></tr></thead>
<tbody>
${newestFirst.map((e) => html`<tr><td>${timeElement(e.at, t)}</td><td>${describeProofEntry(e, t)}</td><td>${partyName(e.source, t)}</td></tr>\n`)}
</tbody>
</table></div>
${newestFirst.length > PRINTED_TIMELINE_ROWS ? html`<p class="print-only">${t('timeline.printNote')}</p>` : ''}
</section>`;
}
