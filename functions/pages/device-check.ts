import type { LedgerEvidence } from '../domain/record';
import { EVIDENCE_CHECK_NAMES, type EvidenceCheck } from '#verify/checks/evidence';
import { RECEIPT_SCRIPT } from '../generated/receipt-script';
import { html, raw, type SafeHtml } from './markup';
import type { Translator } from './i18n';

/** What the page hands its in-browser check (functions/browser/receipt-check.ts), as JSON. */
export interface DeviceCheckData {
  /** The record version the page shows, exactly as logged (the leaf data). */
  record: unknown;
  evidence: LedgerEvidence;
  /** The verifier keys the service publishes, pinned in the page. */
  verifierKeys: string[];
  /** The outcome texts in the page's language. */
  texts: {
    pending: string;
    verified: string;
    unsupported: string;
    failed: Record<EvidenceCheck['name'], string>;
    symbols: { pass: string; fail: string };
  };
}

export interface DeviceCheckInput {
  record: unknown;
  evidence?: LedgerEvidence;
  verifierKeys: string[];
}

/** JSON inside <script type="application/json">: no '<' (so no '</script>'), no line separators. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

/**
 * "Checked on this device": the page carries the ledger evidence of the version it shows and the
 * check that re-runs it in the browser. The outcome element starts `pending` with the no-script
 * text; the script replaces it with `verified` or `failed`. Without evidence or key there is
 * nothing to check, and the section says so (`failed`) without a script.
 */
export function deviceCheckSection(input: DeviceCheckInput, t: Translator): SafeHtml {
  const heading = html`<h2 id="device-heading">${t('device.heading')}</h2>`;
  const proves = html`<p class="muted noprint">${t('device.proves')}</p>`;
  const unavailable = !input.evidence ? t('device.noEvidence') : input.verifierKeys.length === 0 ? t('device.noKey') : null;
  if (unavailable || !input.evidence) {
    return html`<section class="device" aria-labelledby="device-heading">${heading}
<p id="device-check" data-verification="failed" role="status">${unavailable}</p>
${proves}
</section>`;
  }
  const evidence = input.evidence;
  const origin = (evidence as { origin?: unknown }).origin;
  const failed = Object.fromEntries(
    EVIDENCE_CHECK_NAMES.map((name) => [name, t.text('device.failed', { reason: t.text(`device.reason.${name}`) })]),
  ) as DeviceCheckData['texts']['failed'];
  const data: DeviceCheckData = {
    record: input.record,
    evidence,
    verifierKeys: input.verifierKeys,
    texts: {
      pending: t.text('device.pending'),
      verified: t.text('device.verified', { size: Number(evidence.treeSize), leaf: Number(evidence.leafIndex), origin: String(origin ?? '') }),
      unsupported: t.text('device.unsupported'),
      failed,
      symbols: { pass: t.text('device.pass'), fail: t.text('device.fail') },
    },
  };
  return html`<section class="device" aria-labelledby="device-heading">${heading}
<p id="device-check" data-verification="pending" role="status" aria-live="polite">${t('device.noscript')}</p>
<details id="device-details" hidden><summary>${t('device.details')}</summary><ul id="device-checks"></ul></details>
${proves}
<script type="application/json" id="device-evidence">${raw(scriptJson(data))}</script>
<script>${raw(RECEIPT_SCRIPT)}</script>
</section>`;
}
