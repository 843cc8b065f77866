import { SERVICE_NAME } from '../contract/service';
import type { ErrorResponse } from '../contract/schemas/common';

/**
 * The documented set of problem codes (docs/errors.md). `type` is a URN per code so a client
 * can switch on it without string-matching titles.
 */
export const PROBLEMS = {
  INVALID_REFERENCE: { status: 400, title: 'Invalid reference' },
  INVALID_PARAMETER: { status: 400, title: 'Invalid parameter' },
  UNKNOWN_PARAMETER: { status: 400, title: 'Unknown query parameter' },
  INVALID_CLAIM_ID: { status: 400, title: 'Invalid claim identifier' },
  MALFORMED_REQUEST: { status: 400, title: 'Malformed request' },
  WEBHOOK_SIGNATURE_MISSING: { status: 401, title: 'Signature missing' },
  WEBHOOK_SIGNATURE_INVALID: { status: 401, title: 'Signature invalid' },
  WEBHOOK_TIMESTAMP_OUT_OF_WINDOW: { status: 401, title: 'Timestamp outside the replay window' },
  NOT_FOUND: { status: 404, title: 'Record not found' },
  ROUTE_NOT_FOUND: { status: 404, title: 'No such endpoint' },
  PROVIDER_NOT_REGISTERED: { status: 404, title: 'Synthetic provider not registered' },
  UNKNOWN_SOURCE: { status: 404, title: 'Unknown event source' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
  NOT_A_COMMERCIAL_PROOF: { status: 409, title: 'Reference is not a commercial proof' },
  WRONG_RECORD_KIND: { status: 409, title: 'Reference holds another kind of record' },
  TRANSITION_FORBIDDEN: { status: 409, title: 'Transition forbidden by the lifecycle rules' },
  WEBHOOK_ID_REUSED: { status: 409, title: 'webhook-id already used for another body' },
  EVENT_ID_REUSED: { status: 409, title: 'Event id already used for another event' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  INVALID_REQUEST: { status: 422, title: 'Request rejected' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  THROTTLED: { status: 429, title: 'Too many requests' },
  DEPENDENCY_UNAVAILABLE: { status: 503, title: 'Dependency temporarily unavailable' },
  PERSISTENCE_NOT_CONFIGURED: { status: 503, title: 'Persistence not configured' },
  ORIGIN_NOT_CONFIGURED: { status: 503, title: 'Origin not configured' },
  SOURCE_GATED: { status: 503, title: 'Event source gated' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>;
export type ProblemCode = keyof typeof PROBLEMS;

export function problemType(code: ProblemCode): string {
  return `urn:svc:problem:${code.toLowerCase().replace(/_/g, '-')}`;
}

/** Thrown by handlers and domain adapters; turned into problem details at the boundary. */
export class Problem extends Error {
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'Problem';
  }
  get status(): number {
    return PROBLEMS[this.code].status;
  }
}

export interface ProblemContext {
  correlationId: string;
  instance: string;
  endpoint: string | null;
}

export function problemBody(problem: Problem, ctx: ProblemContext): ErrorResponse {
  return {
    type: problemType(problem.code),
    title: PROBLEMS[problem.code].title,
    status: problem.status,
    detail: problem.detail,
    instance: ctx.instance,
    code: problem.code,
    correlationId: ctx.correlationId,
    service: SERVICE_NAME,
    endpoint: ctx.endpoint,
    ...problem.extra,
  };
}
