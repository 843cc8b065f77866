import type { LivingObjectResolution, OverallDisposition } from '../contract/schemas/objects';
import { assuranceLevelOf } from '../domain/surfaces/assurance';
import { code, html, raw, segment, type SafeHtml } from './markup';
import { timeElement } from './frame';
import { type MessageKey, type Translator } from './i18n';
import { isMessageKey, english } from './page-languages';

/*
 * The words the status cards share, in the page's language: every state, kind, party and check a
 * card shows comes from the catalogue; the machine codes behind them and the ledger position sit
 * in a <details> element ("Codes and ledger position") for those who need them.
 */

export type Tone = 'ok' | 'warn' | 'bad' | 'info';

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

/** The catalogue's entry for a machine value (`prefix.VALUE`), if it has one. */
function entryFor(prefix: string, value: string): MessageKey | undefined {
  const key = `${prefix}.${value}`;
  return isMessageKey(key) ? key : undefined;
}

/**
 * What an overall disposition tells a person, in one label and one sentence, in the page's
 * language. An ended lifecycle says how it ended (cancelled, returned, recalled...), so a returned
 * order does not read like a withdrawn licence.
 */
export function dispositionWording(overall: string, t: Translator = english, state = ''): { label: string; tone: Tone; sentence: SafeHtml } {
  const key = overallOf(overall);
  const sentence = key === 'REVOKED' ? t(entryFor('ended', state) ?? 'ended.other') : t(`disposition.${key}.sentence` as MessageKey);
  return { label: t.text(`disposition.${key}.label` as MessageKey), tone: DISPOSITION_TONES[key], sentence };
}

/** A catalogue entry for a machine value (`prefix.VALUE`), else the value itself as a code (never another language's word). */
export function wordOr(t: Translator, prefix: string, value: string): SafeHtml {
  const key = entryFor(prefix, value);
  return key ? t(key) : code(value);
}

/** A lifecycle state (or a credential status) in words. */
export const stateWord = (state: string, t: Translator): SafeHtml => wordOr(t, 'state', state);

/** A kind of record in words: `prefix.VALUE`, else the prefix's general word ("Record", "Credential"). */
export function kindWord(t: Translator, prefix: 'kind' | 'proofKind' | 'credentialKind', value: string | undefined): SafeHtml {
  return t(entryFor(prefix, value ?? '') ?? (`${prefix}.other` as MessageKey));
}

/**
 * A party (an authority, an issuer, a source system, a synchronisation channel) in words: records
 * name parties as labels ("Service platform") or codes (COMMERCE_PLATFORM_SYNC); a known party is
 * named by the catalogue, any other shown exactly as the record gives it, marked as not to be
 * translated (translate="no"): it is the record's own text, not the page's.
 */
export function partyName(value: string, t: Translator): SafeHtml {
  const key = entryFor('party', value.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, ''));
  if (key) return t(key);
  return /^[A-Z0-9_]+$/.test(value) ? code(value) : html`<span translate="no">${value}</span>`;
}

/** A freshness window in words ("1 hour", "2 days"), or nothing when the record gives none. */
export function freshnessWindow(seconds: unknown, t: Translator): string | undefined {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return undefined;
  if (seconds % 86400 === 0) return t.text('duration.days', { n: seconds / 86400 });
  if (seconds % 3600 === 0) return t.text('duration.hours', { n: seconds / 3600 });
  if (seconds % 60 === 0) return t.text('duration.minutes', { n: seconds / 60 });
  return t.text('duration.seconds', { n: seconds });
}

export const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Why the integrity of the version shown is or is not confirmed, in the order the service checks
 * (functions/domain/evidence.ts inspectIntegrity): no evidence, evidence for another version, no
 * published key, a failed check.
 */
export type IntegrityKind = 'CONFIRMED' | 'NO_EVIDENCE' | 'OTHER_VERSION' | 'NO_KEY' | 'FAILED';

export function integrityKind(head: { version: number; evidence: { version: number } | null }, confirmed: boolean, keysPublished: boolean): IntegrityKind {
  if (confirmed) return 'CONFIRMED';
  if (!head.evidence) return 'NO_EVIDENCE';
  if (head.evidence.version !== head.version) return 'OTHER_VERSION';
  if (!keysPublished) return 'NO_KEY';
  return 'FAILED';
}

/** A check's outcome as a list item; the sentence says whether it passed, the class only repeats it. */
export const checkItem = (passed: boolean, sentence: SafeHtml): SafeHtml => html`<li class="${passed ? 'pass' : 'fail'}">${sentence}</li>`;

/** Where a logged version sits in the ledger, as the evidence of a JSON answer gives it. */
function ledgerPosition(evidence: unknown, t: Translator): SafeHtml {
  const e = (evidence ?? null) as { leafIndex?: unknown; treeSize?: unknown; version?: unknown; origin?: unknown } | null;
  if (!e || typeof e.leafIndex !== 'number' || typeof e.treeSize !== 'number') return html`<dt>${t('card.ledger')}</dt><dd>${t('card.ledgerNone')}</dd>`;
  return html`<dt>${t('card.ledger')}</dt><dd>${t('card.ledgerPosition', { leaf: e.leafIndex, size: e.treeSize, version: Number(e.version) })}</dd>
${typeof e.origin === 'string' ? html`<dt>${t('card.log')}</dt><dd>${code(e.origin)}</dd>` : ''}`;
}

/** One row of the codes: a label in words, the code, and optionally what it means. */
export const codeRow = (label: SafeHtml, value: string, meaning?: SafeHtml): SafeHtml =>
  html`<dt>${label}</dt><dd>${code(value)}${meaning ? html`: ${meaning}` : ''}</dd>\n`;

/**
 * The contract's codes behind a card and the ledger position of the version shown, one click away
 * (closed by default; hidden on paper).
 */
export function codesDetails(rows: readonly SafeHtml[], evidence: unknown, evaluatedAt: string | undefined, t: Translator): SafeHtml {
  return html`<details class="codes"><summary>${t('card.codes')}</summary>
<dl class="facts">
${rows}${ledgerPosition(evidence, t)}
${evaluatedAt ? html`<dt>${t('card.evaluatedAt')}</dt><dd>${timeElement(evaluatedAt, t)}</dd>` : ''}
</dl>
</details>`;
}

export interface ResolutionView {
  resolution: LivingObjectResolution;
  /** Why the integrity of the version shown is or is not confirmed. */
  integrity: IntegrityKind;
}

/** How the authority's last confirmation stands against the freshness window, in one sentence. */
function observationSentence(resolution: LivingObjectResolution, party: SafeHtml, t: Translator): { passed: boolean; sentence: SafeHtml } {
  const { current, object } = resolution;
  if (current.disposition === 'HISTORICAL_ONLY') return { passed: false, sentence: t('observed.historical') };
  if (!current.observedAt) return { passed: false, sentence: t('observed.never', { party }) };
  const window = freshnessWindow(object.freshnessSeconds, t) ?? '';
  const args = { party, at: timeElement(current.observedAt, t), window };
  return current.fresh ? { passed: true, sentence: t('observed.fresh', args) } : { passed: false, sentence: t('observed.stale', args) };
}

/**
 * The status card shared by /verify results and the trust receipt: the verdict, the state and
 * since when, who says so, what was checked; then the issuer's own words (marked not to be
 * translated) and the codes.
 */
export function statusCard({ resolution, integrity }: ResolutionView, headingId: string, t: Translator = english): SafeHtml {
  const { current, object } = resolution;
  const wording = dispositionWording(current.overallDisposition, t, current.state);
  const reference = text(object.reference) ?? '';
  const objectType = text(object.objectType);
  const since = text(object.stateSince);
  const title = text(object.title);
  const business = text(object.businessReference);
  const party = partyName(text(object.authority) ?? 'SERVICE_PLATFORM', t);
  const observation = observationSentence(resolution, party, t);
  const assurance = assuranceLevelOf(current);
  const rights = resolution.presentations?.customerAccountOrder?.rightsState;
  return html`<section class="card" aria-labelledby="${headingId}">
<h2 id="${headingId}">${t('card.heading', { kind: kindWord(t, 'kind', objectType), reference })}</h2>
<p role="status"><span class="status ${wording.tone}">${wording.label}</span> ${wording.sentence}</p>
<dl class="facts">
<dt>${t('card.state')}</dt><dd><strong>${stateWord(current.state, t)}</strong></dd>
${since ? html`<dt>${t('card.since')}</dt><dd>${timeElement(since, t)}</dd>` : ''}
<dt>${t('card.saysSo')}</dt><dd>${party}</dd>
<dt>${t('card.checked')}</dt><dd><ul class="checks">
${checkItem(observation.passed, observation.sentence)}
${checkItem(integrity === 'CONFIRMED', t(`integrity.${integrity}`))}
</ul></dd>
${title ? html`<dt>${t('card.issuerTitle')}</dt><dd translate="no">${title}</dd>` : ''}
${business ? html`<dt>${t('card.businessReference')}</dt><dd translate="no">${business}</dd>` : ''}
</dl>
${codesDetails(
  [
    codeRow(t('card.reference'), reference),
    ...(objectType ? [codeRow(t('card.kind'), objectType)] : []),
    codeRow(t('card.state'), current.state),
    codeRow(t('card.verdict'), current.overallDisposition),
    codeRow(t('card.disposition'), current.disposition, wordOr(t, 'dispositionMeaning', current.disposition)),
    codeRow(t('card.assurance'), assurance, t(`assurance.${assurance}`)),
    ...(rights ? [codeRow(t('card.rights'), rights)] : []),
    codeRow(t('card.fresh'), String(current.fresh)),
  ],
  current.ledger,
  current.evaluatedAt,
  t,
)}
</section>`;
}

export function rightsSection(resolution: LivingObjectResolution, t: Translator = english): SafeHtml {
  const card = resolution.presentations?.customerAccountOrder;
  if (!card) return raw('');
  return html`<section aria-labelledby="rights-heading">
<h2 id="rights-heading">${t('rightsSection.heading')}</h2>
<dl class="facts">
<dt>${t('rightsSection.rights')}</dt><dd>${wordOr(t, 'rights', card.rightsState)}</dd>
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
