import { buildProductionFoundations } from '../domain/surfaces/readiness';
import { httpHandler } from '../http/boundary';
import { meaningOf } from '../http/meaning';
import { getProductionFoundationsCaching as caching } from '../generated/caching';
import { logger } from '../logging/logger';
import { TABLE_SCHEMA_VERSION } from '../store/layout';
import { inspectTable } from '../store/table-meta';
import { readinessLinks } from './json-responses';

/**
 * One look at the table when asked. The table is what is inspected, not a dependency of the
 * answer: when it does not answer, the report still answers 200 and says so.
 */
export const handler = httpHandler(async (request) => {
  const inspection = await inspectTable();
  if (inspection.configured && !inspection.reachable) logger.warn('table inspection failed', { failure: inspection.failure, errorName: inspection.errorName });
  const body = buildProductionFoundations(inspection, TABLE_SCHEMA_VERSION, new Date().toISOString(), readinessLinks(request.baseUrl));
  // Never stored, but revalidated: a weak ETag over what it says apart from when it was checked.
  return { status: 200, body, revalidate: { weakOver: meaningOf(body) } };
}, { caching });
