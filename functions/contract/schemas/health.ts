import * as z from 'zod';
import { component } from '../registry';
import { Instant } from './common';
import { PERSISTENCE_STATUSES } from './surfaces';

export const Health = component(
  'Health',
  z
    .object({
      schemaVersion: z.literal('svc.health.v1'),
      status: z.enum(['OK', 'DEGRADED']).describe('OK when the service is up and its record store is ready; DEGRADED when it is up but the store is not.'),
      service: z.string(),
      release: z.object({ version: z.string(), contractVersion: z.string(), commit: z.string().nullable() }),
      readiness: z.object({
        persistence: z.enum(PERSISTENCE_STATUSES).describe('One look at the record table (bounded by the store timeouts); see /v1/activation-readiness/production-foundations for the checks.'),
      }),
      checkedAt: Instant,
    })
    .loose(),
  'Liveness, readiness of the record store, and release identity. Always 200 while the service runs.',
);
export type Health = z.infer<typeof Health>;
