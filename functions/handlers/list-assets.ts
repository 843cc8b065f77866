import { ASSET_FILTER_NAMES, catalogueOf, type AssetFilters } from '../domain/asset-catalogue';
import { DOCUMENT_MEDIA_TYPE, documentEtag, matchesIfNoneMatch, serializeDocument } from '../domain/documents';
import { assets, ASSET_VOCABULARIES } from '../generated/assets';
import { listAssetsParams } from '../generated/params';
import { httpHandler } from '../http/boundary';
import { listAssetsCaching as caching } from '../generated/caching';
import { checkParam } from '../http/params';

/**
 * GET /developers/assets.json: the asset catalogue, built at build time from the canonical
 * sources by the same pure builder the published document uses (functions/generated/assets.ts),
 * filtered per request. No store or bucket is read, and the contract table is not loaded
 * (docs/catalogues.md says why this beats reading the built document from S3). A query parameter
 * that is no filter is refused by the boundary, a value outside a filter's set (the tags
 * included: an enum of the contract) by the filter's generated check.
 */
function filtersFrom(query: Record<string, string>): AssetFilters {
  const filters: Record<string, string> = {};
  for (const name of ASSET_FILTER_NAMES) {
    if (query[name] !== undefined) filters[name] = checkParam<string>(listAssetsParams[name], name, query[name]);
  }
  return filters as AssetFilters;
}

export const handler = httpHandler(async (request) => {
  const body = serializeDocument(catalogueOf(assets(), ASSET_VOCABULARIES, filtersFrom(request.query)));
  const etag = documentEtag(body);
  const headers = { etag };
  if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return { status: 304, body: '', headers, mediaType: DOCUMENT_MEDIA_TYPE };
  return { status: 200, body, headers, mediaType: DOCUMENT_MEDIA_TYPE };
}, { caching });
