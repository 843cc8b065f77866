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

/**
 * Integrity of the version shown, with every ledger check. Fail closed: no trusted key, no
 * evidence, evidence for another version, or any failed check is "not confirmed", with the reason.
 */
export function inspectIntegrity(head: RecordHead, trustedKeys: string[] = trustedLedgerKeys()): IntegrityInspection {
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
export function assessIntegrity(head: RecordHead, headText?: string, trustedKeys: string[] = trustedLedgerKeys()): IntegrityAssessment {
  const assess = (): IntegrityAssessment => {
    const { confirmed, reason } = inspectIntegrity(head, trustedKeys);
    return { confirmed, reason };
  };
  if (headText === undefined) return assess();
  const keys = trustedKeys.join(',');
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
