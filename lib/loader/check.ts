import type { RecordToStore } from '../../functions/store/write';
import { CREDENTIAL_KIND } from '../../functions/domain/credentials/model';
import { STATUS_PURPOSES } from '../../functions/contract/schemas/credentials';
import { credentialSummary, statusListPositions, type CredentialSummary } from './kinds/credential';
import { RECORD_KINDS } from './kinds';
import type { RecordKind } from './kinds/shared';
import { InvalidRecordsError, PROBLEMS_SHOWN, type RecordProblem } from './problems';
import type { LoadScratch } from './scratch';
import type { RawRecord, RecordSource } from './source';

/** A record that passed its own checks, ready to expand into what is stored. */
export interface CheckedRecord {
  index: number;
  reference: string;
  kind: RecordKind<unknown>;
  data: unknown;
}

/** One record's own checks (its kind's schema); duplicates and status lists are checked across records. */
export function checkRecord(raw: RawRecord): { record: CheckedRecord; problems?: undefined } | { record?: undefined; problems: RecordProblem[] } {
  const { index, line, value } = raw;
  const at = line !== undefined ? { line } : {};
  if (raw.unreadable) return { problems: [{ index, reference: null, field: '(record)', message: raw.unreadable, ...at }] };
  const reference = typeof (value as { reference?: unknown })?.reference === 'string' ? ((value as { reference: string }).reference) : null;
  const kind = RECORD_KINDS[(value as { kind?: string })?.kind as string];
  if (!kind) return { problems: [{ index, reference, field: 'kind', message: `must be one of ${Object.keys(RECORD_KINDS).join(', ')}`, ...at }] };
  const parsed = kind.schema.safeParse(value);
  if (!parsed.success) {
    return { problems: parsed.error.issues.map((issue) => ({ index, reference, field: issue.path.join('.') || '(record)', message: issue.message, ...at })) };
  }
  return { record: { index, reference: reference!, kind, data: parsed.data } };
}

export const expandRecord = (record: CheckedRecord): RecordToStore => record.kind.expand(record.data);

export interface CheckOutcome {
  /** Records in the file. */
  records: number;
  /** Records derived from them (status lists). */
  derived: number;
  /** Every problem found. */
  count: number;
  /** The first PROBLEMS_SHOWN problems. */
  problems: RecordProblem[];
}

export interface CheckProgress {
  records: number;
  bytes: number;
  totalBytes: number | null;
}

/** References are checked against those seen before this many records at a time (one LevelDB round trip). */
const REFERENCE_BATCH = 1000;

/**
 * The first pass of a load: every record's own checks, duplicate references (on disk: scratch.ts),
 * then the status lists derived from every credential (their positions kept for the second pass).
 * One record is in memory at a time; every problem goes to `onProblem` as it is found.
 */
export async function checkSource(
  source: RecordSource,
  scratch: LoadScratch,
  options: { onProblem?: (problem: RecordProblem) => void; onProgress?: (progress: CheckProgress) => void } = {},
): Promise<CheckOutcome> {
  const outcome: CheckOutcome = { records: 0, derived: 0, count: 0, problems: [] };
  const report = (problem: RecordProblem) => {
    outcome.count++;
    if (outcome.problems.length < PROBLEMS_SHOWN) outcome.problems.push(problem);
    options.onProblem?.(problem);
  };
  let batch: { index: number; reference: string; line?: number; credential?: CredentialSummary }[] = [];
  const flush = async () => {
    const duplicates = await scratch.seeReferences(batch);
    for (const r of batch) {
      const first = duplicates.get(r.index);
      if (first !== undefined) report({ index: r.index, reference: r.reference, field: 'reference', message: `appears more than once in the file (first as record ${first})`, ...(r.line !== undefined ? { line: r.line } : {}) });
    }
    await scratch.addCredentials(batch.flatMap((r) => (r.credential && !duplicates.has(r.index) ? [r.credential] : [])));
    batch = [];
  };
  let bytes = 0;
  options.onProgress?.({ records: 0, bytes: 0, totalBytes: source.bytes });
  for await (const raw of source.records(report, (read) => (bytes = read))) {
    outcome.records++;
    const checked = checkRecord(raw);
    if (checked.problems) checked.problems.forEach(report);
    else {
      const { record } = checked;
      const credential = record.kind.kind === CREDENTIAL_KIND ? credentialSummary(expandRecord(record), record.index) : undefined;
      batch.push({ index: record.index, reference: record.reference, ...(raw.line !== undefined ? { line: raw.line } : {}), ...(credential ? { credential } : {}) });
      if (batch.length >= REFERENCE_BATCH) await flush();
    }
    if (outcome.records % 1000 === 0) options.onProgress?.({ records: outcome.records, bytes, totalBytes: source.bytes });
  }
  await flush();
  options.onProgress?.({ records: outcome.records, bytes: source.bytes ?? bytes, totalBytes: source.bytes });
  // Status lists are derived from every credential at once: only from a file whose records are all sound.
  if (outcome.count === 0) {
    for await (const { group, members } of scratch.credentialGroups()) {
      // The lists themselves are built in the second pass (chunks.ts): here only their positions and count.
      const { positions, problems } = statusListPositions(group, members);
      problems.forEach(report);
      await scratch.setPositions(positions);
      outcome.derived += STATUS_PURPOSES.length;
    }
  }
  return outcome;
}

/** The first pass; throws InvalidRecordsError (the first 100 problems, and how many) when any record is bad. */
export async function checkOrThrow(source: RecordSource, scratch: LoadScratch, options: { onProblem?: (problem: RecordProblem) => void; onCheckProgress?: (progress: CheckProgress) => void }): Promise<CheckOutcome> {
  const checked = await checkSource(source, scratch, { onProblem: options.onProblem, onProgress: options.onCheckProgress });
  if (checked.count > 0) throw new InvalidRecordsError(checked.problems, checked.count);
  return checked;
}
