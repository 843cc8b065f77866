import type { LedgerEvidence } from '../../functions/domain/record';
import type { RecordToStore } from '../../functions/store/write';

interface LoaderHead {
  version: number;
  content: unknown;
  evidence: LedgerEvidence | null;
  anchored?: boolean;
}

/**
 * Gives each head the evidence of the newest anchored version at or before it. A version marked
 * `anchored: false` keeps the previous version's evidence, which is how MODIFIED arises.
 * `anchor` turns one record version into its evidence.
 */
export function attachEvidence(record: RecordToStore, anchor: (head: LoaderHead) => LedgerEvidence): void {
  let evidence: LedgerEvidence | null = null;
  let lastVersion = -1;
  for (const { head } of record.entries as { head: LoaderHead }[]) {
    if (head.version !== lastVersion) {
      lastVersion = head.version;
      if (head.anchored !== false) evidence = anchor(head);
      delete head.anchored;
    }
    head.evidence = evidence;
  }
}

/** Without a ledger: the evidence names the version it would cover and nothing more. */
export const versionOnlyEvidence = (head: LoaderHead): LedgerEvidence => ({ version: head.version });
