import { routes } from '../generated/routes';
import { buildActivationReadiness, buildProductionFoundations } from '../domain/surfaces/readiness';
import { renderStudio } from '../pages/studio-page';
import { httpHandler } from '../http/boundary';
import { getStudioCaching as caching } from '../generated/caching';
import { TABLE_SCHEMA_VERSION } from '../store/layout';
import { inspectTable } from '../store/table-meta';
import { readinessLinks } from './json-responses';
import { htmlPage } from './surface-responses';

/** The operating surface, with the same live checks as the readiness reports. */
export const handler = httpHandler(
  htmlPage(async (request) => {
    const checkedAt = new Date().toISOString();
    const links = readinessLinks(request.baseUrl);
    const foundations = buildProductionFoundations(await inspectTable(), TABLE_SCHEMA_VERSION, checkedAt, links);
    const activation = buildActivationReadiness(process.env, checkedAt, links);
    return { status: 200, body: renderStudio({ baseUrl: request.baseUrl, operations: routes(), foundations, activation }) };
  }),
  { caching },
);
