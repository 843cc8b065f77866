import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable, putItems, recordItems, writeTableMeta, type RecordToStore } from '../../functions/store/write';
import { attachEvidence, versionOnlyEvidence } from './evidence';
import { withDerivedRecords } from './derive';
import { RECORD_KINDS } from './kinds';

export interface RecordProblem {
  index: number;
  reference: string | null;
  field: string;
  message: string;
}

export class InvalidRecordsError extends Error {
  constructor(readonly problems: RecordProblem[]) {
    super(`${problems.length} problem(s) in the records; nothing was written`);
  }
}

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
}

export interface LoadSummary {
  records: number;
  items: number;
}

/** Validates, attaches evidence and writes. Deterministic items, so a second run changes nothing. */
export async function loadDocument(document: unknown, options: LoadOptions): Promise<LoadSummary> {
  const records = withDerivedRecords(validateRecords(document));
  for (const record of records) attachEvidence(record, versionOnlyEvidence);
  const items = records.flatMap(recordItems);
  if (options.createTable) await ensureTable(options.client, options.table);
  await putItems(options.client, options.table, items, (written) => options.onProgress?.(written, items.length));
  await writeTableMeta(options.client, options.table);
  return { records: records.length, items: items.length };
}
