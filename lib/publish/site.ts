import { createHash } from 'node:crypto';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxProvider } from '../../functions/domain/sandbox/providers';
import { runProvider } from '../../functions/domain/sandbox/providers';
import { serializeDocument } from '../../functions/domain/documents';
import { TRUST_CONTEXT_PATH, TRUST_CONTEXT_V1 } from '../../functions/contract/credential-context';
import { buildOpenApi } from '../contract/openapi';
import { localOrigins, NEUTRAL_ORIGINS, type Origins } from '../contract/origins';
import { buildAdapterManifest, buildNetworkConformance } from './adapters';
import { buildAssetAudit, buildAssetCatalogue } from './assets';
import { buildDeveloperCatalogue } from './catalogue';
import { buildContractCatalogue, CONTRACT_DOCUMENTS } from './contracts';
import { buildAsyncApi, buildEventExample } from './events';
import { buildProblemDetailsExample } from './problem-details';
import { buildReleaseEvidence } from './release-evidence';
import { buildStaticFiles } from './reference';
import { buildProviderCertification, buildSandboxExamples, buildSandboxProviders } from './sandbox';
import { canonicalSources, type PublishSources } from './sources';
import { buildEudiArf3, buildIso20022, buildStandardsCatalogue } from './standards';
import { buildTelemetryReadiness } from './telemetry';

/** Bucket key of a document path: /developers/catalogue.json -> developers/catalogue.json. */
export const keyOf = (documentPath: string): string => documentPath.replace(/^\//, '');

const sha256 = (bytes: string) => createHash('sha256').update(bytes).digest('hex');

/**
 * Documents that name the service's origins (server URLs, base URLs). The stack fills their
 * origins in at deploy time (the API's own URL is known only then); every other document is the
 * same bytes for every host.
 */
export const ORIGIN_DOCUMENTS: readonly string[] = ['/developers/openapi.json', '/developers/catalogue.json'];

/**
 * Documents a load publishes (`npm run load` with the catalogue bucket): derived from the records
 * it loaded, so the deployment's own copies are templates the stack deploys only until then
 * (lib/stack/catalogue.ts) and the release evidence digests their template form.
 */
export const LOADED_DOCUMENTS: readonly string[] = ['/developers/sandbox/examples.json'];

/** Builders of the documents that name origins. */
function originBuilders(sources: PublishSources, origins: Origins): Record<string, () => unknown> {
  return {
    '/developers/openapi.json': () => buildOpenApi(origins),
    '/developers/catalogue.json': () => buildDeveloperCatalogue(sources, origins),
  };
}

/** Builders whose documents nothing else depends on, by document path. */
function independentBuilders(sources: PublishSources): Record<string, () => unknown> {
  return {
    '/developers/asyncapi.json': () => buildAsyncApi(sources),
    '/developers/events/example.json': () => buildEventExample(sources),
    '/developers/problem-details/example.json': () => buildProblemDetailsExample(),
    '/developers/assets.json': () => buildAssetCatalogue(sources),
    '/developers/assets/audit.json': () => buildAssetAudit(sources),
    '/developers/provider-certification/v1.json': () => buildProviderCertification(sources, (p, r) => runProvider(p as SandboxProvider, r)),
    '/developers/network-conformance.json': () => buildNetworkConformance(sources),
    '/developers/sandbox/providers.json': () => buildSandboxProviders(sources),
    '/developers/sandbox/examples.json': () => buildSandboxExamples(sources),
    '/developers/adapters/v2.json': () => buildAdapterManifest(sources),
    '/developers/telemetry/readiness.json': () => buildTelemetryReadiness(),
    '/developers/standards/catalogue.json': () => buildStandardsCatalogue(sources),
    '/developers/standards/eudi-arf3.json': () => buildEudiArf3(),
    '/developers/standards/iso20022.json': () => buildIso20022(),
    [TRUST_CONTEXT_PATH]: () => TRUST_CONTEXT_V1,
  };
}

/**
 * Every developer document, serialised, keyed by its bucket key. Each document is parsed against
 * its operation's response schema before it is accepted, and every GET /developers/ operation of
 * the contract table (and the service's JSON-LD context) must get exactly one document: a route without a document, or a document
 * without a route, fails the build.
 */
export function buildSite(sources: PublishSources, origins: Origins = localOrigins()): Map<string, string> {
  const routes = new Map(
    sources.operations
      .filter((op) => op.method === 'GET' && (op.path.startsWith('/developers/') || op.path === TRUST_CONTEXT_PATH) && (op.response.mediaType ?? 'application/json') === 'application/json')
      .map((op) => [op.path, op] as const),
  );
  const documents = new Map<string, string>();
  const add = (documentPath: string, document: unknown) => {
    const op = routes.get(documentPath);
    if (!op) throw new Error(`${documentPath} is built but no GET operation of the contract table serves it`);
    const parsed = op.response.schema.safeParse(document);
    if (!parsed.success) throw new Error(`${documentPath} does not satisfy its response schema: ${parsed.error.message}`);
    documents.set(documentPath, serializeDocument(document));
  };
  for (const [documentPath, build] of Object.entries(independentBuilders(sources))) add(documentPath, build());
  for (const [documentPath, build] of Object.entries(originBuilders(sources, origins))) add(documentPath, build());
  for (const [filePath, text] of buildStaticFiles(sources.operations)) documents.set(filePath, text); // the API reference files and the icon (reference.ts checks their routes)

  // Digests are of the origin-neutral form (NEUTRAL_ORIGINS), the same for every host, and of the
  // documents a load publishes in their template form, the same whatever records are loaded: see docs/catalogues.md.
  const neutral = new Map(Object.entries(originBuilders(sources, NEUTRAL_ORIGINS)).map(([p, build]) => [p, serializeDocument(build())]));
  const templates = sources.ingressRecords ? { ...sources, ingressRecords: undefined, ingressExamplesAt: undefined } : sources;
  for (const documentPath of LOADED_DOCUMENTS) neutral.set(documentPath, serializeDocument(independentBuilders(templates)[documentPath]()));
  const digestsOf = (paths: Iterable<string>) => Object.fromEntries([...paths].map((p) => [p, sha256(neutral.get(p) ?? documents.get(p)!)]));
  add('/developers/contracts.json', buildContractCatalogue(sources, digestsOf(CONTRACT_DOCUMENTS.map((c) => c.path))));
  add('/developers/release-evidence/example.json', buildReleaseEvidence(sources, Object.fromEntries(Object.entries(digestsOf(documents.keys())).map(([p, d]) => [keyOf(p), d]))));

  const missing = [...routes.keys()].filter((p) => !documents.has(p));
  if (missing.length > 0) throw new Error(`no builder for ${missing.join(', ')}`);
  return new Map([...documents].map(([p, bytes]) => [keyOf(p), bytes]));
}

/** Writes each document atomically (temporary file, then rename), so a reader never sees half a document. */
export async function writeSite(dir: string, site: Map<string, string>): Promise<void> {
  for (const [key, bytes] of site) {
    const file = path.join(dir, key);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, file);
  }
}

/**
 * Removes files of an earlier build that this build no longer produces, so a document dropped
 * from the contract table is not deployed to the bucket again.
 */
export async function pruneSite(dir: string, site: Map<string, string>): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const stale = entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((key) => !site.has(key));
  for (const key of stale) await rm(path.join(dir, key), { force: true });
  return stale;
}

/**
 * Only the documents that name origins (ORIGIN_DOCUMENTS), for the given origins, keyed by bucket
 * key and checked against their schemas like every document: what the stack deploys in place of
 * the build output's copies.
 */
export function buildOriginDocuments(sources: PublishSources, origins: Origins): Map<string, string> {
  const out = new Map<string, string>();
  for (const [documentPath, build] of Object.entries(originBuilders(sources, origins))) {
    const op = sources.operations.find((o) => o.method === 'GET' && o.path === documentPath);
    if (!op) throw new Error(`${documentPath} is built but no GET operation of the contract table serves it`);
    const document = build();
    const parsed = op.response.schema.safeParse(document);
    if (!parsed.success) throw new Error(`${documentPath} does not satisfy its response schema: ${parsed.error.message}`);
    out.set(keyOf(documentPath), serializeDocument(document));
  }
  return out;
}

/**
 * Builds every published document for the given origins and writes it below `dir`, each file
 * atomically (the local host calls this at start-up with its own URL, so the documents it serves
 * name it). Other files in `dir` are left alone (pages or documents other builders put there).
 * Returns the bucket keys written.
 */
export async function publishSite(dir: string, origins: Origins = localOrigins(), sources?: PublishSources): Promise<string[]> {
  const site = buildSite(sources ?? canonicalSources(), origins);
  await writeSite(dir, site);
  return [...site.keys()];
}
