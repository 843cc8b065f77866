import type { LivingObjectResolution, TimelineEntry } from '../../contract/schemas/objects';
import type { CommercialProofEvidence } from '../../contract/schemas/proofs';
import type { ProofTimelineEntry } from '../proofs';
import { proofStatusCard, proofTimeline } from './proof-presentation';
import { html, pageDocument, segment, timeElement, type SafeHtml } from './html';
import { objectLinksList, rightsSection, stateWords, statusCard, type ResolutionView } from './presentation';

export interface TrustReceiptInput extends ResolutionView {
  baseUrl: string;
  reference: string;
  /** True when older timeline entries exist than the window shown. */
  olderEntriesExist: boolean;
  ledgerUrl?: string;
}

/** Machine names such as DEVICE_REGISTRY_SYNC read as words; names already in words stay as they are. */
const sourceWords = (source: string): string => (/^[A-Z0-9_]+$/.test(source) ? stateWords(source) : source);

function describeEntry(entry: TimelineEntry): SafeHtml {
  if (entry.type === 'STATE_CHANGED') {
    return entry.previousState
      ? html`State changed from ${stateWords(entry.previousState)} to <strong>${stateWords(entry.state)}</strong>`
      : html`Recorded as <strong>${stateWords(entry.state)}</strong>`;
  }
  return html`Authority observed the state (${stateWords(entry.state)})`;
}

function timelineSection(input: TrustReceiptInput): SafeHtml {
  const entries = [...(input.resolution.timeline ?? [])].reverse();
  if (entries.length === 0) return html`<h2 id="timeline-heading">Timeline</h2><p>No entries at this instant.</p>`;
  const ref = segment(input.reference);
  return html`<section aria-labelledby="timeline-heading">
<h2 id="timeline-heading">Timeline</h2>
<div class="scroll"><table>
<caption>${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}, newest first${input.olderEntriesExist ? ', older entries not shown' : ''}.</caption>
<thead><tr><th scope="col">When</th><th scope="col">What happened</th><th scope="col">Source</th></tr></thead>
<tbody>
${entries.map((e) => html`<tr><td>${timeElement(e.at)}</td><td>${describeEntry(e)}</td><td>${sourceWords(e.source)}</td></tr>\n`)}
</tbody>
</table></div>
${input.olderEntriesExist ? html`<p>The full history is in the <a href="${input.baseUrl}/v1/objects/${ref}">JSON resolution</a>, which pages back through older entries (Link header).</p>` : ''}
</section>`;
}

/** /trust-receipt/{reference}: the resolution of a living object for a person, lifecycle first. */
export function renderTrustReceipt(input: TrustReceiptInput): string {
  const resolution: LivingObjectResolution = input.resolution;
  const main = html`<h1>Trust receipt</h1>
<p class="muted">What this service holds about reference <code>${input.reference}</code>, as of the instant below.</p>
${statusCard(input, 'status-heading')}
${rightsSection(resolution)}
${timelineSection(input)}
<section aria-labelledby="check-heading">
<h2 id="check-heading">Check it yourself</h2>
${objectLinksList(input.baseUrl, input.reference, 'receipt', input.ledgerUrl)}
<p class="muted">This receipt contains no personal or payment data. Ledger evidence proves the integrity of the record shown, not anyone's authority.</p>
</section>`;
  return pageDocument({ title: `Trust receipt ${input.reference}`, baseUrl: input.baseUrl, main });
}

export interface ProofReceiptInput {
  baseUrl: string;
  reference: string;
  evidence: CommercialProofEvidence;
  /** Timeline window, oldest first. */
  timeline: ProofTimelineEntry[];
  olderEntriesExist: boolean;
  ledgerUrl?: string;
}

/** /trust-receipt/{reference} for a commercial proof: the proof, where its source stands now, and its history. */
export function renderProofReceipt(input: ProofReceiptInput): string {
  const ref = segment(input.reference);
  const main = html`<h1>Trust receipt</h1>
<p class="muted">What this service holds about commercial proof <code>${input.reference}</code>, as of ${timeElement(String(input.evidence.verification.synchronization.evaluatedAt ?? ''))}.</p>
${proofStatusCard(input.evidence, input.baseUrl, 'status-heading')}
${proofTimeline(input.timeline, input.olderEntriesExist)}
<section aria-labelledby="check-heading">
<h2 id="check-heading">Check it yourself</h2>
<ul>
<li><a href="${input.baseUrl}/verify?reference=${ref}">Check the current status again</a></li>
<li><a href="${input.baseUrl}/v1/commercial-proofs/${ref}">Machine-readable evidence (JSON)</a>, with the ledger inclusion proof</li>
${input.ledgerUrl ? html`<li><a href="${input.ledgerUrl}">Ledger origin and verifier key</a>, to re-check the integrity evidence yourself</li>` : ''}
</ul>
<p class="muted">This receipt contains no personal or payment data. Ledger evidence proves the integrity of the proof shown, not anyone's authority.</p>
</section>`;
  return pageDocument({ title: `Trust receipt ${input.reference}`, baseUrl: input.baseUrl, main });
}
