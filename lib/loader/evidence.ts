import type { LedgerEvidence } from '../../functions/domain/record';
import type { RecordToStore } from '../../functions/store/write';
import type { AppendOnlyLog } from '../../functions/ledger-writer/log';
import { canonicalBytes } from '#verify/checks/canonical';
import { leafHash } from '#verify/node/hashing';
import { encodeBase64 } from '#verify/checks/encoding';

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
 * Evidence already issued for a version of a record (stored with it by an earlier load): reused
 * when the version's content hashes to its leaf, instead of logging that content again.
 */
export type IssuedEvidence = (reference: string, version: number) => LedgerEvidence | undefined;

/**
 * Logs every anchored record version in `log` (content already logged keeps its leaf), and gives
 * each entry the evidence of the newest anchored version at or before it, proven against the
 * checkpoint of the resulting tree. A version marked `anchored: false` keeps the previous
 * version's evidence, which is how MODIFIED arises. The log must be able to sign on demand (a key
 * file); a batch with any key uses attachSealedLedgerEvidence.
 */
export function attachLedgerEvidence(records: RecordToStore[], log: AppendOnlyLog, onProgress?: (done: number, total: number) => void): LedgerAttachment {
  return logRecordVersions(records, log, undefined, onProgress).attach();
}

/**
 * attachLedgerEvidence with one signature of the batch's checkpoint by whatever key the log holds
 * (a KMS key answers asynchronously). With `issued`, a version whose stored evidence covers its
 * very content keeps that evidence (valid for ever: the tree only grows) and is not logged again:
 * a log opened from its right edge cannot look up older content itself.
 */
export async function attachSealedLedgerEvidence(
  records: RecordToStore[],
  log: AppendOnlyLog,
  onProgress?: (done: number, total: number) => void,
  issued?: IssuedEvidence,
): Promise<LedgerAttachment> {
  const logged = logRecordVersions(records, log, issued, onProgress);
  if (log.size > 0) await log.seal();
  return logged.attach();
}

/** Where a head's evidence comes from: a leaf of this log, evidence issued before, or none (not anchored). */
type Anchor = { leafIndex: number } | { issued: LedgerEvidence } | null;

function logRecordVersions(records: RecordToStore[], log: AppendOnlyLog, issued: IssuedEvidence | undefined, onProgress?: (done: number, total: number) => void): { attach(): LedgerAttachment } {
  const heads = new Map<LoaderHead, Anchor>();
  const altered: string[] = [];
  let appended = 0;
  let done = 0;
  for (const record of records) {
    for (const { head } of record.entries as { head: LoaderHead }[]) {
      if (heads.has(head)) continue;
      let anchor: Anchor = null;
      if (head.anchored !== false) {
        const entry = canonicalBytes(head.content);
        const leaf = leafHash(entry);
        const before = issued?.(head.reference, head.version);
        if (before && before.version === head.version && before.leafHash === encodeBase64(leaf)) {
          anchor = { issued: before };
        } else {
          const added = log.addEntry(entry, leaf, { reference: head.reference, version: head.version });
          anchor = { leafIndex: added.leafIndex };
          if (added.appended) appended++;
        }
      }
      if (head.alterStoredContentAfterLogging) {
        Object.assign(head.content as object, head.alterStoredContentAfterLogging);
        altered.push(head.reference);
      }
      delete head.anchored;
      delete head.alterStoredContentAfterLogging;
      heads.set(head, anchor);
    }
    onProgress?.(++done, records.length);
  }

  return { attach: () => attachEvidence(records, log, heads, { appended, altered }) };
}

function attachEvidence(records: RecordToStore[], log: AppendOnlyLog, heads: Map<LoaderHead, Anchor>, counts: { appended: number; altered: string[] }): LedgerAttachment {
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
      const anchor = heads.get(head);
      if (anchor && 'issued' in anchor) evidence = anchor.issued;
      else if (anchor) evidence = evidenceFor(anchor.leafIndex, head.version);
      head.evidence = evidence;
    }
  }
  return { logged: [...heads.values()].filter((a) => a !== null).length, appended, alteredAfterLogging: altered };
}
