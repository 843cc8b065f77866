import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { journalHeaderItem, journalItems, readJournalHeader, readJournalItems } from '../store/ledger';
import { putItems } from '../store/write';
import type { AppendOnlyLog } from './log';
import { TableLedger, type LedgerPublication, type TableLedgerOptions } from './table-ledger';

type Item = Record<string, AttributeValue>;

/** What a batch writes once its new record versions are in the log and carry their evidence. */
export interface PreparedBatch<T> {
  /** Record items (timeline entries with their views and heads), written after the head is published. */
  records: Item[];
  /** Items written last, once every record is (the sequencer marks its deliveries done here). */
  last?: Item[];
  result: T;
}

export interface BatchOutcome<T> {
  result: T;
  /** The log after the batch (null when nothing was ever logged). */
  ledger: LedgerPublication | null;
}

export interface BatchOptions extends TableLedgerOptions {
  /**
   * Journal the batch's writes before publishing its head, so a batch stopped after publishing
   * is finished by the next writer. 'when-appending': only a batch that publishes a new head (a
   * load's: one that appends nothing is simply run again, its records rewritten from the file).
   */
  journal?: boolean | 'when-appending';
  /** Record write requests in flight at once (default 1); `last` is always written after every record. */
  recordsConcurrency?: number;
}

/**
 * The one way anything is written into the log and the records (the loader and the event
 * sequencer both run here), under the table's single-writer lease:
 *   1. take the lease; open the log (from its right edge; checked against the signed checkpoint);
 *   2. finish the journal of a batch that published its head but stopped before writing everything;
 *   3. `prepare` appends the new record versions and seals the log (one signature per batch), and
 *      returns the record items, each new version carrying its inclusion proof;
 *   4. store the new leaves and hash tiles, then (when journaled) the batch's journal;
 *   5. publish the new tile log and head (conditional on the lease);
 *   6. write the records, then `last`, then mark the journal done;
 *   7. release the lease.
 * Safe to stop at any step: before 5 no record was written and nothing published refers to the new
 * leaves (the next batch overwrites them and prepares again from the same records); after 5 the
 * journal holds exactly what remains to write. No leaf is logged twice (content already logged
 * keeps its leaf) and none is lost. A writer that dies holding the lease blocks others only until
 * the lease runs out.
 */
export async function runLedgerBatch<T>(options: BatchOptions, prepare: (log: AppendOnlyLog) => Promise<PreparedBatch<T>>): Promise<BatchOutcome<T>> {
  const ledger = await TableLedger.open(options);
  try {
    await finishJournal(options.client, options.table, ledger.log.size);
    const prepared = await prepare(ledger.log);
    await ledger.writeNewLeaves();
    const journaled = options.journal === true || (options.journal === 'when-appending' && ledger.log.hasUnpublished);
    if (journaled) await putItems(options.client, options.table, journalItems(ledger.log.size, [...prepared.records, ...(prepared.last ?? [])]));
    const publication = await ledger.publish();
    await putItems(options.client, options.table, prepared.records, undefined, { concurrency: options.recordsConcurrency });
    if (prepared.last) await putItems(options.client, options.table, prepared.last, undefined, { concurrency: options.recordsConcurrency });
    if (journaled) await putItems(options.client, options.table, [journalHeaderItem({ treeSize: ledger.log.size, chunks: 0, done: true })]);
    return { result: prepared.result, ledger: publication };
  } finally {
    await ledger.release();
  }
}

/** Writes what a published batch left unwritten (its journal), then marks the journal done. */
async function finishJournal(client: DynamoDBClient, table: string, publishedSize: number): Promise<void> {
  const header = await readJournalHeader(client, table);
  if (!header || header.done || header.treeSize !== publishedSize) return;
  await putItems(client, table, await readJournalItems(client, table, header));
  await putItems(client, table, [journalHeaderItem({ treeSize: publishedSize, chunks: 0, done: true })]);
}
