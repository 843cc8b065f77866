import type { LivingObjectResolution, OverallDisposition } from '../../contract/schemas/objects';
import { ASSURANCE_RULES, assuranceLevelOf } from './assurance';
import { html, raw, segment, timeElement, type SafeHtml } from './html';

type Tone = 'ok' | 'warn' | 'bad' | 'info';

/** What each overall disposition tells a person, in one label and one sentence (the colour only repeats the word). */
export const DISPOSITION_WORDING: Record<OverallDisposition, { label: string; tone: Tone; sentence: string }> = {
  TRUSTED: { label: 'Trusted', tone: 'ok', sentence: 'Current and confirmed: its authority was observed recently and ledger evidence confirms the record shown.' },
  UNVERIFIED: { label: 'Unverified', tone: 'warn', sentence: 'A current state is shown, but not everything about it could be confirmed. Read the details before relying on it.' },
  STALE: { label: 'Possibly out of date', tone: 'warn', sentence: 'Its authority has not been observed within the freshness window; the state may have changed since.' },
  CHANGED: { label: 'Changed', tone: 'warn', sentence: 'The record changed after its latest ledger evidence; the evidence covers an earlier version.' },
  HISTORICAL: { label: 'Historical only', tone: 'info', sentence: 'Only history remains: the view is of a past instant, or the record was replaced or retired.' },
  REVOKED: { label: 'Withdrawn', tone: 'bad', sentence: 'Its lifecycle withdrew it: whatever it granted no longer applies.' },
  UNKNOWN: { label: 'Unknown', tone: 'info', sentence: 'Nothing is known about this reference at this instant.' },
};

const DISPOSITION_MEANING: Record<string, string> = {
  CURRENT: 'the state is current and fresh',
  HISTORICAL_ONLY: 'only a past state is shown',
  MODIFIED: 'the version shown is newer than its ledger evidence',
  STALE: 'the state has not been observed recently enough',
  UNKNOWN: 'nothing is known at this instant',
};

const RIGHTS_MEANING: Record<string, string> = {
  REVOKED_BY_LIFECYCLE: 'Revoked by its lifecycle: no right can be relied on.',
  REVIEW_REQUIRED: 'Review required: the answer is not current and confirmed, so check with the issuer before relying on it.',
  NO_PUBLIC_RIGHT_ASSERTED: 'No right is asserted publicly: this page confirms the state, not an entitlement.',
};

export function wordingOf(overall: string) {
  return DISPOSITION_WORDING[overall as OverallDisposition] ?? DISPOSITION_WORDING.UNKNOWN;
}

export function statusBadge(overall: string): SafeHtml {
  const w = wordingOf(overall);
  return html`<span class="status ${w.tone}">${w.label}</span>`;
}

/** A lifecycle state as words (DELIVERED -> Delivered), with the exact value kept beside it. */
export function stateWords(state: string): string {
  const words = state.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function freshnessWindow(seconds: unknown): string | undefined {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  if (seconds % 86400 === 0) return `${seconds / 86400} day${seconds === 86400 ? '' : 's'}`;
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} seconds`;
}

export interface ResolutionView {
  resolution: LivingObjectResolution;
  /** Why integrity is or is not confirmed (assessIntegrity's reason). */
  integrityReason: string;
}

/** The status card shared by /verify results and the trust receipt: one vocabulary for both. */
export function statusCard({ resolution, integrityReason }: ResolutionView, headingId: string): SafeHtml {
  const { current, object } = resolution;
  const wording = wordingOf(current.overallDisposition);
  const assurance = ASSURANCE_RULES.find((r) => r.key === assuranceLevelOf(current))!;
  const title = text(object.title);
  const objectType = text(object.objectType);
  const window = freshnessWindow(object.freshnessSeconds);
  return html`<section class="card" aria-labelledby="${headingId}">
<h2 id="${headingId}">${title ?? text(object.reference) ?? 'Record'}</h2>
<p role="status">${statusBadge(current.overallDisposition)} ${wording.sentence}</p>
<dl class="facts">
${objectType ? html`<dt>Kind of object</dt><dd>${stateWords(objectType)}</dd>` : ''}
${text(object.businessReference) ? html`<dt>Business reference</dt><dd>${text(object.businessReference)}</dd>` : ''}
<dt>Reference</dt><dd><code>${text(object.reference) ?? ''}</code></dd>
<dt>State</dt><dd>${stateWords(current.state)} <code class="muted">(${current.state})</code></dd>
${text(object.stateSince) ? html`<dt>In this state since</dt><dd>${timeElement(text(object.stateSince))}</dd>` : ''}
<dt>Disposition</dt><dd><code>${current.disposition}</code>: ${DISPOSITION_MEANING[current.disposition] ?? 'not defined'}</dd>
<dt>Fresh</dt><dd>${current.fresh ? 'Yes' : 'No'}${window ? html`, freshness window ${window}` : ''}</dd>
<dt>Last authority check</dt><dd>${timeElement(current.observedAt ?? null)}</dd>
<dt>Evidence integrity</dt><dd>${current.evidenceIntegrityConfirmed ? 'Confirmed' : 'Not confirmed'}: ${integrityReason}</dd>
<dt>Assurance level</dt><dd><code>${assurance.key}</code>: ${assurance.meaning}</dd>
${text(object.authority) ? html`<dt>Authority</dt><dd>${text(object.authority)}</dd>` : ''}
<dt>Evaluated at</dt><dd>${timeElement(current.evaluatedAt)}</dd>
</dl>
</section>`;
}

export function rightsSection(resolution: LivingObjectResolution): SafeHtml {
  const card = resolution.presentations?.customerAccountOrder;
  if (!card) return raw('');
  return html`<section aria-labelledby="rights-heading">
<h2 id="rights-heading">Rights and payment</h2>
<dl class="facts">
<dt>Rights</dt><dd><code>${card.rightsState}</code>: ${RIGHTS_MEANING[card.rightsState]}</dd>
<dt>Payment and refund</dt><dd>Not disclosed. This service never shows payment or refund details.</dd>
</dl>
</section>`;
}

/** Where a person goes next from a status card; the page they are on is left out. */
export function objectLinksList(baseUrl: string, reference: string, from: 'verify' | 'receipt', ledgerUrl?: string): SafeHtml {
  const ref = segment(reference);
  return html`<ul>
${from === 'verify' ? html`<li><a href="${baseUrl}/trust-receipt/${ref}">Full trust receipt</a>, with the timeline</li>` : ''}
${from === 'receipt' ? html`<li><a href="${baseUrl}/verify?reference=${ref}">Check the current status again</a></li>` : ''}
<li><a href="${baseUrl}/v1/objects/${ref}">Machine-readable resolution (JSON)</a></li>
${ledgerUrl ? html`<li><a href="${ledgerUrl}">Ledger origin and verifier key</a>, to re-check the integrity evidence yourself</li>` : ''}
</ul>`;
}
