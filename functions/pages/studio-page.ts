import type { ActivationReadiness, ProductionFoundations } from '../contract/schemas/surfaces';
import { html, type SafeHtml } from './markup';
import { pageDocument, timeElement } from './frame';
import { linkIfPublished, type OperationRow } from '../domain/surfaces/endpoints';
import { lookupForm } from './lookup';

export interface StudioInput {
  baseUrl: string;
  operations: readonly OperationRow[];
  foundations: ProductionFoundations;
  activation: ActivationReadiness;
}

const isDocumentRoute = (op: OperationRow) => op.method === 'GET' && op.path.startsWith('/developers/') && !op.path.includes('{');
const isSandboxRun = (op: OperationRow) => op.method === 'POST' && op.path.startsWith('/developers/sandbox/');

const TONE: Record<string, string> = { PASS: 'ok', READY: 'ok', CONFIGURED: 'ok', FAIL: 'bad', NOT_READY: 'bad', MISCONFIGURED: 'bad', SKIPPED: 'info', NOT_CONFIGURED: 'warn', FAIL_CLOSED: 'info' };
const badge = (value: string): SafeHtml => html`<span class="status ${TONE[value] ?? 'info'}">${value}</span>`;

function endpointCell(baseUrl: string, op: OperationRow): SafeHtml {
  return op.method === 'GET' && !op.path.includes('{') ? html`<a href="${baseUrl}${op.path}"><code>${op.path}</code></a>` : html`<code>${op.path}</code>`;
}

function statusSection({ baseUrl, foundations, activation }: StudioInput): SafeHtml {
  const p = foundations.persistence;
  return html`<section aria-labelledby="status-heading">
<h2 id="status-heading">Service status</h2>
<p>Checked ${timeElement(foundations.checkedAt)}. Production foundations: ${badge(foundations.status)}
(<a href="${baseUrl}/v1/activation-readiness/production-foundations">JSON</a>).</p>
<div class="scroll"><table>
<caption>Persistence checks: ${p.status}${p.durationMs === null ? '' : `, ${p.durationMs} ms`}</caption>
<thead><tr><th scope="col">Check</th><th scope="col">Outcome</th><th scope="col">Detail</th></tr></thead>
<tbody>${p.checks.map((c) => html`<tr><td><code>${c.key}</code></td><td>${badge(c.outcome)}</td><td>${c.detail}</td></tr>\n`)}</tbody>
</table></div>
<div class="scroll"><table>
<caption>Activation gates (<a href="${baseUrl}/v1/activation-readiness">JSON</a>): configuration only, live activation stays gated</caption>
<thead><tr><th scope="col">Gate</th><th scope="col">Configuration</th><th scope="col">Live activation</th></tr></thead>
<tbody>${activation.gates.map((g) => html`<tr><td>${g.name} <code>${g.key}</code></td><td>${badge(g.status)}</td><td>${badge(g.liveActivation)}</td></tr>\n`)}</tbody>
</table></div>
<div class="scroll"><table>
<caption>Authorities this service never holds</caption>
<thead><tr><th scope="col">Authority</th><th scope="col">Status</th><th scope="col">Why</th></tr></thead>
<tbody>${foundations.authorities.map((a) => html`<tr><td><code>${a.key}</code></td><td>${badge(a.status)}</td><td>${a.reason}</td></tr>\n`)}</tbody>
</table></div>
</section>`;
}

function cataloguesSection({ baseUrl, operations }: StudioInput): SafeHtml {
  const documents = operations.filter(isDocumentRoute);
  const own = ['/v1/trust-fabric/catalogue', '/v1/trust-infrastructure', '/v1/ledger', '/health'].map((path) => operations.find((op) => op.method === 'GET' && op.path === path)).filter((op): op is OperationRow => op !== undefined);
  return html`<section aria-labelledby="catalogues-heading">
<h2 id="catalogues-heading">Developer catalogues</h2>
<ul>
${[...own, ...documents].map((op) => html`<li>${endpointCell(baseUrl, op)}: ${op.summary}${op.liveState === 'LIVE' ? '' : html` (${op.liveState})`}</li>\n`)}
</ul>
</section>`;
}

function sandboxSection({ baseUrl, operations }: StudioInput): SafeHtml {
  const runs = operations.filter(isSandboxRun);
  const examples = operations.find((op) => op.method === 'GET' && op.path === '/developers/sandbox/examples.json');
  return html`<section aria-labelledby="sandbox-heading">
<h2 id="sandbox-heading">Sandbox</h2>
<p>Deterministic operations with no production side effects: they issue no credential, change no entitlement, call no payment provider and bind no external authority.
${examples ? html`Ready-made request bodies and demo references are in <a href="${baseUrl}${examples.path}"><code>${examples.path}</code></a>.` : ''}</p>
<div class="scroll"><table>
<thead><tr><th scope="col">Operation</th><th scope="col">liveState</th><th scope="col">Purpose</th></tr></thead>
<tbody>${runs.map((op) => html`<tr><td class="path"><code>POST ${op.path}</code></td><td>${op.liveState}</td><td>${op.summary}</td></tr>\n`)}</tbody>
</table></div>
</section>`;
}

function endpointsSection({ baseUrl, operations }: StudioInput): SafeHtml {
  const openapi = linkIfPublished(operations, baseUrl, '/developers/openapi.json');
  return html`<section aria-labelledby="endpoints-heading">
<h2 id="endpoints-heading">Every endpoint</h2>
<div class="scroll"><table>
<caption>${operations.length} operations, from the contract table${openapi ? html` (<a href="${openapi}">OpenAPI</a>)` : ''}</caption>
<thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">liveState</th><th scope="col">Summary</th></tr></thead>
<tbody>${operations.map((op) => html`<tr><td>${op.method}</td><td class="path">${endpointCell(baseUrl, op)}</td><td>${op.liveState}</td><td>${op.summary}</td></tr>\n`)}</tbody>
</table></div>
</section>`;
}

/** /studio: the operating surface of a deployment, status first. */
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
  return pageDocument({ title: 'Studio', baseUrl: input.baseUrl, main, wide: true });
}
