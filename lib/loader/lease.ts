import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { LedgerLockedError } from '../../functions/store/errors';

/**
 * A load's lock id names its host and process (`load/<host>/<pid>/<uuid>`), so a load run again
 * on the same machine after one was killed (SIGKILL: it released nothing) can tell that the
 * lease's holder is gone and take it over at once, instead of waiting for the lease to end.
 */
export function loadLockId(): string {
  return `load/${os.hostname()}/${process.pid}/${randomUUID()}`;
}

/** True when `holder` is a load on this machine whose process no longer exists. */
function heldByDeadLocalLoad(holder: string | null): boolean {
  const [what, host, pid] = holder?.split('/') ?? [];
  if (what !== 'load' || host !== os.hostname() || !/^\d+$/.test(pid ?? '')) return false;
  if (Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    // EPERM: it exists (another user's); ESRCH: no such process.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export interface LeasePatience {
  /** Wait for a lease held by another writer when it ends within this long (a sequencer batch); otherwise fail at once. */
  waitMs: number;
  onWait?: (message: string) => void;
}

/**
 * Runs one batch of the writer (which takes the lease first), dealing with a lease held by
 * another writer: a dead load on this machine is taken over; a lease that ends soon is waited
 * for (a sequencer's batch releases it in seconds, a dead one's lease ends within its 90 s);
 * any other holder stops the load with the message that says how to go on (--unlock-ledger).
 */
export async function withLedgerLease<T>(run: (takeOver: { replacingLock?: string }) => Promise<T>, patience: LeasePatience): Promise<T> {
  const deadline = Date.now() + patience.waitMs;
  for (;;) {
    try {
      return await run({});
    } catch (error) {
      if (!(error instanceof LedgerLockedError)) throw error;
      if (heldByDeadLocalLoad(error.holder)) {
        patience.onWait?.(`ledger: taking over the lease of a load that stopped part-way (${error.holder})`);
        try {
          return await run({ replacingLock: error.holder! });
        } catch (again) {
          // Someone else took it over first: go round again.
          if (!(again instanceof LedgerLockedError)) throw again;
          continue;
        }
      }
      const until = error.until ? Date.parse(error.until) : Number.POSITIVE_INFINITY;
      if (until > deadline) throw error;
      patience.onWait?.(`ledger: waiting for another writer's lease (until ${error.until})`);
      await new Promise((r) => setTimeout(r, Math.max(100, Math.min(1000, until - Date.now()))));
    }
  }
}
