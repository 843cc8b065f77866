import { EVENT_CONTRACTS } from '../contract/events';
import { cataloguesOperations } from '../contract/operations/catalogues';
import { operations } from '../contract/operations';
import { ASSET_FILTER_NAMES, assetCatalogue, assetTags, buildAssets, type AssetEntry, type AssetFilters } from '../domain/assets';
import { DOCUMENT_CACHE_CONTROL, DOCUMENT_MEDIA_TYPE, documentEtag, matchesIfNoneMatch, serializeDocument } from '../domain/documents';
import { SANDBOX_PROVIDERS } from '../domain/sandbox/providers';
import { httpHandler } from '../http/boundary';
import { parseParam } from '../http/params';
import { Problem } from '../http/problem';

/**
 * GET /developers/assets.json: the asset catalogue is generated from the canonical sources
 * bundled with this function (the same pure builder the build uses), once per execution
 * environment, then filtered per request. No store or bucket is read (docs/catalogues.md
 * says why this beats reading the built document from S3).
 */
const listAssets = cataloguesOperations.find((op) => op.operationId === 'listAssets')!;
const filterSchemas = listAssets.queryParams!;

let assets: AssetEntry[] | undefined;
let knownTags: Set<string> | undefined;

function catalogueAssets(): AssetEntry[] {
  assets ??= buildAssets({ operations, events: EVENT_CONTRACTS, providers: SANDBOX_PROVIDERS });
  knownTags ??= new Set(assetTags(assets));
  return assets;
}

function filtersFrom(query: Record<string, string>): AssetFilters {
  const unknown = Object.keys(query).filter((name) => !(ASSET_FILTER_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Problem('INVALID_PARAMETER', `Unknown query parameter '${unknown[0]}'; the filters are ${ASSET_FILTER_NAMES.join(', ')}.`, {
      parameter: unknown[0],
    });
  }
  const filters: Record<string, string> = {};
  for (const name of ASSET_FILTER_NAMES) {
    if (query[name] !== undefined) filters[name] = parseParam(filterSchemas[name], name, query[name]) as string;
  }
  if (filters.tag !== undefined && !knownTags!.has(filters.tag)) {
    throw new Problem('INVALID_PARAMETER', `Parameter 'tag' is invalid: '${filters.tag}' is not a tag of this catalogue; tags: ${[...knownTags!].join(', ')}.`, {
      parameter: 'tag',
    });
  }
  return filters as AssetFilters;
}

export const handler = httpHandler(async (request) => {
  const all = catalogueAssets();
  const body = serializeDocument(assetCatalogue(all, filtersFrom(request.query)));
  const etag = documentEtag(body);
  const headers = { etag, 'cache-control': DOCUMENT_CACHE_CONTROL };
  if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return { status: 304, body: '', headers, mediaType: DOCUMENT_MEDIA_TYPE };
  return { status: 200, body, headers, mediaType: DOCUMENT_MEDIA_TYPE };
});
