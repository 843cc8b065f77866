import { problemBody, Problem } from '../../functions/http/problem';
import type { ErrorResponse } from '../../functions/contract/schemas/common';

/** The 404 a caller gets for an unknown object, exactly as the boundary renders it (fixed correlation id). */
export function buildProblemDetailsExample(): ErrorResponse {
  return problemBody(new Problem('NOT_FOUND', "No living object is held under reference 'ORD-2026-9999'."), {
    correlationId: 'example-correlation-0001',
    instance: '/v1/objects/ORD-2026-9999',
    endpoint: '/v1/objects/{reference}',
  });
}
