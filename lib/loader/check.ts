import { LISTS_PER_GROUP } from '../../functions/domain/kinds/status-list';
import type { RecordToStore } from '../../functions/store/ports/records';
import { expandFromFile } from './expand';
import { RECORD_FORMATS } from './formats';
import type { ListMember, RecordFormat } from './formats/shared';
import { memberOf, statusListPositions } from './lists';
import { InvalidRecordsError, PROBLEMS_SHOWN, type RecordProblem } from './problems';
import type { LoadScratch } from './scratch';
import type { RawRecord, RecordSource } from './source';

/** A record that passed its checks, as it will be stored. */
export interface CheckedRecord {
  index: number;
  reference: string;
  format: RecordFormat<unknown>;
  record: RecordToStore;
}

/**
 * One record's own checks: its form (its kind's schema), then its history through its kind's
 * rules, every entry the receivers would refuse named with the rule (expand.ts); duplicates and
 * status lists are checked across records.
 */
export function checkRecord(raw: RawRecord): { record: CheckedRecord; problems?: undefined } | { record?: undefined; problems: RecordProblem[] } {
  const { index, line, value } = raw;
  const at = line !== undefined ? { line } : {};
  if (raw.unreadable) return { problems: [{ index, reference: null, field: '(record)', message: raw.unreadable, ...at }] };
  const reference = typeof (value as { reference?: unknown })?.reference === 'string' ? ((value as { reference: string }).reference) : null;
  const format = RECORD_FORMATS[(value as { kind?: string })?.kind as string];
  if (!format) return { problems: [{ index, reference, field: 'kind', message: `must be one of ${Object.keys(RECORD_FORMATS).join(', ')}`, ...at }] };
  const parsed = format.schema.safeParse(value);
  if (!parsed.success) {
    return { problems: parsed.error.issues.map((issue) => ({ index, reference, field: issue.path.join('.') || '(record)', message: issue.message, ...at })) };
  }
  const expanded = expandFromFile(format, parsed.data as { reference: string });
  if (expanded.problems) return { problems: expanded.problems.map((p) => ({ index, reference, ...p, ...at })) };
  return { record: { index, reference: reference!, format, record: expanded.record } };
}

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
 * then the status lists derived from every member of a group (their positions kept for the second pass).
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
  let batch: { index: number; reference: string; line?: number; member?: ListMember }[] = [];
  const flush = async () => {
    const duplicates = await scratch.seeReferences(batch);
    for (const r of batch) {
      const first = duplicates.get(r.index);
      if (first !== undefined) report({ index: r.index, reference: r.reference, field: 'reference', message: `appears more than once in the file (first as record ${first})`, ...(r.line !== undefined ? { line: r.line } : {}) });
    }
    await scratch.addMembers(batch.flatMap((r) => (r.member && !duplicates.has(r.index) ? [r.member] : [])));
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
      const member = memberOf(record.record, record.index);
      batch.push({ index: record.index, reference: record.reference, ...(raw.line !== undefined ? { line: raw.line } : {}), ...(member ? { member } : {}) });
      if (batch.length >= REFERENCE_BATCH) await flush();
    }
    if (outcome.records % 1000 === 0) options.onProgress?.({ records: outcome.records, bytes, totalBytes: source.bytes });
  }
  await flush();
  options.onProgress?.({ records: outcome.records, bytes: source.bytes ?? bytes, totalBytes: source.bytes });
  // Status lists are derived from every member at once: only from a file whose records are all sound.
  if (outcome.count === 0) {
    for await (const { group, members } of scratch.memberGroups()) {
      // The lists themselves are built in the second pass (chunks.ts): here only their positions and count.
      const { positions, problems } = statusListPositions(group, members);
      problems.forEach(report);
      await scratch.setPositions(positions);
      outcome.derived += LISTS_PER_GROUP;
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
