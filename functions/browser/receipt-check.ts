/**
 * The trust receipt's own check, run in the visitor's browser: the verifier package's
 * `verifyRecord` (packages/verify, @public-trust/verify: the same checks the server,
 * `npm run verify` and relying parties run), answered by the browser's WebCrypto. Built into
 * functions/generated/receipt-script.ts by
 * `npm run generate` and placed inline in the page, allowed by its CSP hash. It reads the evidence
 * the page carries, writes the outcome into #device-check (data-verification = pending, verified
 * or failed) and lists each check; it changes nothing else and sends nothing anywhere.
 */
import { verifyRecord, type Check } from '#verify/verify';
import type { DeviceCheckData } from '../pages/device-check';

/** The few DOM members used here (the project is typed against Node, without the DOM library). */
interface Element {
  textContent: string | null;
  setAttribute(name: string, value: string): void;
  appendChild(child: Element): Element;
  hidden: boolean;
}
declare const document: { getElementById(id: string): Element | null; createElement(tag: string): Element };

function show(output: Element, state: 'pending' | 'verified' | 'failed', text: string): void {
  output.setAttribute('data-verification', state);
  output.textContent = text;
}

function listChecks(checks: readonly Check[], symbols: DeviceCheckData['texts']['symbols']): void {
  const list = document.getElementById('device-checks');
  if (!list) return;
  for (const check of checks) {
    const item = document.createElement('li');
    item.textContent = `${check.ok ? symbols.pass : symbols.fail} ${check.name}: ${check.detail}`;
    list.appendChild(item);
  }
  const details = document.getElementById('device-details');
  if (details) details.hidden = false;
}

async function run(): Promise<void> {
  const output = document.getElementById('device-check');
  const source = document.getElementById('device-evidence');
  if (!output || !source?.textContent) return;
  const data = JSON.parse(source.textContent) as DeviceCheckData;
  show(output, 'pending', data.texts.pending);
  let checks: Check[];
  try {
    ({ checks } = await verifyRecord(data.record, data.evidence, { trustedKeys: data.verifierKeys }));
  } catch {
    // WebCrypto is missing or refuses Ed25519: nothing was checked, and the page says so.
    show(output, 'failed', data.texts.unsupported);
    return;
  }
  listChecks(checks, data.texts.symbols);
  const failed = checks.find((check) => !check.ok);
  if (failed) show(output, 'failed', data.texts.failed[failed.name as keyof DeviceCheckData['texts']['failed']]);
  else show(output, 'verified', data.texts.verified);
}

void run();
