import type { AssetCatalogue, Asset } from '../contract/schemas/catalogues';

/**
 * Filtering the asset catalogue: plain data in, the catalogue document out. Kept apart from the
 * builder (assets.ts), which reads every zod schema of the contract, so the assets.json function
 * serves the catalogue generated at build time (functions/generated/assets.ts) without loading
 * the table. Only type imports from the schemas: nothing of zod reaches a bundle from here.
 */
type AssetEntry = import('zod').infer<typeof Asset>;
type AssetCatalogueDocument = import('zod').infer<typeof AssetCatalogue>;
type AssetTag = AssetEntry['tags'][number];

export interface AssetFilters {
  assetType?: AssetEntry['assetType'];
  lifecycle?: AssetEntry['lifecycle'];
  reuseScope?: AssetEntry['reuseScope'];
  commercialDisposition?: AssetEntry['commercialDisposition'];
  tag?: AssetTag;
}

export const ASSET_FILTER_NAMES = ['assetType', 'lifecycle', 'reuseScope', 'commercialDisposition', 'tag'] as const;

/** Every value each classifying field may take (the contract's vocabularies). */
export type AssetVocabularies = Omit<AssetCatalogueDocument['vocabularies'], 'tag'>;

export function assetTags(assets: readonly AssetEntry[]): AssetTag[] {
  return [...new Set(assets.flatMap((a) => a.tags))].sort();
}

/** The catalogue document; filters combine with AND, and an absent filter matches everything. */
export function catalogueOf(assets: readonly AssetEntry[], vocabularies: AssetVocabularies, filters: AssetFilters = {}): AssetCatalogueDocument {
  const matching = assets.filter(
    (a) =>
      (filters.assetType === undefined || a.assetType === filters.assetType) &&
      (filters.lifecycle === undefined || a.lifecycle === filters.lifecycle) &&
      (filters.reuseScope === undefined || a.reuseScope === filters.reuseScope) &&
      (filters.commercialDisposition === undefined || a.commercialDisposition === filters.commercialDisposition) &&
      (filters.tag === undefined || a.tags.includes(filters.tag)),
  );
  return {
    schemaVersion: 'svc.asset-catalogue.v1',
    filters: {
      assetType: filters.assetType ?? null,
      lifecycle: filters.lifecycle ?? null,
      reuseScope: filters.reuseScope ?? null,
      commercialDisposition: filters.commercialDisposition ?? null,
      tag: filters.tag ?? null,
    },
    vocabularies: {
      assetType: [...vocabularies.assetType],
      lifecycle: [...vocabularies.lifecycle],
      reuseScope: [...vocabularies.reuseScope],
      commercialDisposition: [...vocabularies.commercialDisposition],
      tag: assetTags(assets),
    },
    total: assets.length,
    count: matching.length,
    assets: matching,
  };
}
