import { verifyEvidence } from './ledger/node-crypto';
import type { EvidenceCheck } from '#verify/checks/evidence';
import { keyList } from '#verify/checks/note';
import type { RecordHead } from './record';

export interface IntegrityAssessment {
  confirmed: boolean;
  reason: string;
}

export interface IntegrityInspection extends IntegrityAssessment {
  /** Each ledger check with its outcome; empty when there was nothing to check. */
  checks: EvidenceCheck[];
}

/**
 * The log's verifier keys, from LEDGER_VERIFIER_KEYS (comma-separated C2SP verifier keys). They
 * are public values set by the deployment; never read from the table, which the keys must judge.
 */
export function trustedLedgerKeys(env: NodeJS.ProcessEnv = process.env): string[] {
  return keyList(env.LEDGER_VERIFIER_KEYS);
}

/** A log a key change retired: its key is valid for checkpoints of at most its final tree size. */
export interface RetiredLog {
  origin: string;
  validUpToTreeSize: number;
}

const parsedRetired = new Map<string, RetiredLog[]>();

/**
 * The logs a key change retired, from LEDGER_RETIRED_LOGS (`<origin>=<final tree size>`, comma-separated;
 * the stack's context ledgerRetiredLogs, docs/ledger.md#when-the-key-must-change). Like the verifier keys,
 * a public value the deployment sets, never read from the table whose evidence it judges. A malformed
 * entry throws: a deployment that cannot say where a retired key's validity ends must not start.
 */
export function retiredLedgerLogs(env: NodeJS.ProcessEnv = process.env): RetiredLog[] {
  const text = env.LEDGER_RETIRED_LOGS ?? '';
  let logs = parsedRetired.get(text);
  if (!logs) {
    logs = text.split(',').map((entry) => entry.trim()).filter(Boolean).map((entry) => {
      const at = entry.lastIndexOf('=');
      const size = Number(entry.slice(at + 1));
      if (at < 1 || !Number.isSafeInteger(size) || size < 1) throw new Error(`LEDGER_RETIRED_LOGS: "${entry}" is not <origin>=<final tree size>`);
      return { origin: entry.slice(0, at), validUpToTreeSize: size };
    });
    parsedRetired.set(text, logs);
  }
  return logs;
}

/** Why evidence of a retired log is beyond its key's validity (a checkpoint signed after the log ended), or null. */
function beyondRetiredLog(evidence: RecordHead['evidence'], retired: readonly RetiredLog[]): string | null {
  const log = retired.find((r) => r.origin === evidence?.origin);
  if (!log || typeof evidence?.treeSize !== 'number' || evidence.treeSize <= log.validUpToTreeSize) return null;
  return `Ledger check 'retired-key-validity' failed: ${log.origin} was retired at ${log.validUpToTreeSize} entries, but this checkpoint says ${evidence.treeSize}: signed after the log ended, so by a compromised key.`;
}

/**
 * Integrity of the version shown, with every ledger check. Fail closed: no trusted key, no
 * evidence, evidence for another version, any failed check, or a checkpoint of a retired log beyond
 * its final tree size is "not confirmed", with the reason.
 */
export function inspectIntegrity(head: RecordHead, trustedKeys: string[] = trustedLedgerKeys(), retired: readonly RetiredLog[] = retiredLedgerLogs()): IntegrityInspection {
  if (!head.evidence) return { confirmed: false, reason: 'No ledger evidence is held for this record.', checks: [] };
  if (head.evidence.version !== head.version) {
    const outcome = verifyEvidence(head.content, head.evidence, trustedKeys);
    return {
      confirmed: false,
      reason: `The ledger evidence covers version ${head.evidence.version}, not the version shown (${head.version}).`,
      checks: outcome.checks,
    };
  }
  if (trustedKeys.length === 0) {
    return { confirmed: false, reason: 'No ledger verifier key is configured for this deployment, so integrity cannot be confirmed.', checks: [] };
  }
  const outcome = verifyEvidence(head.content, head.evidence, trustedKeys);
  const failed = outcome.checks.find((check) => !check.ok);
  if (failed) return { confirmed: false, reason: `Ledger check '${failed.name}' failed: ${failed.detail}.`, checks: outcome.checks };
  // The signature verifies, but a retired key's signature counts only up to its log's final checkpoint.
  const beyond = beyondRetiredLog(head.evidence, retired);
  if (beyond) return { confirmed: false, reason: beyond, checks: outcome.checks };
  return { confirmed: true, reason: 'The content shown is the content logged: canonical hash, inclusion proof and checkpoint signature verify.', checks: outcome.checks };
}

/** Assessments by trusted keys, then by the head's stored text; each map bounded, oldest dropped first. */
const assessed = new Map<string, Map<string, IntegrityAssessment>>();
const ASSESSED_PER_KEYS = 256;

/**
 * The one integrity entry point handlers use: verifies the head's ledger evidence against its
 * content. Given the head's text as stored (`headText`), the outcome is remembered by that text and
 * the trusted keys: a head read again byte for byte is the same head, its checks have the same
 * outcome, and a warm function does not hash its canonical content, its inclusion proof and its
 * checkpoint again on every read (about a quarter of an object read's handler time).
 */
export function assessIntegrity(head: RecordHead, headText?: string, trustedKeys: string[] = trustedLedgerKeys(), retired: readonly RetiredLog[] = retiredLedgerLogs()): IntegrityAssessment {
  const assess = (): IntegrityAssessment => {
    const { confirmed, reason } = inspectIntegrity(head, trustedKeys, retired);
    return { confirmed, reason };
  };
  if (headText === undefined) return assess();
  const keys = `${trustedKeys.join(',')} ${retired.map((r) => `${r.origin}=${r.validUpToTreeSize}`).join(',')}`;
  let byText = assessed.get(keys);
  if (!byText) assessed.set(keys, (byText = new Map()));
  let assessment = byText.get(headText);
  if (!assessment) {
    assessment = Object.freeze(assess());
    if (byText.size >= ASSESSED_PER_KEYS) byText.delete(byText.keys().next().value!);
    byText.set(headText, assessment);
  }
  return assessment;
}
