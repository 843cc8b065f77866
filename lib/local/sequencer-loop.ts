import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LedgerLockedError } from '../../functions/store/errors';
import { sequenceAll, type SequencerRun } from '../../functions/ledger-writer/sequencer';
import type { CheckpointSigner } from '../../functions/ledger-writer/signer';
import type { TileStore } from '../../functions/ledger-writer/tile-store';
import { RecordTails } from '../../functions/store/dynamodb/record-tails';
import { tableStores } from '../../functions/store/dynamodb';

export interface LocalSequencerOptions {
  client: DynamoDBClient;
  table: string;
  signer: CheckpointSigner;
  tiles?: TileStore;
  /** How often the pending index is looked at when idle (default 150 ms: events show within well under 2 s). */
  intervalMs?: number;
  /** Called after each batch that integrated anything. */
  onRun?: (run: SequencerRun) => void;
  /** Called when a run fails (default: one line on stderr per distinct failure, and one when it recovers). */
  onError?: (error: Error) => void;
}

export interface LocalSequencer {
  /** Runs batches now until nothing is waiting (after any run in progress); what they did. */
  drain(): Promise<SequencerRun[]>;
  stop(): Promise<void>;
}

/**
 * The sequencer inside `npm start`: the same module the Lambda runs (functions/ledger-writer/
 * sequencer.ts), polling the pending index instead of being woken by the table's stream. A
 * failed run (the store stopped, another writer holds the lease) is retried with backoff up to
 * 2 s; nothing is lost, since deliveries stay pending until a batch marks them.
 */
export function startLocalSequencer(options: LocalSequencerOptions): LocalSequencer {
  const interval = options.intervalMs ?? 150;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;
  let lastFailure = '';
  const report =
    options.onError ??
    ((error: Error) => {
      if (error.message === lastFailure) return;
      lastFailure = error.message;
      console.error(`sequencer: ${error instanceof LedgerLockedError ? 'waiting: ' : ''}${error.message} (retrying)`);
    });

  // Made once: the log this process keeps between batches, and its records' newest items, are the ones these stores hold.
  const stores = tableStores(options.client, options.table, undefined, new RecordTails());
  const runOnce = async (): Promise<SequencerRun[]> => {
    const runs = await sequenceAll({ ...stores, signer: options.signer, tiles: options.tiles });
    for (const run of runs) if (run.deliveries > 0) options.onRun?.(run);
    if (failures > 0 && lastFailure && !options.onError) console.error('sequencer: running again');
    failures = 0;
    lastFailure = '';
    return runs;
  };

  // Runs one at a time, so a drain never meets the loop's own run holding the lease.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = chain.then(fn);
    chain = next.catch(() => undefined);
    return next;
  };

  const tick = () => {
    if (stopped) return;
    void serial(runOnce)
      .catch((error: Error) => {
        failures++;
        report(error);
      })
      .then(() => {
        if (!stopped) timer = setTimeout(tick, failures === 0 ? interval : Math.min(2000, interval * 2 ** failures));
      });
  };
  timer = setTimeout(tick, 0);

  return {
    drain: () => serial(runOnce),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await chain;
    },
  };
}
