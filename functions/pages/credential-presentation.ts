import type { CredentialVerification } from '../contract/schemas/credentials';
import type { CredentialTimelineEntry } from '../domain/credentials/model';
import { code, html, segment, type SafeHtml } from './markup';
import { timeElement } from './frame';
import { PRINTED_TIMELINE_ROWS } from './page-style';
import { type MessageKey, type Translator } from './i18n';
import { english } from './page-languages';
import { checkItem, codeRow, codesDetails, freshnessWindow, kindWord, partyName, stateWord, type IntegrityKind, type Tone } from './presentation';

/**
 * A credential's verdict for a person, the most decisive first: its status when that is not
 * active (revoked, expired, suspended, not valid yet), then integrity not confirmed, then a status
 * not confirmed recently; valid only when every check passed (as `verified` in the JSON).
 */
export type CredentialVerdict = 'VALID' | 'SUSPENDED' | 'REVOKED' | 'EXPIRED' | 'NOT_YET_VALID' | 'UNCONFIRMED' | 'INTEGRITY';

export const CREDENTIAL_VERDICT_TONES: Record<CredentialVerdict, Tone> = {
  VALID: 'ok',
  SUSPENDED: 'warn',
  REVOKED: 'bad',
  EXPIRED: 'bad',
  NOT_YET_VALID: 'warn',
  UNCONFIRMED: 'warn',
  INTEGRITY: 'bad',
};

export function credentialVerdict(verification: CredentialVerification): CredentialVerdict {
  if (verification.verified) return 'VALID';
  if (verification.status !== 'ACTIVE') return verification.status;
  const integrity = verification.checks.find((c) => c.check === 'integrity');
  return integrity && integrity.outcome !== 'PASS' ? 'INTEGRITY' : 'UNCONFIRMED';
}

export function credentialWording(verification: CredentialVerification, t: Translator = english): { label: string; tone: Tone; sentence: SafeHtml } {
  const verdict = credentialVerdict(verification);
  return { label: t.text(`credential.${verdict}.label`), tone: CREDENTIAL_VERDICT_TONES[verdict], sentence: t(`credential.${verdict}.sentence`) };
}

/** The validity window and status checks in words (the integrity check reads as every card's does). */
function checkSentences(v: CredentialVerification, integrity: IntegrityKind, t: Translator): SafeHtml[] {
  const { validFrom, validUntil } = v.validityWindow;
  const freshness = v.statusFreshness;
  const window = freshnessWindow(freshness.maxAgeSeconds, t) ?? '';
  return v.checks.map((check) => {
    const passed = check.outcome === 'PASS';
    switch (check.check) {
      case 'integrity':
        return checkItem(passed, t(`integrity.${integrity}`));
      case 'validityWindow': {
        const key: MessageKey = passed ? 'check.validityWindow.PASS' : v.status === 'NOT_YET_VALID' || Date.parse(v.evaluatedAt) < Date.parse(validFrom) ? 'check.validityWindow.NOT_YET_VALID' : 'check.validityWindow.EXPIRED';
        return checkItem(passed, t(key, { from: timeElement(validFrom, t), until: timeElement(validUntil, t) }));
      }
      case 'status': {
        const args = { at: timeElement(freshness.lastConfirmedAt, t), since: timeElement(freshness.statusSince, t), window };
        if (freshness.lifecycleState === 'REVOKED') return checkItem(false, t('check.status.REVOKED', args));
        if (freshness.lifecycleState === 'SUSPENDED') return checkItem(false, t('check.status.SUSPENDED', args));
        return checkItem(passed, t(passed ? 'check.status.PASS' : 'check.status.NOT_CONFIRMED', args));
      }
    }
  });
}

/**
 * The status card of a credential: the verdict, its status and since when, its validity period,
 * who issued it and who says so, what was checked; then the codes, the status lists and the ledger
 * position. The subject's claims are not shown: the page answers whether the credential holds.
 */
export function credentialStatusCard(v: CredentialVerification, headingId: string, integrity: IntegrityKind, t: Translator = english): SafeHtml {
  const wording = credentialWording(v, t);
  const freshness = v.statusFreshness;
  const { validFrom, validUntil } = v.validityWindow;
  // Since when the status shown holds: the issuer's last word, or the end of the validity period.
  const since = v.status === freshness.lifecycleState ? freshness.statusSince : v.status === 'EXPIRED' ? validUntil : null;
  const issuer = partyName('ISSUER', t);
  return html`<section class="card" aria-labelledby="${headingId}">
<h2 id="${headingId}">${t('card.heading', { kind: kindWord(t, 'credentialKind', v.credentialType), reference: v.credentialId })}</h2>
<p role="status"><span class="status ${wording.tone}">${wording.label}</span> ${wording.sentence}</p>
<dl class="facts">
<dt>${t('credential.status')}</dt><dd><strong>${stateWord(v.status, t)}</strong></dd>
${since ? html`<dt>${t('card.since')}</dt><dd>${timeElement(since, t)}</dd>` : ''}
<dt>${t('credential.validity')}</dt><dd>${validUntil ? t('credential.validityBounded', { from: timeElement(validFrom, t), until: timeElement(validUntil, t) }) : t('credential.validityOpen', { from: timeElement(validFrom, t) })}</dd>
<dt>${t('credential.issuer')}</dt><dd>${code(v.issuer)}</dd>
<dt>${t('card.saysSo')}</dt><dd>${issuer}</dd>
<dt>${t('card.checked')}</dt><dd><ul class="checks">
${checkSentences(v, integrity, t)}
</ul></dd>
</dl>
${codesDetails(
  [
    codeRow(t('card.reference'), v.credentialId),
    codeRow(t('card.kind'), v.credentialType),
    codeRow(t('card.verdict'), v.status),
    codeRow(t('card.state'), freshness.lifecycleState),
    ...v.checks.map((c) => html`<dt><code>${c.check}</code></dt><dd>${code(c.outcome)}</dd>\n`),
    html`<dt>${t('credential.statusLists')}</dt><dd>${v.credentialStatus.map(
      (entry, i) => html`${i > 0 ? html`<br>` : ''}<a href="${entry.statusListCredential}" type="application/json">${t('credential.statusListEntry', { purpose: entry.statusPurpose, index: Number(entry.statusListIndex) })}</a>`,
    )}</dd>\n`,
    codeRow(t('card.fresh'), String(freshness.fresh)),
  ],
  v.logged.evidence,
  v.evaluatedAt,
  t,
)}
</section>`;
}

function describeCredentialEntry(entry: CredentialTimelineEntry, t: Translator): SafeHtml {
  if (entry.type === 'AUTHORITY_OBSERVED') return t('timeline.credential.AUTHORITY_OBSERVED', { state: stateWord(entry.status, t) });
  return t(`timeline.credential.${entry.type}`);
}

/** A credential's timeline, newest first (the entries arrive newest first). */
export function credentialTimeline(entries: readonly CredentialTimelineEntry[], olderEntriesExist: boolean, t: Translator = english): SafeHtml {
  return html`<section aria-labelledby="timeline-heading">
<h2 id="timeline-heading">${t('timeline.heading')}</h2>
<div class="scroll"><table class="rows">
<caption>${t('timeline.caption', { count: entries.length, older: olderEntriesExist ? 'yes' : 'no' })}</caption>
<thead><tr><th scope="col">${t('timeline.when')}</th><th scope="col">${t('timeline.what')}</th><th scope="col">${t('timeline.source')}</th></tr></thead>
<tbody>
${entries.map((e) => html`<tr><td>${timeElement(e.at, t)}</td><td>${describeCredentialEntry(e, t)}</td><td>${partyName(e.source, t)}</td></tr>\n`)}
</tbody>
</table></div>
${entries.length > PRINTED_TIMELINE_ROWS ? html`<p class="print-only">${t('timeline.printNote')}</p>` : ''}
</section>`;
}

/** Where a person goes next from a credential's card: the receipt or the check again, its JSON answers, the ledger. */
export function credentialLinksList(baseUrl: string, reference: string, from: 'verify' | 'receipt', v: CredentialVerification, ledgerUrl: string | undefined, t: Translator): SafeHtml {
  const ref = segment(reference);
  const lang = t.locale.lang;
  return html`<ul class="noprint">
${from === 'verify' ? html`<li><a href="${baseUrl}/trust-receipt/${ref}?lang=${lang}">${t('receipt.fullReceipt')}</a></li>` : ''}
${from === 'receipt' ? html`<li><a href="${baseUrl}/verify?reference=${ref}&amp;lang=${lang}">${t('receipt.checkAgain')}</a></li>` : ''}
<li><a href="${baseUrl}/v1/credentials/verify/${ref}" type="application/json">${t('receipt.credentialJson')}</a></li>
<li><a href="${v.links.portableCredential}" type="application/json">${t('receipt.portableCredential')}</a></li>
${ledgerUrl ? html`<li><a href="${ledgerUrl}" type="application/json">${t('receipt.ledger')}</a></li>` : ''}
</ul>`;
}
