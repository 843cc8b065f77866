import type { RecordHead } from './record';

export interface IntegrityAssessment {
  confirmed: boolean;
  reason: string;
}

/**
 * Integrity is confirmed only by verifying ledger evidence against the content shown.
 * Fail closed: no evidence, or evidence for another version than the one shown, is "not confirmed".
 */
export function assessIntegrity(head: RecordHead): IntegrityAssessment {
  if (!head.evidence) return { confirmed: false, reason: 'No ledger evidence is held for this record.' };
  if (head.evidence.version !== head.version) {
    return { confirmed: false, reason: `The ledger evidence covers version ${head.evidence.version}, not the version shown (${head.version}).` };
  }
  return { confirmed: false, reason: 'Ledger evidence is held but this deployment cannot verify it.' };
}
