import { defineOperations } from '../operation';
import { AsOf, Reference } from '../schemas/common';
import { Health } from '../schemas/health';
import { LivingObjectResolution, TimelineLimit } from '../schemas/objects';

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
    caching: ['inspection'],
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
    caching: ['current', 'past'],
    integration: { kind: 'lambda', entry: 'functions/handlers/resolve-object.ts', access: 'table-read' },
  },
]);
