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

/** Another writer (a load or the sequencer) holds the ledger's single-writer lease. */
export class LedgerLockedError extends Error {
  override name = 'LedgerLockedError';
  constructor(
    readonly since: string,
    readonly until: string | null,
    /** The lease holder's lock id (a load names its host and process in it: lib/loader/lease.ts). */
    readonly holder: string | null = null,
  ) {
    super(
      `another writer (a load or the sequencer) holds the ledger since ${since}` +
        (until ? `, its lease ends ${until}` : ', with no end to its lease') +
        '; if none is running, one stopped part-way: wait for its lease to end, or run the load again with --unlock-ledger',
    );
  }
}

/** A writer's lease on the ledger ran out and another writer took it: what it prepared is not published. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError';
  constructor(readonly lockId: string) {
    super(`the ledger lease ${lockId} was lost before the batch was published: another writer took it over; nothing was published`);
  }
}
