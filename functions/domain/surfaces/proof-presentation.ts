import type { CommercialProofEvidence, ProofVerificationStatus } from '../../contract/schemas/proofs';
import type { ProofTimelineEntry } from '../proofs';
import { ASSURANCE_RULES, assuranceLevelOf } from './assurance';
import { html, segment, timeElement, type SafeHtml } from './html';
import { stateWords } from './presentation';

type Tone = 'ok' | 'warn' | 'bad';

/** The proof's verification status for a person: one label and one sentence each. */
export const PROOF_STATUS_WORDING: Record<ProofVerificationStatus, { label: string; tone: Tone; sentence: string }> = {
  CONFIRMED: { label: 'Confirmed', tone: 'ok', sentence: 'The proof is intact and its source, freshly observed, still matches it.' },
  REVIEW_REQUIRED: {
    label: 'Review required',
    tone: 'warn',
    sentence: 'The proof is intact, but its source changed, was retired or has not been observed recently. Read the source status before relying on it.',
  },
  NOT_CONFIRMED: { label: 'Not confirmed', tone: 'bad', sentence: 'The ledger evidence does not verify against this proof: do not rely on it.' },
};

const SOURCE_MEANING: Record<string, string> = {
  CURRENT: 'the source still matches the proof and was observed recently',
  HISTORICAL_ONLY: 'the source was retired at the commerce platform; only history remains',
  MODIFIED: 'the source changed after the proof was issued',
  STALE: 'the source has not been observed within the freshness window',
  UNKNOWN: 'the source has never been observed',
};

/** A claim name such as purchasedOn or coverage_ends, as words (Purchased on, Coverage ends). */
export const claimName = (name: string): string => {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const claimValue = (value: unknown): string => (typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value));

/** The status card of a commercial proof: verification, source lifecycle, integrity and its public claims. */
export function proofStatusCard(evidence: CommercialProofEvidence, baseUrl: string, headingId: string): SafeHtml {
  const { proof, verification } = evidence;
  const wording = PROOF_STATUS_WORDING[verification.status];
  const source = verification.currentSourceStatus;
  const assurance = ASSURANCE_RULES.find(
    (r) => r.key === assuranceLevelOf({ disposition: source.disposition, fresh: source.fresh, evidenceIntegrityConfirmed: verification.proofVerified }),
  )!;
  const integrityReason = verification.ledger?.integrity?.reason ?? (verification.proofVerified ? 'Verified.' : 'No ledger evidence is held for this proof.');
  const claims = Object.entries(proof.claims ?? {});
  return html`<section class="card" aria-labelledby="${headingId}">
<h2 id="${headingId}">${proof.title}</h2>
<p role="status"><span class="status ${wording.tone}">${wording.label}</span> ${wording.sentence}</p>
<dl class="facts">
<dt>Kind of proof</dt><dd>${stateWords(proof.proofType)}</dd>
<dt>Reference</dt><dd><code>${proof.reference}</code></dd>
<dt>Issued by</dt><dd>${proof.issuer}, ${timeElement(proof.issuedAt)}</dd>
${proof.subjectReference ? html`<dt>About</dt><dd><a href="${baseUrl}/trust-receipt/${segment(proof.subjectReference)}"><code>${proof.subjectReference}</code></a></dd>` : ''}
${claims.map(([name, value]) => html`<dt>${claimName(name)}</dt><dd>${claimValue(value)}</dd>\n`)}
<dt>Source</dt><dd>${String(verification.synchronization.sourceSystem ?? '')}: ${stateWords(source.state)} <code class="muted">(${source.state})</code></dd>
<dt>Source disposition</dt><dd><code>${source.disposition}</code>: ${SOURCE_MEANING[source.disposition] ?? 'not defined'}</dd>
<dt>Source fresh</dt><dd>${source.fresh ? 'Yes' : 'No'}</dd>
<dt>Last source check</dt><dd>${timeElement(source.observedAt)}</dd>
<dt>Evidence integrity</dt><dd>${verification.proofVerified ? 'Confirmed' : 'Not confirmed'}: ${integrityReason}</dd>
<dt>Assurance level</dt><dd><code>${assurance.key}</code>: ${assurance.meaning}</dd>
</dl>
</section>`;
}

function describeProofEntry(entry: ProofTimelineEntry): SafeHtml {
  if (entry.type === 'PROOF_ISSUED') return html`Proof issued`;
  return html`Source observed: <strong>${stateWords(entry.state)}</strong>`;
}

/** A proof's timeline, newest first (the entries arrive oldest first). */
export function proofTimeline(entries: readonly ProofTimelineEntry[], olderEntriesExist: boolean): SafeHtml {
  const newestFirst = [...entries].reverse();
  return html`<section aria-labelledby="timeline-heading">
<h2 id="timeline-heading">Timeline</h2>
<div class="scroll"><table>
<caption>${newestFirst.length} ${newestFirst.length === 1 ? 'entry' : 'entries'}, newest first${olderEntriesExist ? ', older entries not shown' : ''}.</caption>
<thead><tr><th scope="col">When</th><th scope="col">What happened</th><th scope="col">Source</th></tr></thead>
<tbody>
${newestFirst.map((e) => html`<tr><td>${timeElement(e.at)}</td><td>${describeProofEntry(e)}</td><td>${e.source}</td></tr>\n`)}
</tbody>
</table></div>
</section>`;
}
