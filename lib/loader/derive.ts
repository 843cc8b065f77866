import type { RecordToStore } from '../../functions/store/ports/records';
import { deriveStatusLists } from './lists';
import { InvalidRecordsError, type RecordProblem } from './problems';

/**
 * A derivation computes records from all validated records at once (an aggregate no single
 * record can produce), and may complete fields of the records it reads. It reports problems the
 * way validation does: by record index, reference and field.
 */
type Derivation = (records: readonly RecordToStore[]) => { records: RecordToStore[]; problems: RecordProblem[] };

const DERIVATIONS: readonly Derivation[] = [deriveStatusLists];

/** The validated records followed by every derived record; throws (nothing written) on any problem. */
export function withDerivedRecords(records: RecordToStore[]): RecordToStore[] {
  const derived: RecordToStore[] = [];
  const problems: RecordProblem[] = [];
  for (const derive of DERIVATIONS) {
    const out = derive(records);
    derived.push(...out.records);
    problems.push(...out.problems);
  }
  if (problems.length > 0) throw new InvalidRecordsError(problems);
  return [...records, ...derived];
}
