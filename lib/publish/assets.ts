import type { z } from 'zod';
import { CHANNELS } from '../../functions/contract/channels';
import { contractRegistry } from '../../functions/contract/registry';
import type { AssetAudit } from '../../functions/contract/schemas/catalogues';
import type { StandardKey } from '../../functions/contract/standards';
import {
  assetCatalogue,
  buildAssets,
  operationComponents,
  referencedComponents,
  type AssetCatalogueDocument,
  type AssetEntry,
} from '../../functions/domain/assets';
import { buildQuickstarts } from './catalogue';
import { demoPath } from './demo-values';
import { examplePayloads } from './events';
import { evidenceProfile } from './standards';
import type { PublishSources } from './sources';
import { declaredVersion } from './versions';

export function publishedAssets(sources: PublishSources): AssetEntry[] {
  return buildAssets({ operations: sources.operations, events: sources.events, providers: sources.providers, adapters: sources.adapters });
}

/** The unfiltered catalogue, exactly as GET /developers/assets.json answers without filters. */
export function buildAssetCatalogue(sources: PublishSources): AssetCatalogueDocument {
  return assetCatalogue(publishedAssets(sources));
}

export const GAP_CODES = {
  UNVERSIONED_BODY: 'The JSON body declares no version constant (schemaVersion, openapi, asyncapi or specversion).',
  RESPONSE_SCHEMA_UNNAMED: 'The response schema is not a named component, so clients cannot reuse it by name.',
  NO_DEMO_VALUE: 'No demo reference exists for a path parameter, so the operation cannot be tried at once.',
  NOT_ACTIVATED: 'Published but not activated (READY): nothing in production depends on it yet.',
  SHADOW_ONLY: 'Evaluates decisions that nothing acts on.',
  AVAILABILITY_GATED: 'Served only where its persistence dependency is configured.',
  UNREFERENCED: 'No operation uses the schema.',
  UNDESCRIBED: 'The schema carries no description.',
  EXAMPLE_INVALID: 'The published example does not satisfy its own schema.',
  NOT_DELIVERED: 'No ACTIVE channel delivers it yet.',
  EVIDENCE_INCOMPLETE: 'An IMPLEMENTATION_READY standard whose implementation evidence is not all present.',
  CHANNEL_NOT_ACTIVE: 'The channel is READY, not ACTIVE.',
  ADAPTER_NOT_ACTIVATED: 'The adapter is declared, not activated; activation is an external, gated decision.',
} as const;
type GapCode = keyof typeof GAP_CODES;
type Gap = { code: GapCode; detail: string };

const gap = (code: GapCode, detail: string = GAP_CODES[code]): Gap => ({ code, detail });

function providerExampleWorks(provider: PublishSources['providers'][number]): boolean {
  const parsed = provider.requestSchema.safeParse(provider.exampleRequest);
  if (!parsed.success) return false;
  try {
    provider.run(parsed.data);
    return true;
  } catch {
    return false;
  }
}

/**
 * The audit of every asset: how a developer obtains it (packaging) and what keeps it from being
 * reused as is (gaps). Each gap is a check made on the canonical sources at build time.
 */
export function buildAssetAudit(sources: PublishSources): z.input<typeof AssetAudit> {
  const assets = publishedAssets(sources);
  const quickstartOps = new Set(buildQuickstarts(sources).quickstarts.flatMap((q) => q.steps.map((s) => s.operationId)));
  const usedComponents = new Set([
    ...sources.operations.flatMap((op) => [...operationComponents(op)]),
    ...sources.events.flatMap((e) => [...referencedComponents(e.payload)]),
    ...sources.providers.flatMap((p) => [...referencedComponents(p.requestSchema)]),
  ]);
  const examples = examplePayloads(sources);
  const providerIds = sources.providers.map((p) => p.providerId);

  const audited = assets.map((asset) => {
    const [kind, ...rest] = asset.assetId.split(':');
    const id = rest.join(':');
    const packaging: string[] = [];
    const gaps: Gap[] = [];
    switch (kind) {
      case 'operation': {
        const op = sources.operations.find((o) => o.operationId === id)!;
        packaging.push('OPENAPI_OPERATION', 'DEVELOPER_CATALOGUE_ENTRY');
        if (op.integration.kind === 'document') packaging.push('BUILT_DOCUMENT');
        if (quickstartOps.has(op.operationId)) packaging.push('QUICKSTART');
        const json = (op.response.mediaType ?? 'application/json') === 'application/json';
        if (json && declaredVersion(op.response.schema) === null) gaps.push(gap('UNVERSIONED_BODY'));
        if (!contractRegistry.get(op.response.schema) && json) gaps.push(gap('RESPONSE_SCHEMA_UNNAMED'));
        if (demoPath(op, sources.demo, providerIds) === null) gaps.push(gap('NO_DEMO_VALUE'));
        if (op.liveState === 'READY') gaps.push(gap('NOT_ACTIVATED'));
        if (op.liveState === 'SHADOW') gaps.push(gap('SHADOW_ONLY'));
        if (op.liveState === 'GATED_BY_PERSISTENCE') gaps.push(gap('AVAILABILITY_GATED'));
        break;
      }
      case 'schema': {
        packaging.push('OPENAPI_COMPONENT');
        if (!usedComponents.has(id)) gaps.push(gap('UNREFERENCED'));
        if (!contractRegistry.get(contractRegistry._idmap.get(id)!)?.description && !(contractRegistry._idmap.get(id) as z.ZodType).description) {
          gaps.push(gap('UNDESCRIBED'));
        }
        break;
      }
      case 'event': {
        const contract = sources.events.find((e) => e.type === id)!;
        packaging.push('ASYNCAPI_MESSAGE');
        if (sources.events[0] === contract) packaging.push('CLOUDEVENT_EXAMPLE');
        if (!contract.payload.safeParse(examples[contract.type]).success) gaps.push(gap('EXAMPLE_INVALID'));
        const delivered = contract.channels.some((key) => CHANNELS.find((c) => c.key === key)?.readiness === 'ACTIVE');
        if (!delivered) gaps.push(gap('NOT_DELIVERED', `Delivered through ${contract.channels.join(', ')}, none of them ACTIVE yet.`));
        break;
      }
      case 'provider': {
        const provider = sources.providers.find((p) => p.providerId === id)!;
        packaging.push('SANDBOX_PROVIDER_CATALOGUE', 'CERTIFICATION_KIT');
        if (!providerExampleWorks(provider)) gaps.push(gap('EXAMPLE_INVALID'));
        break;
      }
      case 'standard': {
        packaging.push('STANDARDS_CATALOGUE');
        const profile = evidenceProfile(id as StandardKey, sources);
        if (asset.lifecycle === 'READY' && !profile.evidenceComplete) {
          const missing = profile.evidence.filter((e) => !e.present).map((e) => e.ref);
          gaps.push(gap('EVIDENCE_INCOMPLETE', missing.length > 0 ? `Missing: ${missing.join(', ')}.` : 'No implementation evidence is named.'));
        }
        break;
      }
      case 'channel': {
        packaging.push('DEVELOPER_CATALOGUE_ENTRY');
        if (asset.lifecycle !== 'LIVE') gaps.push(gap('CHANNEL_NOT_ACTIVE'));
        break;
      }
      case 'adapter': {
        packaging.push('ADAPTER_MANIFEST', 'NETWORK_CONFORMANCE');
        gaps.push(gap('ADAPTER_NOT_ACTIVATED'));
        break;
      }
    }
    return { assetId: asset.assetId, assetType: asset.assetType, packaging, gaps };
  });

  const gapsByCode: Record<string, number> = {};
  for (const entry of audited) for (const g of entry.gaps) gapsByCode[g.code] = (gapsByCode[g.code] ?? 0) + 1;
  return {
    schemaVersion: 'svc.asset-audit.v1',
    summary: { assets: audited.length, withGaps: audited.filter((a) => a.gaps.length > 0).length, gapsByCode },
    gapCodes: Object.entries(GAP_CODES).map(([code, meaning]) => ({ code, meaning })),
    assets: audited,
  };
}
