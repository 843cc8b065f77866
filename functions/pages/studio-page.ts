import type { LiveState } from '../contract/operation';
import type { ActivationReadiness, ProductionFoundations } from '../contract/schemas/surfaces';
import { code, codeText, html, type SafeHtml } from './markup';
import { pageDocument, timeElement } from './frame';
import { linkIfPublished, type OperationRow } from '../domain/surfaces/endpoints';
import { LIVE_STATE_WORDS } from './landing-page';
import { lookupForm } from './lookup';

export interface StudioInput {
  baseUrl: string;
  operations: readonly OperationRow[];
  foundations: ProductionFoundations;
  activation: ActivationReadiness;
}

const isDocumentRoute = (op: OperationRow) => op.method === 'GET' && op.path.startsWith('/developers/') && !op.path.includes('{');
const isSandboxRun = (op: OperationRow) => op.method === 'POST' && op.path.startsWith('/developers/sandbox/');

/**
 * Each outcome the studio shows, as words and a tone. What is closed by design reads as what it
 * is, in a neutral tone: a protocol not configured is "not offered yet", an authority the service
 * never holds is "kept closed on purpose"; only what is wrong is red.
 */
const BADGES: Record<string, { words: string; tone: 'ok' | 'warn' | 'bad' | 'info' }> = {
  PASS: { words: 'Passed', tone: 'ok' },
  FAIL: { words: 'Failed', tone: 'bad' },
  SKIPPED: { words: 'Not checked', tone: 'info' },
  READY: { words: 'Ready', tone: 'ok' },
  NOT_READY: { words: 'Not ready', tone: 'bad' },
  CONFIGURED: { words: 'Configured', tone: 'ok' },
  NOT_CONFIGURED: { words: 'Not offered yet', tone: 'info' },
  MISCONFIGURED: { words: 'Misconfigured', tone: 'bad' },
  GATED: { words: 'Live use kept closed on purpose', tone: 'info' },
  FAIL_CLOSED: { words: 'Kept closed on purpose', tone: 'info' },
};

/** An outcome as a badge in words; the contract's code is in the JSON each section links. */
const badge = (value: string): SafeHtml => {
  const known = BADGES[value];
  return known ? html`<span class="status ${known.tone}">${known.words}</span>` : html`<span class="status info">${codeText(value)}</span>`;
};

/**
 * A route's availability on this deployment: the studio knows whether the store answered, so a
 * route gated by persistence reads as live when it does.
 */
function availability(state: LiveState, storeReady: boolean): SafeHtml {
  const words = state === 'GATED_BY_PERSISTENCE' ? (storeReady ? 'Live: its store answers' : 'Closed: its store does not answer') : LIVE_STATE_WORDS[state];
  return html`${words} ${code(state, 'muted')}`;
}

function endpointCell(baseUrl: string, op: OperationRow): SafeHtml {
  return op.method === 'GET' && !op.path.includes('{') ? html`<a href="${baseUrl}${op.path}">${code(op.path)}</a>` : code(op.path);
}

function statusSection({ baseUrl, foundations, activation }: StudioInput): SafeHtml {
  const p = foundations.persistence;
  return html`<section aria-labelledby="status-heading">
<h2 id="status-heading">Service status</h2>
<p>Checked ${timeElement(foundations.checkedAt)}. Production foundations: ${badge(foundations.status)}
(<a href="${baseUrl}/v1/activation-readiness/production-foundations">JSON</a>).</p>
<div class="scroll"><table class="rows">
<caption>Persistence: ${badge(p.status)}${p.durationMs === null ? '' : `, checked in ${p.durationMs} ms`}</caption>
<thead><tr><th scope="col">Check</th><th scope="col">Outcome</th><th scope="col">Detail</th></tr></thead>
<tbody>${p.checks.map((c) => html`<tr><td>${code(c.key)}</td><td>${badge(c.outcome)}</td><td>${c.detail}</td></tr>\n`)}</tbody>
</table></div>
<div class="scroll"><table class="rows">
<caption>Identity and wallet protocols (<a href="${baseUrl}/v1/activation-readiness">JSON</a>): none is offered until configured, and even then live activation stays closed on purpose</caption>
<thead><tr><th scope="col">Protocol</th><th scope="col">Configuration</th><th scope="col">Live activation</th></tr></thead>
<tbody>${activation.gates.map((g) => html`<tr><td>${g.name} ${code(g.key, 'muted')}</td><td>${badge(g.status)}</td><td>${badge(g.liveActivation)}</td></tr>\n`)}</tbody>
</table></div>
<div class="scroll"><table class="rows">
<caption>Authorities this service never holds, by design</caption>
<thead><tr><th scope="col">Authority</th><th scope="col">Status</th><th scope="col">Why</th></tr></thead>
<tbody>${foundations.authorities.map((a) => html`<tr><td>${code(a.key)}</td><td>${badge(a.status)}</td><td>${a.reason}</td></tr>\n`)}</tbody>
</table></div>
</section>`;
}

function cataloguesSection({ baseUrl, operations }: StudioInput): SafeHtml {
  const documents = operations.filter(isDocumentRoute);
  const own = ['/v1/trust-fabric/catalogue', '/v1/trust-infrastructure', '/v1/ledger', '/health'].map((path) => operations.find((op) => op.method === 'GET' && op.path === path)).filter((op): op is OperationRow => op !== undefined);
  return html`<section aria-labelledby="catalogues-heading">
<h2 id="catalogues-heading">Developer catalogues</h2>
<ul>
${[...own, ...documents].map((op) => html`<li>${endpointCell(baseUrl, op)}: ${op.summary}${op.liveState === 'LIVE' ? '' : html` (${LIVE_STATE_WORDS[op.liveState].toLowerCase()})`}</li>\n`)}
</ul>
</section>`;
}

function sandboxSection({ baseUrl, operations, foundations }: StudioInput): SafeHtml {
  const runs = operations.filter(isSandboxRun);
  const examples = operations.find((op) => op.method === 'GET' && op.path === '/developers/sandbox/examples.json');
  const storeReady = foundations.persistence.status === 'READY';
  return html`<section aria-labelledby="sandbox-heading">
<h2 id="sandbox-heading">Sandbox</h2>
<p>Deterministic operations with no production side effects: they issue no credential, change no entitlement, call no payment provider and bind no external authority.
${examples ? html`Ready-made request bodies and demo references are in <a href="${baseUrl}${examples.path}">${code(examples.path)}</a>.` : ''}</p>
<div class="scroll"><table class="rows">
<thead><tr><th scope="col">Operation</th><th scope="col">Purpose</th><th scope="col">Availability</th></tr></thead>
<tbody>${runs.map((op) => html`<tr><td class="path"><code>POST</code> ${code(op.path)}</td><td>${op.summary}</td><td>${availability(op.liveState, storeReady)}</td></tr>\n`)}</tbody>
</table></div>
</section>`;
}

function endpointsSection({ baseUrl, operations, foundations }: StudioInput): SafeHtml {
  const openapi = linkIfPublished(operations, baseUrl, '/developers/openapi.json');
  const storeReady = foundations.persistence.status === 'READY';
  return html`<section aria-labelledby="endpoints-heading">
<h2 id="endpoints-heading">Every endpoint</h2>
<div class="scroll"><table class="rows">
<caption>${operations.length} operations, from the contract table${openapi ? html` (<a href="${openapi}">OpenAPI</a>)` : ''}</caption>
<thead><tr><th scope="col">Route</th><th scope="col">Summary</th><th scope="col">Availability</th></tr></thead>
<tbody>${operations.map((op) => html`<tr><td class="path"><code>${op.method}</code> ${endpointCell(baseUrl, op)}</td><td>${op.summary}</td><td>${availability(op.liveState, storeReady)}</td></tr>\n`)}</tbody>
</table></div>
</section>`;
}

/** /studio: the operating surface of a deployment, status first, in the same frame as every page. */
export function renderStudio(input: StudioInput): string {
  const main = html`<h1>Studio</h1>
<p>The operating surface of this deployment: live status, the developer catalogues, the sandbox and every endpoint of the contract.</p>
${statusSection(input)}
<section aria-labelledby="verify-heading">
<h2 id="verify-heading">Verify a reference</h2>
${lookupForm(input.baseUrl, undefined, false)}
</section>
${cataloguesSection(input)}
${sandboxSection(input)}
${endpointsSection(input)}`;
  return pageDocument({ title: 'Studio', baseUrl: input.baseUrl, main });
}
