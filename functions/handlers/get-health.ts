import type { Health } from '../contract/schemas/health';
import { CONTRACT_VERSION, SERVICE_NAME } from '../contract/service';
import { persistenceReadiness } from '../domain/surfaces/readiness';
import { httpHandler } from '../http/boundary';
import { meaningOf } from '../http/meaning';
import { getHealthCaching as caching } from '../generated/caching';
import { TABLE_SCHEMA_VERSION } from '../store/layout';
import { inspectTable } from '../store/table-meta';

/**
 * Liveness, store readiness and release identity. The one look at the table is bounded by the
 * store's short timeouts and never fails the request: while the store is down, health still
 * answers 200, saying DEGRADED and why.
 */
export const handler = httpHandler(async () => {
  const persistence = persistenceReadiness(await inspectTable(), TABLE_SCHEMA_VERSION).status;
  const body: Health = {
    schemaVersion: 'svc.health.v1',
    status: persistence === 'READY' ? 'OK' : 'DEGRADED',
    service: SERVICE_NAME,
    release: {
      version: process.env.RELEASE_VERSION ?? CONTRACT_VERSION,
      contractVersion: CONTRACT_VERSION,
      commit: process.env.RELEASE_COMMIT ?? null,
    },
    readiness: { persistence },
    checkedAt: new Date().toISOString(),
  };
  // Never stored, but revalidated: a weak ETag over what it says apart from when it was checked.
  return { status: 200, body, revalidate: { weakOver: meaningOf(body) } };
}, { caching });
