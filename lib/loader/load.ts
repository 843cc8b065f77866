import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable, putItems, recordItems, writeTableMeta, type RecordToStore } from '../../functions/store/write';
import { devLedgerSigner } from '../ledger/dev-key';
import type { LedgerSigner } from '../ledger/signer';
import type { TileStore } from '../ledger/tile-store';
import { TableLedger, type LedgerPublication } from '../ledger/table-ledger';
import { attachLedgerEvidence, type LedgerAttachment } from './evidence';
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
  /** The log's signing key; default: the development key kept in .data/ (lib/ledger/dev-key.ts). */
  signer?: LedgerSigner;
  /** Take the ledger lock even if a load that stopped part-way left it held. */
  unlockLedger?: boolean;
  onLedgerProgress?: (stage: string, done: number, total: number) => void;
  /** Where the ledger's C2SP tlog-tiles log is written (lib/ledger/tile-store.ts); none: the table only. */
  tiles?: TileStore;
}

export interface LoadSummary {
  records: number;
  items: number;
  /** The log after this load (null when nothing was ever logged). */
  ledger: (LedgerPublication & LedgerAttachment) | null;
}

/**
 * Validates, logs every new record version in the ledger, attaches evidence and writes. Leaves are
 * stored before the records that cite them, and the new checkpoint is published last. Content
 * already logged appends nothing, so a second run changes nothing.
 */
export async function loadDocument(document: unknown, options: LoadOptions): Promise<LoadSummary> {
  const records = withDerivedRecords(validateRecords(document));
  if (options.createTable) await ensureTable(options.client, options.table);
  const signer = options.signer ?? (await devLedgerSigner()).signer;
  const ledger = await TableLedger.open({ client: options.client, table: options.table, signer, unlock: options.unlockLedger, onProgress: options.onLedgerProgress, tiles: options.tiles });
  try {
    const attachment = attachLedgerEvidence(records, ledger.log, (done, total) => options.onLedgerProgress?.('logging records', done, total));
    await ledger.writeNewLeaves();
    const items = records.flatMap(recordItems);
    await putItems(options.client, options.table, items, (written) => options.onProgress?.(written, items.length));
    await writeTableMeta(options.client, options.table);
    const publication = await ledger.publish();
    return { records: records.length, items: items.length, ledger: publication ? { ...publication, ...attachment } : null };
  } finally {
    await ledger.release();
  }
}
