import type { z } from 'zod';
import { ADAPTERS, type AdapterEntry } from '../contract/adapters';
import { CHANNELS, type ChannelReadiness } from '../contract/channels';
import type { EventContract } from '../contract/events';
import type { LiveState, Operation } from '../contract/operation';
import { contractRegistry } from '../contract/registry';
import {
  ASSET_LIFECYCLES,
  ASSET_TYPES,
  COMMERCIAL_DISPOSITIONS,
  REUSE_SCOPES,
  type Asset,
  type AssetCatalogue,
} from '../contract/schemas/catalogues';
import { STANDARDS, type StandardMaturity } from '../contract/standards';
import { catalogueOf, type AssetFilters, type AssetVocabularies } from './asset-catalogue';

/**
 * The reusable asset catalogue (/developers/assets.json): every operation, named schema, event
 * contract, sandbox provider, standard, channel and adapter of the service, classified by the
 * rules in docs/catalogues.md. Pure: the same sources give the same catalogue, whether the build
 * writes it or the function serves it filtered.
 */
export type AssetEntry = z.infer<typeof Asset>;
export type AssetCatalogueDocument = z.infer<typeof AssetCatalogue>;
type Lifecycle = AssetEntry['lifecycle'];
type ReuseScope = AssetEntry['reuseScope'];
type CommercialDisposition = AssetEntry['commercialDisposition'];

export interface AssetSources {
  operations: readonly Operation[];
  events: readonly EventContract[];
  providers: readonly { providerId: string; description: string }[];
  adapters?: readonly AdapterEntry[];
}

/** Schemas whose presence marks an asset as carrying commercial evidence (never commercial authority). */
const COMMERCIAL_COMPONENTS = new Set(['CustomerAccountOrderCard', 'CommercialProofEvidence', 'CurrentSourceStatus']);

const LIFECYCLE_OF_LIVE_STATE: Record<LiveState, Lifecycle> = { LIVE: 'LIVE', READY: 'READY', SHADOW: 'SHADOW', GATED_BY_PERSISTENCE: 'GATED' };
const LIFECYCLE_OF_MATURITY: Record<StandardMaturity, Lifecycle> = { IMPLEMENTATION_READY: 'READY', TARGET_ALIGNMENT: 'TARGET', REFERENCE: 'REFERENCE' };
const LIFECYCLE_OF_READINESS: Record<ChannelReadiness, Lifecycle> = { ACTIVE: 'LIVE', READY: 'READY' };

/** Lower rank = more available; a schema takes the most available lifecycle among its users. */
const LIFECYCLE_RANK = Object.fromEntries(ASSET_LIFECYCLES.map((l, i) => [l, i])) as Record<Lifecycle, number>;
const mostAvailable = (lifecycles: Lifecycle[], fallback: Lifecycle): Lifecycle =>
  lifecycles.length === 0 ? fallback : lifecycles.reduce((a, b) => (LIFECYCLE_RANK[a] <= LIFECYCLE_RANK[b] ? a : b));

export const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** JSON Pointer of an operation inside /developers/openapi.json. */
export function openApiPointer(op: Pick<Operation, 'path' | 'method'>): string {
  return `/developers/openapi.json#/paths/${op.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${op.method.toLowerCase()}`;
}

/** Named components reachable from a schema (through objects, arrays, unions, wrappers). */
export function referencedComponents(schema: z.ZodType, found = new Set<string>(), seen = new Set<unknown>()): Set<string> {
  if (seen.has(schema)) return found;
  seen.add(schema);
  const id = contractRegistry.get(schema)?.id;
  if (id) found.add(id);
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  const children: unknown[] = [];
  if (def.shape) children.push(...Object.values(def.shape as object));
  for (const key of ['element', 'innerType', 'in', 'out', 'left', 'right', 'keyType', 'valueType', 'rest']) if (def[key]) children.push(def[key]);
  for (const key of ['options', 'items']) if (Array.isArray(def[key])) children.push(...(def[key] as unknown[]));
  for (const child of children) referencedComponents(child as z.ZodType, found, seen);
  return found;
}

export function operationComponents(op: Operation): Set<string> {
  const found = referencedComponents(op.response.schema);
  if (op.requestBody) referencedComponents(op.requestBody.schema, found);
  return found;
}

export function isSandboxPath(path: string): boolean {
  return path.startsWith('/developers/sandbox/');
}

/** The topic an operation belongs to, from its path: /v1/objects/... -> objects, /developers/standards/x.json -> standards. */
export function topicOf(path: string): string {
  const segments = path.split('/').filter(Boolean);
  const meaningful = segments[0] === 'v1' || segments[0] === 'developers' ? segments[1] : segments[0];
  return slug((meaningful ?? 'root').replace(/\.json$/, ''));
}

function operationAssetType(op: Operation): AssetEntry['assetType'] {
  if (op.response.mediaType === 'text/html') return 'PAGE';
  if (op.method === 'GET' && op.path.startsWith('/developers/')) return 'DEVELOPER_DOCUMENT';
  return 'API_OPERATION';
}

function operationReuseScope(op: Operation): ReuseScope {
  if (isSandboxPath(op.path) && op.method === 'POST') return 'SANDBOX_ONLY';
  // Pages and static files (the reference renderer, the icon) are for people, not for building clients against.
  if ((op.response.mediaType ?? 'application/json') !== 'application/json' || /\/examples?(\.json|\/)/.test(op.path)) return 'INFORMATIVE';
  return 'PUBLIC_CONTRACT';
}

function operationCommercial(op: Operation, components: Set<string>): CommercialDisposition {
  if (isSandboxPath(op.path)) return 'SYNTHETIC_ONLY';
  if (op.path.startsWith('/v1/commercial-proofs') || [...components].some((c) => COMMERCIAL_COMPONENTS.has(c))) return 'COMMERCIAL_EVIDENCE';
  return 'NON_COMMERCIAL';
}

function operationAsset(op: Operation): AssetEntry {
  const components = operationComponents(op);
  const assetType = operationAssetType(op);
  return {
    assetId: `operation:${op.operationId}`,
    assetType,
    name: `${op.method} ${op.path}`,
    summary: op.summary,
    lifecycle: LIFECYCLE_OF_LIVE_STATE[op.liveState],
    reuseScope: operationReuseScope(op),
    commercialDisposition: operationCommercial(op, components),
    tags: unique([slug(op.tag), topicOf(op.path)]),
    location: assetType === 'DEVELOPER_DOCUMENT' && !op.path.includes('{') ? op.path : openApiPointer(op),
    productionAuthority: false,
  };
}

function schemaAssets(operationAssets: Map<Operation, AssetEntry>): AssetEntry[] {
  const users = new Map<string, AssetEntry[]>();
  for (const [op, asset] of operationAssets) for (const id of operationComponents(op)) (users.get(id) ?? users.set(id, []).get(id)!).push(asset);
  // By name: the registry's order is the order schema modules happened to load in, which differs
  // between processes, and the catalogue is generated once and compared byte for byte.
  const named = [...contractRegistry._idmap.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return named.map(([id, schema]) => {
    const using = users.get(id) ?? [];
    const scopes = new Set(using.map((a) => a.reuseScope));
    const commercial = new Set(using.map((a) => a.commercialDisposition));
    return {
      assetId: `schema:${id}`,
      assetType: 'SCHEMA',
      name: id,
      summary: contractRegistry.get(schema)?.description ?? (schema as z.ZodType).description ?? `The ${id} schema.`,
      lifecycle: mostAvailable(using.map((a) => a.lifecycle), 'REFERENCE'),
      reuseScope: scopes.has('PUBLIC_CONTRACT') ? 'PUBLIC_CONTRACT' : scopes.has('SANDBOX_ONLY') ? 'SANDBOX_ONLY' : 'INFORMATIVE',
      commercialDisposition: COMMERCIAL_COMPONENTS.has(id) || commercial.has('COMMERCIAL_EVIDENCE')
        ? 'COMMERCIAL_EVIDENCE'
        : using.length > 0 && commercial.size === 1 && commercial.has('SYNTHETIC_ONLY')
          ? 'SYNTHETIC_ONLY'
          : 'NON_COMMERCIAL',
      tags: unique(['schemas', ...using.flatMap((a) => a.tags)]),
      location: `/developers/openapi.json#/components/schemas/${id}`,
      productionAuthority: false,
    } satisfies AssetEntry;
  });
}

function channelLifecycle(keys: readonly string[]): Lifecycle {
  return mostAvailable(
    CHANNELS.filter((c) => keys.includes(c.key)).map((c) => LIFECYCLE_OF_READINESS[c.readiness]),
    'READY',
  );
}

function eventAsset(event: EventContract): AssetEntry {
  return {
    assetId: `event:${event.type}`,
    assetType: 'EVENT_CONTRACT',
    name: event.name,
    summary: event.summary,
    lifecycle: channelLifecycle(event.channels),
    reuseScope: 'PUBLIC_CONTRACT',
    commercialDisposition: event.source.startsWith('/v1/commercial-proofs') ? 'COMMERCIAL_EVIDENCE' : 'NON_COMMERCIAL',
    tags: unique(['events', topicOf(event.source)]),
    location: `/developers/asyncapi.json#/components/messages/${event.name}`,
    productionAuthority: false,
  };
}

export const SANDBOX_RUN_PATH = '/developers/sandbox/providers/{providerId}/run';

function providerAsset(provider: { providerId: string; description: string }, operations: readonly Operation[]): AssetEntry {
  const run = operations.find((op) => op.path === SANDBOX_RUN_PATH);
  return {
    assetId: `provider:${provider.providerId}`,
    assetType: 'SANDBOX_PROVIDER',
    name: provider.providerId,
    summary: provider.description,
    lifecycle: run ? LIFECYCLE_OF_LIVE_STATE[run.liveState] : 'READY',
    reuseScope: 'SANDBOX_ONLY',
    commercialDisposition: 'SYNTHETIC_ONLY',
    tags: ['sandbox', 'providers'],
    location: '/developers/sandbox/providers.json',
    productionAuthority: false,
  };
}

function standardAssets(): AssetEntry[] {
  return STANDARDS.map((s) => ({
    assetId: `standard:${s.key}`,
    assetType: 'STANDARD_PROFILE',
    name: s.standard,
    summary: s.notes,
    lifecycle: LIFECYCLE_OF_MATURITY[s.maturity],
    reuseScope: 'INFORMATIVE',
    commercialDisposition: 'NON_COMMERCIAL',
    tags: ['standards'],
    location: '/developers/standards/catalogue.json',
    productionAuthority: false,
  }));
}

function channelAssets(): AssetEntry[] {
  return CHANNELS.map((c) => ({
    assetId: `channel:${c.key}`,
    assetType: 'CHANNEL',
    name: c.key,
    summary: c.description,
    lifecycle: LIFECYCLE_OF_READINESS[c.readiness],
    reuseScope: 'INFORMATIVE',
    commercialDisposition: 'NON_COMMERCIAL',
    tags: ['channels'],
    location: '/developers/catalogue.json',
    productionAuthority: false,
  }));
}

function adapterAsset(adapter: AdapterEntry, events: readonly EventContract[]): AssetEntry {
  const carriesCommercial = adapter.events.some((type) => events.find((e) => e.type === type)?.source.startsWith('/v1/commercial-proofs'));
  return {
    assetId: `adapter:${adapter.adapterId}`,
    assetType: 'ADAPTER',
    name: adapter.title,
    summary: `${adapter.direction === 'OUTBOUND' ? 'Outbound' : 'Inbound'} adapter on ${adapter.channel}. ${adapter.gate}`,
    lifecycle: 'GATED',
    reuseScope: 'INFORMATIVE',
    commercialDisposition: carriesCommercial ? 'COMMERCIAL_EVIDENCE' : 'NON_COMMERCIAL',
    tags: unique(['adapters', slug(adapter.channel)]),
    location: '/developers/adapters/v2.json',
    productionAuthority: false,
  };
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

export function buildAssets(sources: AssetSources): AssetEntry[] {
  const operationAssets = new Map(sources.operations.map((op) => [op, operationAsset(op)] as const));
  return [
    ...operationAssets.values(),
    ...schemaAssets(operationAssets),
    ...sources.events.map(eventAsset),
    ...sources.providers.map((p) => providerAsset(p, sources.operations)),
    ...standardAssets(),
    ...channelAssets(),
    ...(sources.adapters ?? ADAPTERS).map((a) => adapterAsset(a, sources.events)),
  ];
}

/** The contract's vocabularies of the classifying fields. */
export const ASSET_VOCABULARIES: AssetVocabularies = {
  assetType: [...ASSET_TYPES],
  lifecycle: [...ASSET_LIFECYCLES],
  reuseScope: [...REUSE_SCOPES],
  commercialDisposition: [...COMMERCIAL_DISPOSITIONS],
};

/** The catalogue document; filters combine with AND, and an absent filter matches everything. */
export function assetCatalogue(assets: readonly AssetEntry[], filters: AssetFilters = {}): AssetCatalogueDocument {
  return catalogueOf(assets, ASSET_VOCABULARIES, filters);
}
