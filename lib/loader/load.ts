import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { tableStores } from '../../functions/store/dynamodb';
import { ensureTable } from '../../functions/store/write';
import type { LedgerStores } from '../../functions/store/ports/ledger';
import type { RecordChange, RecordStore, RecordToStore } from '../../functions/store/ports/records';
import { runLedgerBatch } from '../../functions/ledger-writer/batch';
import { checkSignedTree, type AppendOnlyLog } from '../../functions/ledger-writer/log';
import { CompactRange } from '#verify/node/merkle-tree';
import type { LedgerEvidence } from '../../functions/domain/record';
import { devLedgerSigner } from '../ledger/dev-key';
import type { CheckpointSigner } from '../../functions/ledger-writer/signer';
import type { TileStore } from '../../functions/ledger-writer/tile-store';
import type { LedgerPublication } from '../../functions/ledger-writer/held-ledger';
import { attachSealedLedgerEvidence, type LedgerAttachment } from './evidence';
import { checkOrThrow, checkRecord, type CheckOutcome, type CheckProgress } from './check';
import { recordChunks, type RecordToLoad } from './chunks';
import { loadLockId, withLedgerLease } from './lease';
import { LoadScratch } from './scratch';
import { documentSource, type RecordSource } from './source';
import { InvalidRecordsError, NOT_A_RECORDS_DOCUMENT, type RecordProblem } from './problems';

export { InvalidRecordsError, type RecordProblem } from './problems';
export { documentSource, fileSource, type RecordSource } from './source';

/**
 * Validates every record of an in-memory document and reports every problem (record index,
 * reference, field); throws when any. For documents built in memory (the published examples);
 * loads check files in a streaming pass (check.ts).
 */
export function validateRecords(document: unknown): RecordToStore[] {
  const problems: RecordProblem[] = [];
  const records = (document as { records?: unknown })?.records;
  if (!Array.isArray(records)) {
    throw new InvalidRecordsError([{ index: -1, reference: null, field: 'records', message: NOT_A_RECORDS_DOCUMENT }]);
  }
  const seen = new Set<string>();
  const out: RecordToStore[] = [];
  records.forEach((value, index) => {
    const checked = checkRecord({ index, value });
    if (checked.problems) {
      problems.push(...checked.problems);
      return;
    }
    if (seen.has(checked.record.reference)) {
      problems.push({ index, reference: checked.record.reference, field: 'reference', message: 'appears more than once in the file' });
      return;
    }
    seen.add(checked.record.reference);
    out.push(checked.record.record);
  });
  if (problems.length > 0) throw new InvalidRecordsError(problems);
  return out;
}

/** Where a load writes: the records and the log's head, leaves and journal (the storage ports). */
export interface LoaderStores {
  records: RecordStore;
  ledger: LedgerStores;
}

export interface LoadOptions {
  /** A DynamoDB table, through this client (the usual case: a local store, or AWS); or... */
  client?: DynamoDBClient;
  table?: string;
  /** ...any stores (the in-memory ones in tests). */
  stores?: LoaderStores;
  /** Create the table when missing (local stores). */
  createTable?: boolean;
  /** Records written (or found already as the file describes them) so far, of all records: at the start and after each batch. */
  onProgress?: (written: number, total: number) => void;
  /** The first pass: records checked and bytes read so far. */
  onCheckProgress?: (progress: CheckProgress) => void;
  /** Every problem found, as it is found (all of them: InvalidRecordsError keeps the first 100). */
  onProblem?: (problem: RecordProblem) => void;
  /** The log's signing key (a key file, or the KMS key in AWS); default: the development key kept in .data/ (lib/ledger/dev-key.ts). */
  signer?: CheckpointSigner;
  /** Take the ledger lease even if a writer that stopped part-way left it held. */
  unlockLedger?: boolean;
  /** Stages of the log's own work: 'checking the log' (its stored leaves against the signed checkpoint). */
  onLedgerProgress?: (stage: string, done: number, total: number) => void;
  /** Messages about the lease (waiting for another writer, taking over from a killed load). */
  onLeaseMessage?: (message: string) => void;
  /** Where the ledger's C2SP tlog-tiles log is written (functions/ledger-writer/tile-store.ts); none: the table only. */
  tiles?: TileStore;
  /** Records per batch of the writer (default chunks.ts CHUNK_RECORDS). */
  chunkRecords?: number;
}

export interface LoadSummary {
  /** Records of the file as stored now (written by this load, or found already so), derived ones included; none kept by events. */
  records: number;
  /** Of those, records found already exactly as the file describes them (a load run again), left as they were. */
  unchanged: number;
  /** Records of the document left as they are because received events changed them (docs/ingress.md#loads-and-events). */
  keptChangedByEvents: string[];
  /** Items written. */
  items: number;
  /** The log after this load (null when nothing was ever logged). */
  ledger: (LedgerPublication & LedgerAttachment) | null;
}

/** Records per second are only as good as the store's answers: writes in flight at once. */
const WRITE_CONCURRENCY = 8;
/** A lease another writer holds is waited for when it ends within this long (docs/ledger.md#how-the-loader-appends). */
const LEASE_PATIENCE_MS = 120_000;

/**
 * Checks `source` in a first streaming pass (nothing is written when any record is bad), then
 * writes it in a second, in batches of the writer every change goes through
 * (functions/ledger-writer/batch.ts: leaves, then the signed head, then the records), each under
 * its own lease, opened from the log's right edge and journaled when it writes. Memory holds one
 * batch, whatever the file's size. A record already stored exactly as the file describes it
 * (its genesis item's digest) is left alone and its versions are not logged again, so a load run
 * again, after it finished or after it was killed at any point, completes what is missing and
 * logs every record version exactly once.
 */
export async function loadRecords(source: RecordSource, options: LoadOptions): Promise<LoadSummary> {
  const scratch = await LoadScratch.open();
  try {
    const checked = await checkOrThrow(source, scratch, options);
    const total = checked.records + checked.derived;
    const summary: LoadSummary = { records: 0, unchanged: 0, keptChangedByEvents: [], items: 0, ledger: null };
    if (options.createTable && options.client) await ensureTable(options.client, options.table!);
    const stores = options.stores ?? tableStores(options.client!, options.table!);
    const signer = options.signer ?? (await devLedgerSigner()).signer;
    const audited = await auditStoredLog(stores.ledger, signer, options.onLedgerProgress);
    const lockId = loadLockId();
    let publication: LedgerPublication | null = audited;
    const attachment: LedgerAttachment = { logged: 0, appended: 0, alteredAfterLogging: [] };
    let done = 0;
    let first = true;
    options.onProgress?.(0, total);
    for await (const chunk of recordChunks(source, scratch, { records: options.chunkRecords, expectedRecords: checked.records })) {
      const unlock = first && options.unlockLedger;
      const outcome = await withLedgerLease(
        ({ replacingLock }) =>
          runLedgerBatch(
            {
              ledger: stores.ledger,
              records: stores.records,
              signer,
              tiles: options.tiles,
              unlock,
              lockId,
              replacingLock,
              journal: true,
              recordsConcurrency: WRITE_CONCURRENCY,
            },
            (log) => prepareChunk(stores.records, chunk, log),
          ),
        { waitMs: LEASE_PATIENCE_MS, onWait: options.onLeaseMessage },
      );
      first = false;
      const r = outcome.result;
      summary.records += r.written + r.unchanged;
      summary.unchanged += r.unchanged;
      summary.items += r.items;
      summary.keptChangedByEvents.push(...r.kept);
      attachment.logged += r.attachment.logged;
      attachment.appended += r.attachment.appended;
      attachment.alteredAfterLogging.push(...r.attachment.alteredAfterLogging);
      publication = outcome.ledger ?? publication;
      done += chunk.length;
      options.onProgress?.(done, total);
    }
    // Only now is the table loaded: /health reads this mark (functions/store/table-meta.ts), so a
    // load that stopped part-way leaves it not ready, and the same load run again finishes it.
    await stores.records.markSchema();
    summary.items += 1;
    summary.keptChangedByEvents.sort();
    summary.ledger = publication && publication.treeSize > 0 ? { ...publication, ...attachment } : null;
    return summary;
  } finally {
    await scratch.close();
  }
}

/** The first pass alone (npm run load -- FILE --dry-run): every problem, nothing written. */
export async function checkRecords(source: RecordSource, options: Pick<LoadOptions, 'onProblem' | 'onCheckProgress'> = {}): Promise<CheckOutcome> {
  const scratch = await LoadScratch.open();
  try {
    return await checkOrThrow(source, scratch, options);
  } finally {
    await scratch.close();
  }
}

/** loadRecords for a document in memory (`{ "records": [...] }`): the demo data, tests, the local service. */
export async function loadDocument(document: unknown, options: LoadOptions): Promise<LoadSummary> {
  return loadRecords(documentSource(document), options);
}

/**
 * Before anything is appended: every stored leaf, read a page at a time and folded into a
 * compact range (O(log n) hashes held), must reproduce the root of the signed checkpoint with
 * this signing key. A table whose leaves were altered, or a key of another log, stops the load
 * before it writes. Returns the published head (null: nothing was ever logged).
 */
async function auditStoredLog(ledger: LedgerStores, signer: CheckpointSigner, onProgress: LoadOptions['onLedgerProgress']): Promise<LedgerPublication | null> {
  const head = await ledger.lock.read();
  if (!head || head.treeSize === 0) return null;
  if (head.origin && head.origin !== signer.name) throw new Error(`the table's log is ${head.origin}, but the signing key is for ${signer.name}`);
  const range = new CompactRange();
  onProgress?.('checking the log', 0, head.treeSize);
  await ledger.leaves.forEachLeaf(head.treeSize, (leaf) => range.append(leaf), (read, total) => onProgress?.('checking the log', read, total));
  checkSignedTree(signer, range, head.checkpoint);
  return { origin: signer.name, treeSize: head.treeSize, appended: 0, checkpoint: head.checkpoint!, verifierKey: signer.verifierKey };
}

interface ChunkResult {
  written: number;
  unchanged: number;
  items: number;
  kept: string[];
  attachment: LedgerAttachment;
}

/**
 * One batch: under the lease, what the table holds of these records decides what is written.
 * A record the sequencer changed is kept; one whose genesis carries this very digest is complete
 * and up to date (a load run again); the rest are logged (versions whose stored evidence covers
 * their content keep it) and written, their genesis items last, so a genesis with the digest
 * means every entry before it is written.
 */
async function prepareChunk(records: RecordStore, chunk: RecordToLoad[], log: AppendOnlyLog) {
  const states = await records.readGeneses(chunk.map((c) => c.record.reference));
  const kept: string[] = [];
  const loading: RecordToLoad[] = [];
  let unchanged = 0;
  for (const c of chunk) {
    const state = states.get(c.record.reference);
    if (state?.changedByEvents) kept.push(c.record.reference);
    else if (state?.loadDigest === c.digest) unchanged++;
    else loading.push(c);
  }
  // Evidence already issued for records stored before (by an earlier load, or this one stopped part-way), read whole in one call.
  const storedBefore = loading.filter((c) => states.has(c.record.reference));
  const timelines = storedBefore.length > 0 ? await records.readTimelines(storedBefore.map((c) => ({ reference: c.record.reference, from: null }))) : new Map();
  const issued = new Map(
    storedBefore.map((c) => {
      const byVersion = new Map<number, LedgerEvidence>();
      for (const e of timelines.get(c.record.reference)?.entries ?? []) if (e.head.evidence?.version === e.head.version) byVersion.set(e.head.version, e.head.evidence as LedgerEvidence);
      return [c.record.reference, byVersion] as const;
    }),
  );
  const attachment = await attachSealedLedgerEvidence(
    loading.map((c) => c.record),
    log,
    undefined,
    (reference, version) => issued.get(reference)?.get(version),
  );
  const changes = loading.map((c) => wholeRecordChange(c.record, c.digest, timelines.get(c.record.reference)?.tail));
  const items = changes.reduce((n, c) => n + c.entries.length + 1, 0);
  const result: ChunkResult = { written: loading.length, unchanged, items, kept, attachment };
  // The schema mark is written once the whole load is (loadRecords), never with a batch.
  return { records: changes, settlements: [], schema: false, result };
}

/**
 * A record a load writes whole: its entries in order, then its genesis with the digest of exactly
 * what the load wrote (chunks.ts loadDigest), so a load run again finds it complete and up to date
 * from that one item and leaves it alone. Readers ignore the digest. The genesis also says where
 * the record's newest items are (the sequencer reads them by key), counting those stored before
 * (`storedTail`, of a record loaded before) which the load does not overwrite.
 */
function wholeRecordChange(record: RecordToStore, loadDigest: string, storedTail: string | undefined): RecordChange {
  const highestVersion = record.entries.reduce((highest, e) => Math.max(highest, (e.head as { version?: number }).version ?? 0), 0);
  return { reference: record.reference, kind: record.kind, entries: record.entries.map((e) => ({ id: null, ...e })), genesis: { highestVersion, loadDigest }, ...(storedTail === undefined ? {} : { tail: storedTail }) };
}
