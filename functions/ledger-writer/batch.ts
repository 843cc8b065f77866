import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { putItems } from '../store/write';
import type { AppendOnlyLog } from './log';
import { TableLedger, type LedgerPublication, type TableLedgerOptions } from './table-ledger';

type Item = Record<string, AttributeValue>;

/** What a batch writes once its new record versions are in the log and carry their evidence. */
export interface PreparedBatch<T> {
  /** Record items (timeline entries with their views and heads), written after the head is published. */
  records: Item[];
  /** Items written last, once every record is (the sequencer marks its pending events done here). */
  last?: Item[];
  result: T;
}

export interface BatchOutcome<T> {
  result: T;
  /** The log after the batch (null when nothing was ever logged). */
  ledger: LedgerPublication | null;
}

/**
 * The one way anything is written into the log and the records (the loader and the event
 * sequencer both run here), under the table's single-writer lease:
 *   1. take the lease; open the log from the stored leaves (checked against the signed checkpoint);
 *   2. `prepare` appends the new record versions and seals the log (one signature per batch), and
 *      returns the record items, each new version carrying its inclusion proof;
 *   3. store the new leaves and hash tiles;
 *   4. publish the new tile log and head (conditional on the lease);
 *   5. write the records, then `last`;
 *   6. release the lease.
 * Safe to stop at any step: before 4 nothing published refers to the new leaves, and the next batch
 * overwrites them; after 4 the new versions are in the log, so preparing the same batch again
 * finds each one's content already logged (AppendOnlyLog.add keeps a leaf per content) and appends
 * nothing: no leaf twice, none lost. A writer that dies holding the lease blocks others only until
 * the lease runs out.
 */
export async function runLedgerBatch<T>(
  options: TableLedgerOptions & { onRecordsProgress?: (written: number, total: number) => void },
  prepare: (log: AppendOnlyLog) => Promise<PreparedBatch<T>>,
): Promise<BatchOutcome<T>> {
  const ledger = await TableLedger.open(options);
  try {
    const prepared = await prepare(ledger.log);
    await ledger.writeNewLeaves();
    const publication = await ledger.publish();
    await putItems(options.client, options.table, prepared.records, (written) => options.onRecordsProgress?.(written, prepared.records.length));
    if (prepared.last) await putItems(options.client, options.table, prepared.last);
    return { result: prepared.result, ledger: publication };
  } finally {
    await ledger.release();
  }
}
