import { routes } from '../generated/routes';
import { buildTrustInfrastructure } from '../domain/surfaces/trust-infrastructure';
import { httpHandler } from '../http/boundary';
import { getTrustInfrastructureCaching as caching } from '../generated/caching';
import { catalogueResponse } from './json-responses';

/** Built from the contract, standards and channels tables; answered with an ETag. */
export const handler = httpHandler(async (request) => catalogueResponse(request, buildTrustInfrastructure(routes(), request.baseUrl)), { caching });
