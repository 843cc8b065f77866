import type { LedgerEvidence } from '../../functions/domain/record';
import type { RecordToStore } from '../../functions/store/write';
import type { AppendOnlyLog } from '../../functions/ledger-writer/log';

/** A head as the record kinds build it, with the loader-only instructions the ledger step reads. */
interface LoaderHead {
  reference: string;
  version: number;
  content: unknown;
  evidence: LedgerEvidence | null;
  /** false: this version is not yet in the ledger (its evidence stays that of the previous version). */
  anchored?: boolean;
  /**
   * Demonstration only: fields overwritten in the stored content after the version was logged,
   * as if someone had edited the table behind the ledger's back. The evidence then fails, and
   * every response says so. The loader reports each record it does this to.
   */
  alterStoredContentAfterLogging?: Record<string, unknown>;
}

export interface LedgerAttachment {
  /** Record versions in the load (distinct heads that were logged or already in the log). */
  logged: number;
  /** Leaves appended to the log by this load. */
  appended: number;
  /** References whose stored content was deliberately altered after logging. */
  alteredAfterLogging: string[];
}

/**
 * Logs every anchored record version in `log` (content already logged keeps its leaf), and gives
 * each entry the evidence of the newest anchored version at or before it, proven against the
 * checkpoint of the resulting tree. A version marked `anchored: false` keeps the previous
 * version's evidence, which is how MODIFIED arises. The log must be able to sign on demand (a key
 * file); a batch with any key uses attachSealedLedgerEvidence.
 */
export function attachLedgerEvidence(records: RecordToStore[], log: AppendOnlyLog, onProgress?: (done: number, total: number) => void): LedgerAttachment {
  return logRecordVersions(records, log, onProgress).attach();
}

/** attachLedgerEvidence with one signature of the batch's checkpoint by whatever key the log holds (a KMS key answers asynchronously). */
export async function attachSealedLedgerEvidence(records: RecordToStore[], log: AppendOnlyLog, onProgress?: (done: number, total: number) => void): Promise<LedgerAttachment> {
  const logged = logRecordVersions(records, log, onProgress);
  if (log.size > 0) await log.seal();
  return logged.attach();
}

function logRecordVersions(records: RecordToStore[], log: AppendOnlyLog, onProgress?: (done: number, total: number) => void): { attach(): LedgerAttachment } {
  const heads = new Map<LoaderHead, number | null>();
  const altered: string[] = [];
  let appended = 0;
  let done = 0;
  for (const record of records) {
    for (const { head } of record.entries as { head: LoaderHead }[]) {
      if (heads.has(head)) continue;
      let leafIndex: number | null = null;
      if (head.anchored !== false) {
        const added = log.add(head.content, { reference: head.reference, version: head.version });
        leafIndex = added.leafIndex;
        if (added.appended) appended++;
      }
      if (head.alterStoredContentAfterLogging) {
        Object.assign(head.content as object, head.alterStoredContentAfterLogging);
        altered.push(head.reference);
      }
      delete head.anchored;
      delete head.alterStoredContentAfterLogging;
      heads.set(head, leafIndex);
    }
    onProgress?.(++done, records.length);
  }

  return { attach: () => attachEvidence(records, log, heads, { appended, altered }) };
}

function attachEvidence(records: RecordToStore[], log: AppendOnlyLog, heads: Map<LoaderHead, number | null>, counts: { appended: number; altered: string[] }): LedgerAttachment {
  const { appended, altered } = counts;
  const evidenceByLeaf = new Map<number, LedgerEvidence>();
  const evidenceFor = (leafIndex: number, version: number): LedgerEvidence => {
    let evidence = evidenceByLeaf.get(leafIndex);
    if (!evidence) {
      evidence = log.evidence(leafIndex, version);
      evidenceByLeaf.set(leafIndex, evidence);
    }
    return evidence;
  };
  for (const record of records) {
    let evidence: LedgerEvidence | null = null;
    for (const { head } of record.entries as { head: LoaderHead }[]) {
      const leafIndex = heads.get(head);
      if (leafIndex !== null && leafIndex !== undefined) evidence = evidenceFor(leafIndex, head.version);
      head.evidence = evidence;
    }
  }
  return { logged: [...heads.values()].filter((i) => i !== null).length, appended, alteredAfterLogging: altered };
}
