import { partialHashTiles } from '../domain/ledger/tiles';
import { withCheckpoint } from '../store/checkpoint-to-come';
import type { JournaledPart, JournaledWrites, LeafPlacer, LeafStore } from '../store/ports/ledger';
import type { PendingStore } from '../store/ports/pending';
import type { RecordStore } from '../store/ports/records';
import type { AppendOnlyLog } from './log';
import { evidenceOfGrowth } from './growth';
import { HeldLedger, type LedgerPublication, type LedgerWriterOptions } from './held-ledger';
import type { CheckpointSigner, LedgerSigner } from './signer';

/** What a batch writes once its new record versions are in the log and carry their evidence. */
export interface PreparedBatch<T> extends JournaledWrites {
  result: T;
  /** Parts of the batch planned apart (parts.ts): their new versions logged from `start`, journaled as their chunks, and written by `write` once the head is published. */
  parts?: PartApart[];
}

/** A part of a batch planned apart, its leaves appended to the log: how it is journaled, and how it is written given the batch's checkpoint (asked only of a part with new versions). */
export interface PartApart extends JournaledPart {
  write(checkpoint: () => string): Promise<void>;
}

export interface BatchOutcome<T> {
  result: T;
  /** The log after the batch (null when nothing was ever logged). */
  ledger: LedgerPublication | null;
}

export interface BatchOptions extends LedgerWriterOptions {
  records: RecordStore;
  /** Where the events a batch settles are (the sequencer's batches). */
  pending?: PendingStore;
  /**
   * Journal the batch's writes before publishing its head, so a batch stopped part-way is finished
   * by the next writer before it reads anything: never a record's entries without its genesis
   * (which says where its newest items are) past the next lease. Only a batch that writes
   * something is journaled (a load's whose records are all stored already, a sequencer's whose
   * events another writer integrated, write nothing).
   */
  journal?: boolean;
  /** Record write requests in flight at once (default 1); the settled events are always written after every record. */
  recordsConcurrency?: number;
}

/**
 * The one way anything is written into the log and the records (the loader and the event
 * sequencer both run here), under the log's single-writer lease, through the storage ports, each
 * step's calls sent together so that a batch's round trips do not grow with its size:
 *   1. take the lease; open the log (from its right edge; checked against the signed checkpoint),
 *      and at once read the journal's header and whatever `prefetch` reads (the batch's events);
 *   2. finish the journal of a batch that published its head but stopped before writing everything
 *      (and the tile log's `checkpoint`, if it stopped before that); what was prefetched is then
 *      read again by `prepare`;
 *   3. `prepare` appends the new record versions and seals the log (one signature per batch), and
 *      returns the record changes, each new version carrying its inclusion proof;
 *   4. store the new hash tiles, the tile log's new tiles and bundles and (when journaled) the
 *      batch's journal, together;
 *   5. publish the head (conditional on the lease);
 *   6. write the entries (beside the tile log's `checkpoint` and the checkpoint's history), then
 *      the geneses, the schema mark and the settled events (an event reads as settled only once
 *      its entry is written), then mark the journal done while the lease is released.
 * Safe to stop at any step: before 5 no record was written and nothing published refers to the new
 * leaves (the next batch overwrites them and prepares again from the same records); after 5 the
 * journal holds exactly what remains to write. No leaf is logged twice (content already logged
 * keeps its leaf) and none is lost. A writer that dies holding the lease blocks others only until
 * the lease runs out.
 */
export async function runLedgerBatch<T, P = undefined>(
  options: BatchOptions,
  prepare: (log: AppendOnlyLog, prefetched: P | undefined, journalFinished: boolean) => Promise<PreparedBatch<T>>,
  prefetch?: () => Promise<P>,
): Promise<BatchOutcome<T>> {
  const { journal } = options.ledger;
  const { tails } = options.records;
  let done = false;
  let leasesTaken: number | undefined;
  const { ledger, alongside } = await HeldLedger.open(
    options,
    () => Promise.all([journal.unfinished(), prefetch ? prefetch() : undefined]),
    (lease) => {
      leasesTaken = lease.leasesTaken;
      // Before anything read is used: what a warm writer remembers of its records holds only if no other writer held the lease since.
      tails?.leaseTaken(lease.leasesTaken);
    },
  );
  try {
    let [unfinished, prefetched] = alongside;
    let journalFinished = false;
    // A batch stopped after publishing its head may have stopped before the tile log's `checkpoint` too.
    const published = ledger.log.published;
    if (unfinished && (await journal.finish(published.size, published.checkpoint, published.checkpoint ? leafPlacer(options.ledger.leaves, options.signer, published.size, published.checkpoint) : undefined))) {
      await ledger.republishCheckpoint();
      // The journal settled events and wrote records around the record store: what was read before it is stale.
      prefetched = undefined;
      journalFinished = true;
      tails?.forget();
    }
    const prepared = await prepare(ledger.log, prefetched, journalFinished);
    const parts = prepared.parts ?? [];
    const writes = ledger.log.hasUnpublished || prepared.records.length > 0 || prepared.settlements.length > 0 || prepared.schema === true || parts.length > 0;
    const journaled = options.journal === true && writes;
    // The key signs the checkpoint meanwhile (writeNewLeaves); the journal names it CHECKPOINT_TO_COME, the records written after the head carry it.
    await Promise.all([
      ledger.writeNewLeaves(),
      journaled ? journal.write(ledger.log.size, { records: prepared.records, settlements: prepared.settlements, schema: prepared.schema }, parts) : null,
    ]);
    if (ledger.log.hasUnpublished) withCheckpoint(prepared.records, ledger.log.checkpoint());
    // The timelines first (beside the tile log's checkpoint, and every part's writes, which keep the same order within themselves); then the geneses, the schema mark and the settled events together.
    const concurrency = options.recordsConcurrency;
    const recordsToWrite = prepared.records.length > 0;
    const publication = await ledger.publish(async () => {
      await Promise.all([recordsToWrite ? options.records.write(prepared.records, { concurrency, part: 'timelines' }) : null, ...parts.map((part) => part.write(() => ledger.log.checkpoint()))]);
    });
    await Promise.all([
      recordsToWrite ? options.records.write(prepared.records, { concurrency, part: 'geneses' }) : null,
      prepared.schema ? options.records.markSchema() : null,
      prepared.settlements.length > 0 ? options.pending!.settle(prepared.settlements) : null,
    ]);
    // Marked done while the lease goes: a writer stopped between the two finishes the journal again (its writes are idempotent).
    await Promise.all([journaled ? journal.markDone(ledger.log.size) : null, ledger.release()]);
    done = true;
    // Parts were written around this process's record store: what it remembers of their records may be stale.
    if (parts.length > 0) tails?.forget();
    else tails?.batchDone();
    options.cache?.finished(leasesTaken);
    return { result: prepared.result, ledger: publication };
  } finally {
    // A batch stopped part-way wrote what is not known: nothing it remembers is trusted.
    if (!done) tails?.forget();
    await ledger.release();
  }
}

/**
 * How a writer finishing a journal places the new versions of its parts (LeafPlacer): the batch's
 * growth read back from the leaves it stored (the right edge where the parts' leaves begin, every
 * leaf from there to the published size), checked against the published checkpoint (growth.ts).
 */
export function leafPlacer(leaves: LeafStore, signer: CheckpointSigner | LedgerSigner, publishedSize: number, checkpoint: string): LeafPlacer {
  return async (from) => {
    const edge = await leaves.readEdgeTiles(partialHashTiles(from));
    const stored: Buffer[] = [];
    await leaves.forEachLeaf(publishedSize, (leaf) => void stored.push(leaf), undefined, from);
    return evidenceOfGrowth({ origin: signer.name, start: from, edge: Object.fromEntries(edge), leaves: Buffer.concat(stored), checkpoint });
  };
}
