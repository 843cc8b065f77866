/**
 * What the store reports, in store terms: it knows nothing of HTTP. The HTTP boundary
 * (functions/http/boundary.ts) maps these to problem details (503 with Retry-After).
 */

/** The store did not answer (connection refused, timed out, throttled or failed) within its budget. */
export class StoreUnavailable extends Error {
  /** Seconds after which a retry is worth trying. */
  readonly retryAfterSeconds = 1;
  constructor(readonly operation: string, options?: { cause?: unknown }) {
    super(`the record store did not answer (${operation})`, options);
    this.name = 'StoreUnavailable';
  }
}

/** No table is configured for this deployment (persistence is gated). */
export class StoreNotConfigured extends Error {
  constructor() {
    super('the record store is not configured for this deployment');
    this.name = 'StoreNotConfigured';
  }
}
