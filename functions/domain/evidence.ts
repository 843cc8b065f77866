import { verifyEvidence } from './ledger/node-crypto';
import type { EvidenceCheck } from './ledger/verify';
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
  return (env.LEDGER_VERIFIER_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
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

/** The one integrity entry point handlers use: verifies the head's ledger evidence against its content. */
export function assessIntegrity(head: RecordHead): IntegrityAssessment {
  const { confirmed, reason } = inspectIntegrity(head);
  return { confirmed, reason };
}
