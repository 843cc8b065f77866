import { routes } from '../generated/routes';
import { buildTrustFabricCatalogue } from '../domain/surfaces/trust-fabric';
import { httpHandler } from '../http/boundary';
import { getTrustFabricCatalogueCaching as caching } from '../generated/caching';
import { catalogueResponse } from './json-responses';

/** Static per release and base URL: built from the contract table, answered with an ETag. */
export const handler = httpHandler(async (request) => catalogueResponse(request, buildTrustFabricCatalogue(routes(), request.baseUrl)), { caching });
