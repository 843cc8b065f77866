import * as z from 'zod';
import { defineOperations } from '../operation';
import { AsOf, Reference } from '../schemas/common';
import { Health } from '../schemas/health';
import { LivingObjectResolution } from '../schemas/objects';

export const TIMELINE_WINDOW_DEFAULT = 50;
export const TIMELINE_WINDOW_MAX = 200;

export const TimelineLimit = z.coerce
  .number()
  .int()
  .min(1)
  .max(TIMELINE_WINDOW_MAX)
  .describe(
    `How many timeline entries (newest at the evaluation instant) to return, 1 to ${TIMELINE_WINDOW_MAX}; default ${TIMELINE_WINDOW_DEFAULT}. ` +
      'When more exist, the Link header (rel="next") gives the older window.',
  );

export const coreOperations = defineOperations([
  {
    operationId: 'getHealth',
    method: 'GET',
    path: '/health',
    tag: 'Trust and verification',
    summary: 'Platform health, readiness and release identity',
    liveState: 'LIVE',
    response: { schema: Health },
    errors: [],
    integration: { kind: 'lambda', entry: 'functions/handlers/get-health.ts', access: 'table-read' },
  },
  {
    operationId: 'resolveObject',
    method: 'GET',
    path: '/v1/objects/{reference}',
    tag: 'Trust and verification',
    summary: 'Resolve a living object to its current (or as-of) state, presentation and timeline',
    liveState: 'LIVE',
    pathParams: { reference: Reference },
    queryParams: { asOf: AsOf, limit: TimelineLimit },
    response: { schema: LivingObjectResolution },
    errors: [400, 404, 503],
    integration: { kind: 'lambda', entry: 'functions/handlers/resolve-object.ts', access: 'table-read' },
  },
]);
