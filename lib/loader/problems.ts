/** A record the loader refuses: which one, which field, and why. */
export interface RecordProblem {
  /** The record's position among the file's records (0-based); -1: the file as a whole. */
  index: number;
  reference: string | null;
  field: string;
  message: string;
  /** The record's line (NDJSON). */
  line?: number;
}

/** The problem of a document (the file as a whole) without a records array. */
export const NOT_A_RECORDS_DOCUMENT = 'the file must be a JSON object with a "records" array';

/** How many problems an error keeps to show (all of them go to a report file: bin/load.ts --report). */
export const PROBLEMS_SHOWN = 100;

/** The problems of a file (the first PROBLEMS_SHOWN, and how many in all); nothing is written while any exists. */
export class InvalidRecordsError extends Error {
  /** Every problem found, including those not kept in `problems`. */
  readonly count: number;

  constructor(
    readonly problems: RecordProblem[],
    count = problems.length,
  ) {
    super(`${count} problem(s) in the records; nothing was written`);
    this.count = count;
  }
}

/** One line of a problem, as the CLI prints it. */
export function describeProblem(p: RecordProblem): string {
  if (p.index < 0) return `file: ${p.message}`;
  return `record ${p.index}${p.line !== undefined ? ` (line ${p.line})` : ''}${p.reference ? ` (${p.reference})` : ''}: ${p.field}: ${p.message}`;
}
