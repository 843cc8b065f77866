import type { z } from 'zod';
import type { CacheClassName, NegotiatedHeader } from './caching';

export const LIVE_STATES = ['LIVE', 'READY', 'GATED_BY_PERSISTENCE', 'SHADOW'] as const;
export type LiveState = (typeof LIVE_STATES)[number];

/** What each liveState promises a caller (published in the catalogue and in every operation's description). */
export const LIVE_STATE_MEANINGS: Record<LiveState, string> = {
  LIVE: 'Served now, on the published contract.',
  READY: 'Contract published and served, but what it describes is not activated: nothing in production depends on it yet.',
  GATED_BY_PERSISTENCE: 'Served only where its persistence dependency is configured; otherwise it answers 503 problem details.',
  SHADOW: 'Served for evaluation: it computes a decision that nothing acts on.',
};

/** What the deployed API connects an operation to. */
export type Integration =
  /** One Lambda per operation; `entry` is the handler module, `access` the only resource it may read. */
  | {
      kind: 'lambda';
      entry: string;
      /** ingress-write: the receivers, which may write only pending-event items (and read records). */
      access: 'table-read' | 'bucket-read' | 'ingress-write' | 'none';
      /** Deployment settings (environment variable names) the function reads; the stack passes only these. */
      settings?: readonly string[];
    }
  /** A generated document served straight from the catalogue bucket (key below the build folder). */
  | { kind: 'document'; key: string }
  /**
   * A resource of the ledger's tile log (checkpoint, tiles, entry bundles), written by the loader
   * into the catalogue bucket under LEDGER_LOG.keyPrefix and served straight from it. `key` may name
   * the operation's path parameters in braces; a missing object answers 404.
   */
  | { kind: 'log'; key: string };

/** Media types of 200 answers: JSON (the default), pages, and the static files beside them. */
export type ResponseMediaType = 'application/json' | 'text/html' | 'text/javascript' | 'text/css' | 'text/plain' | 'image/svg+xml' | 'application/octet-stream';

export interface Operation {
  operationId: string;
  method: 'GET' | 'POST';
  /** OpenAPI path template, e.g. /v1/objects/{reference}. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  liveState: LiveState;
  pathParams?: Record<string, z.ZodType>;
  /** Path parameters whose value spans several segments (a tile path): `{name+}` in API Gateway, `.+` locally. */
  multiSegmentParams?: readonly string[];
  queryParams?: Record<string, z.ZodType>;
  /** Query parameters a request must carry (every other one is optional). */
  requiredQueryParams?: readonly string[];
  /**
   * Request headers the operation requires, each with its schema: declared as required header
   * parameters (the receivers' Standard Webhooks headers; their handler checks the same values).
   */
  requiredHeaders?: Record<string, z.ZodType>;
  /** What a caller must present, as an OpenAPI security scheme; none: public (`security: []`). */
  security?: SecurityScheme;
  /** JSON request body (sandbox POSTs, receivers); mediaTypes default to application/json. */
  requestBody?: {
    schema: z.ZodType;
    required: boolean;
    mediaTypes?: readonly string[];
    /** Further media types the body may be sent in, each with its own schema (the receivers' batches). */
    alternatives?: readonly { mediaType: string; schema: z.ZodType }[];
  };
  /** The success response: 200 unless `status` says otherwise (202 for the receivers). */
  response: { schema: z.ZodType; mediaType?: ResponseMediaType; status?: 200 | 202 };
  /** Another success answer, for another form of request (a receiver's 200 to a batch), as JSON. */
  alsoAnswers?: { status: 200; schema: z.ZodType; description: string };
  /** Statuses answered with an ErrorResponse (problem details), beyond the 200. */
  errors: number[];
  /**
   * JSON by default, an HTML page to a client whose Accept header prefers it (the landing): a page
   * people open, so it ignores query parameters it does not read, as the other pages do.
   */
  negotiatesPage?: true;
  /**
   * GET only (every GET route has them): how long its 200 and 304 answers may be kept, by class
   * (functions/contract/caching.ts); the first class is the default, another is chosen by the
   * request (a past instant). Every GET answer carries an ETag and honours If-None-Match with 304.
   */
  caching?: readonly [CacheClassName, ...CacheClassName[]];
  /** Request headers its answers depend on besides the URL (named in Vary): content or language negotiation. */
  varies?: readonly NegotiatedHeader[];
  integration: Integration;
}

/**
 * Whether an operation refuses query parameters it does not read (400 UNKNOWN_PARAMETER, naming
 * those it reads): every operation of the JSON API, so that `?asof=` (for `asOf`) is an error
 * rather than a silently current view. The pages people open ignore what they do not read (a
 * printed QR code may carry tracking parameters such as utm_source), and so do the documents and
 * the tile log, which are files served as they are.
 */
export function refusesUnknownQueryParameters(op: Operation): boolean {
  return op.integration.kind === 'lambda' && (op.response.mediaType ?? 'application/json') === 'application/json' && !op.negotiatesPage;
}

/** A security scheme of the contract: its name in components.securitySchemes and its OpenAPI Security Scheme Object. */
export interface SecurityScheme {
  name: string;
  scheme: { type: 'apiKey'; in: 'header'; name: string; description: string };
}

export function defineOperations<const T extends readonly Operation[]>(ops: T): T {
  return ops;
}
