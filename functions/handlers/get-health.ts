import { CONTRACT_VERSION, SERVICE_NAME } from '../contract/service';
import { httpHandler } from '../http/boundary';
import { tableName } from '../store/client';

/** Liveness and release identity; it calls no dependency, so it answers even when the store is down. */
export const handler = httpHandler(async () => ({
  status: 200,
  body: {
    schemaVersion: 'svc.health.v1',
    status: 'OK',
    service: SERVICE_NAME,
    release: {
      version: process.env.RELEASE_VERSION ?? CONTRACT_VERSION,
      contractVersion: CONTRACT_VERSION,
      commit: process.env.RELEASE_COMMIT ?? null,
    },
    readiness: { persistence: tableName() ? 'CONFIGURED' : 'NOT_CONFIGURED' },
    checkedAt: new Date().toISOString(),
  },
}));
