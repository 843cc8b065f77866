import { REFERENCE_HEADERS, renderReferencePage } from '../pages/reference-page';
import { httpHandler } from '../http/boundary';
import { getApiReferenceCaching as caching } from '../generated/caching';

/**
 * GET /developers/reference: the page that starts the self-hosted Swagger UI on the contract. It
 * needs only the asset paths (site-paths.ts), not the contract table, so the function stays small.
 */
export const handler = httpHandler(async (request) => ({
  status: 200,
  mediaType: 'text/html',
  headers: { ...REFERENCE_HEADERS },
  body: renderReferencePage(request.baseUrl),
}), { caching });
