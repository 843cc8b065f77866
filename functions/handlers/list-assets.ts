import { ASSET_FILTER_NAMES, assetTags, catalogueOf, type AssetFilters } from '../domain/asset-catalogue';
import { DOCUMENT_MEDIA_TYPE, documentEtag, matchesIfNoneMatch, serializeDocument } from '../domain/documents';
import { assets, ASSET_VOCABULARIES } from '../generated/assets';
import { listAssetsParams } from '../generated/params';
import { httpHandler } from '../http/boundary';
import { listAssetsCaching as caching } from '../generated/caching';
import { checkParam } from '../http/params';
import { Problem } from '../http/problem';

/**
 * GET /developers/assets.json: the asset catalogue, built at build time from the canonical
 * sources by the same pure builder the published document uses (functions/generated/assets.ts),
 * filtered per request. No store or bucket is read, and the contract table is not loaded
 * (docs/catalogues.md says why this beats reading the built document from S3).
 */
let tags: Set<string> | undefined;
const knownTagsOf = () => (tags ??= new Set(assetTags(assets())));

function filtersFrom(query: Record<string, string>): AssetFilters {
  const unknown = Object.keys(query).filter((name) => !(ASSET_FILTER_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Problem('INVALID_PARAMETER', `Unknown query parameter '${unknown[0]}'; the filters are ${ASSET_FILTER_NAMES.join(', ')}.`, {
      parameter: unknown[0],
    });
  }
  const filters: Record<string, string> = {};
  for (const name of ASSET_FILTER_NAMES) {
    if (query[name] !== undefined) filters[name] = checkParam<string>(listAssetsParams[name], name, query[name]);
  }
  if (filters.tag !== undefined && !knownTagsOf().has(filters.tag)) {
    throw new Problem('INVALID_PARAMETER', `Parameter 'tag' is invalid: '${filters.tag}' is not a tag of this catalogue; tags: ${[...knownTagsOf()].join(', ')}.`, {
      parameter: 'tag',
    });
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
