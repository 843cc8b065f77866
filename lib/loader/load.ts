import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable, recordItems, tableMetaItem, type RecordToStore } from '../../functions/store/write';
import { recordsChangedByEvents } from '../../functions/store/records';
import { runLedgerBatch } from '../../functions/ledger-writer/batch';
import { devLedgerSigner } from '../ledger/dev-key';
import type { CheckpointSigner } from '../../functions/ledger-writer/signer';
import type { TileStore } from '../../functions/ledger-writer/tile-store';
import type { LedgerPublication } from '../../functions/ledger-writer/table-ledger';
import { attachSealedLedgerEvidence, type LedgerAttachment } from './evidence';
import { withDerivedRecords } from './derive';
import { RECORD_KINDS } from './kinds';
import { InvalidRecordsError, type RecordProblem } from './problems';

export { InvalidRecordsError, type RecordProblem } from './problems';

/** Validates every record and reports every problem (record index, reference, field); throws when any. */
export function validateRecords(document: unknown): RecordToStore[] {
  const problems: RecordProblem[] = [];
  const records = (document as { records?: unknown })?.records;
  if (!Array.isArray(records)) {
    throw new InvalidRecordsError([{ index: -1, reference: null, field: 'records', message: 'the file must be a JSON object with a "records" array' }]);
  }
  const seen = new Set<string>();
  const out: RecordToStore[] = [];
  records.forEach((raw, index) => {
    const reference = typeof raw?.reference === 'string' ? raw.reference : null;
    const kind = RECORD_KINDS[raw?.kind];
    if (!kind) {
      problems.push({ index, reference, field: 'kind', message: `must be one of ${Object.keys(RECORD_KINDS).join(', ')}` });
      return;
    }
    const parsed = kind.schema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push({ index, reference, field: issue.path.join('.') || '(record)', message: issue.message });
      }
      return;
    }
    if (seen.has(reference!)) {
      problems.push({ index, reference, field: 'reference', message: 'appears more than once in the file' });
      return;
    }
    seen.add(reference!);
    out.push(kind.expand(parsed.data));
  });
  if (problems.length > 0) throw new InvalidRecordsError(problems);
  return out;
}

export interface LoadOptions {
  client: DynamoDBClient;
  table: string;
  /** Create the table when missing (local stores). */
  createTable?: boolean;
  onProgress?: (written: number, total: number) => void;
  /** The log's signing key (a key file, or the KMS key in AWS); default: the development key kept in .data/ (lib/ledger/dev-key.ts). */
  signer?: CheckpointSigner;
  /** Take the ledger lock even if a load that stopped part-way left it held. */
  unlockLedger?: boolean;
  onLedgerProgress?: (stage: string, done: number, total: number) => void;
  /** Where the ledger's C2SP tlog-tiles log is written (functions/ledger-writer/tile-store.ts); none: the table only. */
  tiles?: TileStore;
}

export interface LoadSummary {
  /** Records written. */
  records: number;
  /** Records of the document left as they are because received events changed them (docs/ingress.md#loads-and-events). */
  keptChangedByEvents: string[];
  items: number;
  /** The log after this load (null when nothing was ever logged). */
  ledger: (LedgerPublication & LedgerAttachment) | null;
}

/**
 * Validates, logs every new record version in the ledger, attaches evidence and writes, as one
 * batch of the writer every change goes through (functions/ledger-writer/batch.ts: leaves, then
 * the signed head, then the records). Content already logged appends nothing, so a second run, or
 * a run after one that stopped part-way, changes nothing more.
 */
export async function loadDocument(document: unknown, options: LoadOptions): Promise<LoadSummary> {
  const records = withDerivedRecords(validateRecords(document));
  if (options.createTable) await ensureTable(options.client, options.table);
  const signer = options.signer ?? (await devLedgerSigner()).signer;
  const { result, ledger } = await runLedgerBatch(
    { client: options.client, table: options.table, signer, unlock: options.unlockLedger, onProgress: options.onLedgerProgress, tiles: options.tiles, onRecordsProgress: options.onProgress },
    async (log) => {
      // A record the sequencer has changed is no longer what the document describes: it is kept as the events made it.
      const kept = await recordsChangedByEvents(options.client, options.table, records.map((r) => r.reference));
      const loading = records.filter((r) => !kept.has(r.reference));
      const attachment = await attachSealedLedgerEvidence(loading, log, (done, total) => options.onLedgerProgress?.('logging records', done, total));
      const items = loading.flatMap(recordItems);
      return { records: items, last: [tableMetaItem()], result: { attachment, items: items.length, loaded: loading.length, kept: [...kept].sort() } };
    },
  );
  return { records: result.loaded, items: result.items, keptChangedByEvents: result.kept, ledger: ledger ? { ...ledger, ...result.attachment } : null };
}
