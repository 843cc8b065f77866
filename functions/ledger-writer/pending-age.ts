import type { PendingStore } from '../store/ports/pending';

/**
 * The metric the sequencer publishes after every run but one the stream woke that asked the index
 * nothing (CloudWatch embedded metric format), and the stack's alarm reads
 * (lib/stack/operator-alarms.ts): how long the delivery that has waited longest has been waiting.
 * One name for both sides, so the alarm watches exactly what is written.
 */
export const PENDING_AGE_METRIC = {
  namespace: 'PublicTrustVerificationService',
  name: 'OldestPendingEventAge',
  /**
   * The table whose pending index was measured: one metric per deployment, so two stacks in one
   * account never mix their figures (Powertools adds the `service` dimension to it).
   */
  tableDimension: 'TableName',
} as const;

/**
 * Seconds since `oldestReceivedAt` (when the delivery that has waited longest was stored), at
 * `now`; 0 when nothing waits. Never negative: a receiver's clock a little ahead of the sequencer's
 * is not a negative wait.
 */
export function pendingAgeSeconds(oldestReceivedAt: string | null, now: Date): number {
  if (oldestReceivedAt === null) return 0;
  const received = Date.parse(oldestReceivedAt);
  if (Number.isNaN(received)) throw new Error(`a pending delivery's receivedAt is not an instant: ${JSON.stringify(oldestReceivedAt)}`);
  return Math.max(0, now.getTime() - received) / 1000;
}

export interface PendingAgeOptions {
  pending: PendingStore;
  /**
   * The run just found nothing waiting (its last listing of the index was empty): the age is 0
   * without asking again. Otherwise (a batch failed, the lease was held, time ran out) the index
   * is asked for the oldest waiting event (the table: one key-only index entry).
   */
  nothingWaits: boolean;
  now?: () => Date;
}

/**
 * The longest a run woken by the stream goes without asking the pending index what waits. The
 * stream brings every event newly waiting, so such a run takes the stream's keys alone, and a look
 * (a Query of each of the index's 64 shards) is for what the stream did not bring (a stream batch
 * that failed; events held back by a load's lease) and for the age figure. The schedule's tick
 * looks every minute, but waits behind runs that keep the function busy: this bound keeps the
 * figure coming (the alarm fires after five minutes without one) whatever wakes the sequencer.
 */
export const LOOK_AT_LEAST_EVERY_MS = 90_000;

/**
 * How old a stream batch's oldest record may be before its run asks the pending index what waits
 * too. Lambda hands the sequencer one shard of the table's stream a run, and a run waits for the
 * one before it (docs/capacity.md#one-log-many-writers): records this old waited behind other
 * runs, not for their batch to gather (a second at most, lib/stack/sequencer.ts), so more waits in
 * the index than this batch brings, and a run that drains it takes full batches, each planned in
 * parts, where the stream's shares of it would each be small.
 */
export const STREAM_BEHIND_MS = 5_000;

/**
 * Whether the oldest of a stream batch's records was made more than STREAM_BEHIND_MS before `now`
 * (milliseconds), by the stream's own stamp (ApproximateCreationDateTime, in seconds, rounded
 * down); a batch without one says nothing.
 */
export function streamBehind(records: readonly { dynamodb?: { ApproximateCreationDateTime?: number } }[], now = Date.now()): boolean {
  let oldest = Number.POSITIVE_INFINITY;
  for (const r of records) {
    const made = r.dynamodb?.ApproximateCreationDateTime;
    if (typeof made === 'number' && made < oldest) oldest = made;
  }
  return Number.isFinite(oldest) && now - oldest * 1000 > STREAM_BEHIND_MS;
}

/** When an execution environment last asked the pending index what waits. */
export class PendingLooks {
  private last = Number.NEGATIVE_INFINITY;
  constructor(private readonly now: () => number = Date.now) {}

  /** No look for LOOK_AT_LEAST_EVERY_MS: a run woken by the stream asks the index too. */
  get due(): boolean {
    return this.now() - this.last >= LOOK_AT_LEAST_EVERY_MS;
  }

  looked(): void {
    this.last = this.now();
  }
}

/** The age, in seconds, of the oldest delivery still waiting for the sequencer after a run. */
export async function oldestPendingAge(options: PendingAgeOptions): Promise<number> {
  if (options.nothingWaits) return 0;
  const since = await options.pending.oldestWaitingSince();
  return pendingAgeSeconds(since, (options.now ?? (() => new Date()))());
}
