/** A record the loader refuses: which one, which field, and why. */
export interface RecordProblem {
  index: number;
  reference: string | null;
  field: string;
  message: string;
}

/** Every problem of a document at once; nothing is written while any exists. */
export class InvalidRecordsError extends Error {
  constructor(readonly problems: RecordProblem[]) {
    super(`${problems.length} problem(s) in the records; nothing was written`);
  }
}
