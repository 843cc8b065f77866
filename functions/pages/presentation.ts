import type { LivingObjectResolution, OverallDisposition } from '../contract/schemas/objects';
import { assuranceLevelOf } from '../domain/surfaces/assurance';
import { html, raw, segment, type SafeHtml } from './markup';
import { timeElement } from './frame';
import { type MessageKey, type Translator } from './i18n';
import { isMessageKey, english } from './page-languages';

type Tone = 'ok' | 'warn' | 'bad' | 'info';

/** The colour of each overall disposition; it only repeats the word, which carries the meaning. */
export const DISPOSITION_TONES: Record<OverallDisposition, Tone> = {
  TRUSTED: 'ok',
  UNVERIFIED: 'warn',
  STALE: 'warn',
  CHANGED: 'warn',
  HISTORICAL: 'info',
  REVOKED: 'bad',
  UNKNOWN: 'info',
};

const overallOf = (overall: string): OverallDisposition => (overall in DISPOSITION_TONES ? (overall as OverallDisposition) : 'UNKNOWN');

/** What an overall disposition tells a person, in one label and one sentence, in the page's language. */
export function dispositionWording(overall: string, t: Translator = english): { label: string; tone: Tone; sentence: SafeHtml } {
  const key = overallOf(overall);
  return { label: t.text(`disposition.${key}.label`), tone: DISPOSITION_TONES[key], sentence: t(`disposition.${key}.sentence`) };
}

/** A message for a machine value when the catalogue has one (`prefix.VALUE`), else the fallback. */
export function explained(t: Translator, prefix: string, value: string, fallback: MessageKey = 'words.notDefined'): SafeHtml {
  const key = `${prefix}.${value}`;
  return t(isMessageKey(key) ? key : fallback);
}

/** A lifecycle state as words (DELIVERED -> Delivered), with the exact value kept beside it. */
export function stateWords(state: string): string {
  const words = state.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function freshnessWindow(seconds: unknown, t: Translator): string | undefined {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  if (seconds % 86400 === 0) return t.text('duration.days', { n: seconds / 86400 });
  if (seconds % 3600 === 0) return t.text('duration.hours', { n: seconds / 3600 });
  if (seconds % 60 === 0) return t.text('duration.minutes', { n: seconds / 60 });
  return t.text('duration.seconds', { n: seconds });
}

/**
 * Why integrity is or is not confirmed. The service's reason is English technical text; other
 * languages state the outcome in their words and keep the reason, marked as English.
 */
export function integrityExplanation(confirmed: boolean, reason: string, t: Translator): SafeHtml {
  if (t.locale.lang === 'en') return html`${reason}`;
  if (confirmed) return t('card.integrityReason.confirmed');
  return html`${t('card.integrityReason.notConfirmed')} <span lang="en">${reason}</span>`;
}

export interface ResolutionView {
  resolution: LivingObjectResolution;
  /** Why integrity is or is not confirmed (assessIntegrity's reason). */
  integrityReason: string;
}

/** The status card shared by /verify results and the trust receipt: one vocabulary for both. */
export function statusCard({ resolution, integrityReason }: ResolutionView, headingId: string, t: Translator = english): SafeHtml {
  const { current, object } = resolution;
  const wording = dispositionWording(current.overallDisposition, t);
  const assurance = assuranceLevelOf(current);
  const title = text(object.title);
  const objectType = text(object.objectType);
  const window = freshnessWindow(object.freshnessSeconds, t);
  return html`<section class="card" aria-labelledby="${headingId}">
<h2 id="${headingId}">${title ?? text(object.reference) ?? t('card.record')}</h2>
<p role="status"><span class="status ${wording.tone}">${wording.label}</span> ${wording.sentence}</p>
<dl class="facts">
${objectType ? html`<dt>${t('card.kind')}</dt><dd>${stateWords(objectType)}</dd>` : ''}
${text(object.businessReference) ? html`<dt>${t('card.businessReference')}</dt><dd>${text(object.businessReference)}</dd>` : ''}
<dt>${t('card.reference')}</dt><dd><code>${text(object.reference) ?? ''}</code></dd>
<dt>${t('card.state')}</dt><dd>${stateWords(current.state)} <code class="muted">(${current.state})</code></dd>
${text(object.stateSince) ? html`<dt>${t('card.stateSince')}</dt><dd>${timeElement(text(object.stateSince), t)}</dd>` : ''}
<dt>${t('card.disposition')}</dt><dd><code>${current.disposition}</code>: ${explained(t, 'dispositionMeaning', current.disposition)}</dd>
<dt>${t('card.fresh')}</dt><dd>${current.fresh ? t('words.yes') : t('words.no')}${window ? html`, ${t('card.freshnessWindow', { window })}` : ''}</dd>
<dt>${t('card.lastAuthorityCheck')}</dt><dd>${timeElement(current.observedAt ?? null, t)}</dd>
<dt>${t('card.integrity')}</dt><dd>${current.evidenceIntegrityConfirmed ? t('words.confirmed') : t('words.notConfirmed')}: ${integrityExplanation(current.evidenceIntegrityConfirmed, integrityReason, t)}</dd>
<dt>${t('card.assurance')}</dt><dd><code>${assurance}</code>: ${t(`assurance.${assurance}`)}</dd>
${text(object.authority) ? html`<dt>${t('card.authority')}</dt><dd>${text(object.authority)}</dd>` : ''}
<dt>${t('card.evaluatedAt')}</dt><dd>${timeElement(current.evaluatedAt, t)}</dd>
</dl>
</section>`;
}

export function rightsSection(resolution: LivingObjectResolution, t: Translator = english): SafeHtml {
  const card = resolution.presentations?.customerAccountOrder;
  if (!card) return raw('');
  return html`<section aria-labelledby="rights-heading">
<h2 id="rights-heading">${t('rightsSection.heading')}</h2>
<dl class="facts">
<dt>${t('rightsSection.rights')}</dt><dd><code>${card.rightsState}</code>: ${explained(t, 'rights', card.rightsState)}</dd>
<dt>${t('rightsSection.payment')}</dt><dd>${t('rightsSection.notDisclosed')}</dd>
</dl>
</section>`;
}

/** Where a person goes next from a status card; the page they are on is left out. Links keep the page's language. */
export function objectLinksList(baseUrl: string, reference: string, from: 'verify' | 'receipt', ledgerUrl: string | undefined, t: Translator = english): SafeHtml {
  const ref = segment(reference);
  const lang = t.locale.lang;
  return html`<ul class="noprint">
${from === 'verify' ? html`<li><a href="${baseUrl}/trust-receipt/${ref}?lang=${lang}">${t('receipt.fullReceipt')}</a></li>` : ''}
${from === 'receipt' ? html`<li><a href="${baseUrl}/verify?reference=${ref}&amp;lang=${lang}">${t('receipt.checkAgain')}</a></li>` : ''}
<li><a href="${baseUrl}/v1/objects/${ref}" type="application/json">${t('receipt.json')}</a></li>
${ledgerUrl ? html`<li><a href="${ledgerUrl}" type="application/json">${t('receipt.ledger')}</a></li>` : ''}
</ul>`;
}
