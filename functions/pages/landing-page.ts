import type { Operation } from '../contract/operation';
import type { LandingEntry, LandingIndex } from '../contract/schemas/landing';
import { SERVICE_NAME } from '../contract/service';
import type { LiveState } from '../contract/operation';
import { SITE_PATHS } from '../contract/site-paths';
import { code, html, type SafeHtml } from './markup';
import { pageDocument } from './frame';
import type { Lang } from './i18n';
import type { LandingWords } from './landing-languages';
import { languageLinks } from './language-links';
import { lookupForm } from './lookup';

/** The part of an operation the landing reads (so the builder accepts any contract table). */
export type LandingRow = Pick<Operation, 'operationId' | 'method' | 'path' | 'liveState' | 'summary' | 'requiredQueryParams'> & { response: Pick<Operation['response'], 'mediaType'> };

export type LandingSection = 'trustRoutes' | 'pages' | 'developerDocuments' | 'sandbox' | 'files';

const SANDBOX_PREFIX = '/developers/sandbox/';
const DEVELOPER_PREFIX = '/developers/';

/** The landing and the developer start declare their JSON answer, and answer browsers with a page. */
const NEGOTIATED_PAGES = new Set<string>([SITE_PATHS.home, SITE_PATHS.developers]);

const mediaTypeOf = (op: LandingRow): string => op.response.mediaType ?? 'application/json';

/**
 * Which section of the index an operation belongs to; every operation belongs to exactly one, so
 * the index is the whole contract table and a new operation appears without being typed again.
 * First match wins: HTML answers (and the landing and developer start, which negotiate) are
 * pages; sandbox POSTs are the sandbox; any other answer that is not JSON is a static file; JSON
 * under /developers/ is a developer document; the rest (/health, /v1/...) are the trust routes.
 */
export function landingSection(op: LandingRow): LandingSection {
  const mediaType = mediaTypeOf(op);
  if (mediaType === 'text/html' || NEGOTIATED_PAGES.has(op.path)) return 'pages';
  if (op.method === 'POST' && op.path.startsWith(SANDBOX_PREFIX)) return 'sandbox';
  if (mediaType !== 'application/json') return 'files';
  if (op.path.startsWith(DEVELOPER_PREFIX)) return 'developerDocuments';
  return 'trustRoutes';
}

/** Joins a base URL (no trailing slash) and a path; the root path keeps its slash. */
export const absolute = (baseUrl: string, path: string): string => `${baseUrl}${path}`;

function entry(baseUrl: string, op: LandingRow): LandingEntry {
  return {
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    // Required query parameters make the URL an RFC 6570 template too ({?from,to}).
    href: absolute(baseUrl, op.path) + (op.requiredQueryParams?.length ? `{?${op.requiredQueryParams.join(',')}}` : ''),
    templated: op.path.includes('{') || (op.requiredQueryParams?.length ?? 0) > 0,
    mediaType: mediaTypeOf(op),
    liveState: op.liveState,
    summary: op.summary,
  };
}

export const LANDING_DESCRIPTION =
  'Public, read-only trust and verification information: what is true about a living object, a commercial proof or a ' +
  'credential right now, how fresh and complete that answer is, and ledger evidence anyone can re-check offline. ' +
  'Responses never contain customer personal data or payment account data; ledger evidence proves integrity only, never authority.';

/**
 * The JSON index answered at / and /developers, built from the contract table: every operation
 * exactly once, in table order, with its absolute URL on this deployment. Links name routes by
 * operationId and are left out when the table does not publish them (never a dead link).
 */
export function buildLandingIndex(operations: readonly LandingRow[], baseUrl: string, selfPath: string): LandingIndex {
  const sections: Record<LandingSection, LandingEntry[]> = { trustRoutes: [], pages: [], developerDocuments: [], sandbox: [], files: [] };
  for (const op of operations) sections[landingSection(op)].push(entry(baseUrl, op));
  const linkTo = (operationId: string): string | undefined => {
    const op = operations.find((o) => o.operationId === operationId && o.method === 'GET' && !o.path.includes('{'));
    return op ? absolute(baseUrl, op.path) : undefined;
  };
  const optional = {
    apiReference: linkTo('getApiReference'),
    openApi: linkTo('getOpenApiContract'),
    catalogue: linkTo('getDeveloperCatalogue'),
    verify: linkTo('getVerifyPage'),
    studio: linkTo('getStudio'),
    health: linkTo('getHealth'),
  };
  return {
    schemaVersion: 'svc.landing-index.v1',
    service: SERVICE_NAME,
    description: LANDING_DESCRIPTION,
    links: {
      self: absolute(baseUrl, selfPath),
      home: absolute(baseUrl, SITE_PATHS.home),
      developers: absolute(baseUrl, SITE_PATHS.developers),
      ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
    },
    ...sections,
    disclosure: { class: 'PUBLIC_CATALOGUE', containsCustomerPii: false, containsPaymentAccountData: false },
  };
}

/**
 * What each liveState means for someone reading the route list, in words; the contract's code
 * stays beside them. A route gated by persistence works wherever its store is configured (as on
 * any deployment with a table); READY routes are served but not relied on yet.
 */
export const LIVE_STATE_WORDS: Record<LiveState, string> = {
  LIVE: 'Live',
  READY: 'Served, not activated yet',
  GATED_BY_PERSISTENCE: 'Live where its store is configured',
  SHADOW: 'Evaluation only: decides nothing',
};

export const liveStateCell = (state: LiveState): SafeHtml => html`${LIVE_STATE_WORDS[state] ?? state} ${code(state, 'muted')}`;

/** A route as a link when it can be followed as is (a GET without parameters), else as code. */
function routeCell(e: LandingEntry): SafeHtml {
  return e.method === 'GET' && !e.templated ? html`<a href="${e.href}">${code(e.path)}</a>` : code(e.path);
}

/** A table of routes; on a phone each route becomes a block of lines (table.rows). */
function routeTable(caption: string, entries: readonly LandingEntry[], showMethod: boolean): SafeHtml {
  if (entries.length === 0) return html``;
  return html`<div class="scroll"><table class="rows">
<caption>${caption}</caption>
<thead><tr><th scope="col">${showMethod ? 'Route' : 'Path'}</th><th scope="col">What it answers</th><th scope="col">Availability</th></tr></thead>
<tbody>${entries.map((e) => html`<tr><td class="path">${showMethod ? html`<code>${e.method}</code> ` : ''}${routeCell(e)}</td><td>${e.summary}</td><td>${liveStateCell(e.liveState)}</td></tr>\n`)}</tbody>
</table></div>`;
}

const link = (href: string | undefined, text: string): SafeHtml => (href ? html`<a href="${href}">${text}</a>` : html`${text}`);

function jsonNote(index: LandingIndex): SafeHtml {
  return html`<p class="hint">Clients that do not ask for HTML get this index as JSON (<code>${index.schemaVersion}</code>) from this address and from <code>/</code>:
<code>curl ${index.links.self}</code>.</p>`;
}

/**
 * GET / for people, in their language: what they can check, the form to check it, and where
 * developers and operators start. The route index is on /developers (and in the JSON answered here).
 */
export function renderLanding(index: LandingIndex, t: LandingWords): string {
  const { links } = index;
  const base = linksBase(index);
  const main = html`<h1>${t('frame.serviceName')}</h1>
<p>${t('landing.intro')}</p>
<section aria-labelledby="check-heading">
<h2 id="check-heading">${t('landing.checkHeading')}</h2>
${lookupForm(base, undefined, false, t)}
<p>${t('landing.qr')}</p>
</section>
<section aria-labelledby="what-heading">
<h2 id="what-heading">${t('landing.whatHeading')}</h2>
<ul>
<li>${t('landing.what.objects')}</li>
<li>${t('landing.what.proofs')}</li>
<li>${t('landing.what.credentials')}</li>
</ul>
<p class="muted">${t('landing.privacy')}</p>
</section>
<section aria-labelledby="more-heading">
<h2 id="more-heading">${t('landing.moreHeading')}</h2>
<ul>
<li>${t('landing.developers', { href: links.developers })}</li>
${links.studio ? html`<li>${t('landing.studio', { href: links.studio })}</li>\n` : ''}</ul>
</section>`;
  const languages = languageLinks(t, (lang: Lang) => `${links.home}?lang=${lang}`);
  return pageDocument({ title: t.text('landing.title'), baseUrl: base, main, t, languages });
}

/** GET /developers for people: the reference first, then every document, the sandbox, the routes and the pages. */
export function renderDeveloperLanding(index: LandingIndex): string {
  const { links } = index;
  const main = html`<h1>Developers</h1>
<p>Everything below is generated from one contract table, so each route here is served as described.
${links.apiReference ? html`Start with the ${link(links.apiReference, 'API reference')}${links.openApi ? html` or the ${link(links.openApi, 'OpenAPI 3.1 contract')} itself` : ''}.` : ''}</p>
<section aria-labelledby="routes-heading">
<h2 id="routes-heading">Trust and verification routes</h2>
${routeTable('{braces} are parameters to fill in', index.trustRoutes, true)}
</section>
<section aria-labelledby="documents-heading">
<h2 id="documents-heading">Developer documents</h2>
${routeTable('Generated JSON documents, each a GET with an ETag', index.developerDocuments, false)}
</section>
<section aria-labelledby="sandbox-heading">
<h2 id="sandbox-heading">Sandbox</h2>
<p>Deterministic operations with no production side effects: they issue no credential, change no entitlement, call no payment provider and bind no external authority.</p>
${routeTable('POST with a JSON body', index.sandbox, false)}
</section>
<section aria-labelledby="pages-heading">
<h2 id="pages-heading">Pages and files</h2>
${routeTable('HTML pages for people', index.pages, false)}
${routeTable('Static files (the API reference renderer and the site icon)', index.files, false)}
${jsonNote(index)}
</section>`;
  return pageDocument({ title: 'Developers', baseUrl: linksBase(index), main });
}

/** The base URL the index was built for (home is the base URL plus "/"). */
function linksBase(index: LandingIndex): string {
  return index.links.home.slice(0, -SITE_PATHS.home.length);
}
