import { OFFLINE_VERIFICATION_STATEMENT } from '../../contract/channels';
import { DEFAULT_OFFLINE_WINDOW_SECONDS, SANDBOX_STATEMENT } from '../../contract/sandbox-values';
import type {
  OfflineCheck,
  OfflineOutcome,
  OfflineVerificationRequest,
  OfflineVerificationResult,
} from '../../contract/schemas/sandbox';
import { evidenceOnly } from '#verify/responses';
import { verifyEvidence } from '../ledger/node-crypto';
import type { LedgerEvidence } from '../record';
import { evaluationInstant } from './clock';
import { issueAt, JsonInputError } from '../json-input';

/**
 * Offline verification of a bundle (SHADOW): what a verifier without connectivity can establish
 * from a response it obtained earlier, the ledger evidence of the record shown, the log keys it
 * trusts and the instant it last checked the status online.
 *
 *   FAIL  any integrity check fails (canonical hash, inclusion proof, checkpoint signature by a
 *         trusted key, evidence for the version shown), or there is no evidence to check;
 *   HOLD  integrity verifies, but the last online status check is older than the offline
 *         validity window: the record is intact, yet its status must be checked online again;
 *   PASS  integrity verifies and the last online status check is within the window.
 *
 * PASS is about integrity and the age of the verifier's own status check; it never states what
 * the lifecycle status is now. The lifecycle state the response showed is reported as of that
 * response, and the result carries the service-wide statement that offline results never claim
 * live lifecycle freshness.
 */

type Json = Record<string, unknown>;

interface BundleSubject {
  kind: OfflineVerificationResult['subject']['kind'];
  record: Json;
  /** Evidence the response itself carries (current.ledger, verification.ledger), or null. */
  embeddedEvidence: unknown;
  lifecycleState: string | null;
}

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The record shown in a response of this API, by its schemaVersion. */
function subjectOf(response: Json): BundleSubject {
  switch (response.schemaVersion) {
    case 'svc.living-object-resolution.v1': {
      if (!isObject(response.object)) throw new JsonInputError([issueAt(['response', 'object'], 'must be the object of the resolution, as returned')]);
      const current = isObject(response.current) ? response.current : {};
      return {
        kind: 'OBJECT',
        record: response.object,
        embeddedEvidence: current.ledger ?? null,
        lifecycleState: typeof current.state === 'string' ? current.state : null,
      };
    }
    case 'svc.commercial-proof-evidence.v1': {
      if (!isObject(response.proof)) throw new JsonInputError([issueAt(['response', 'proof'], 'must be the proof of the evidence, as returned')]);
      const verification = isObject(response.verification) ? response.verification : {};
      const source = isObject(verification.currentSourceStatus) ? verification.currentSourceStatus : {};
      return {
        kind: 'COMMERCIAL_PROOF',
        record: response.proof,
        embeddedEvidence: verification.ledger ?? null,
        lifecycleState: typeof source.state === 'string' ? source.state : null,
      };
    }
    default:
      throw new JsonInputError([
        issueAt(['response', 'schemaVersion'], 'must be svc.living-object-resolution.v1 or svc.commercial-proof-evidence.v1: a record or proof response as this API returns it'),
      ]);
  }
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const versionOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) ? value : null);

export function verifyOfflineBundle(bundle: OfflineVerificationRequest): OfflineVerificationResult {
  const { at, clockId } = evaluationInstant(bundle);
  const subject = subjectOf(bundle.response);
  const ageMs = Date.parse(at) - Date.parse(bundle.lastOnlineStatusCheckAt);
  if (ageMs < 0) {
    throw new JsonInputError([issueAt(['lastOnlineStatusCheckAt'], `is later than the evaluation instant (${at}); a status cannot have been checked in the future`)]);
  }
  const windowSeconds = bundle.offlineValidityWindowSeconds ?? DEFAULT_OFFLINE_WINDOW_SECONDS;
  const ageSeconds = Math.floor(ageMs / 1000);
  const withinWindow = ageSeconds <= windowSeconds;

  const checks: OfflineCheck[] = [];
  const evidence = bundle.evidence ?? evidenceOnly(subject.embeddedEvidence);
  if (evidence === null || evidence === undefined) {
    checks.push({ check: 'ledger-evidence-present', result: 'FAIL', detail: 'the response carries no ledger evidence and the bundle gives none: integrity cannot be verified' });
  } else {
    let verification: ReturnType<typeof verifyEvidence> | null = null;
    try {
      verification = verifyEvidence(subject.record, evidence as LedgerEvidence, bundle.trustedKeys);
    } catch (error) {
      // Evidence the verifier cannot even process is evidence that does not verify.
      checks.push({ check: 'evidence-format', result: 'FAIL', detail: `the evidence could not be checked: ${(error as Error).message}` });
    }
    for (const check of verification?.checks ?? []) checks.push({ check: check.name, result: check.ok ? 'PASS' : 'FAIL', detail: check.detail });
  }
  checks.push({
    check: 'status-check-age',
    result: withinWindow ? 'PASS' : 'HOLD',
    detail: withinWindow
      ? `the last online status check is ${ageSeconds} s old, within the offline validity window of ${windowSeconds} s`
      : `the last online status check is ${ageSeconds} s old, beyond the offline validity window of ${windowSeconds} s`,
  });

  const failed = checks.find((c) => c.result === 'FAIL');
  const outcome: OfflineOutcome = failed ? 'FAIL' : withinWindow ? 'PASS' : 'HOLD';
  const reason = failed
    ? `Integrity is not verified: check '${failed.check}' failed (${failed.detail}). Do not rely on this record.`
    : withinWindow
      ? 'Integrity is verified and the last online status check is within the offline validity window. The present lifecycle status is not asserted.'
      : 'Integrity is verified, but the last online status check is older than the offline validity window: check the status online before relying on the record.';

  return {
    schemaVersion: 'svc.sandbox-offline-verification.v1',
    outcome,
    reason,
    checks,
    subject: { kind: subject.kind, reference: stringOrNull(subject.record.reference), version: versionOrNull(subject.record.version) },
    statusEvidence: {
      lastOnlineStatusCheckAt: new Date(Date.parse(bundle.lastOnlineStatusCheckAt)).toISOString(),
      ageSeconds,
      offlineValidityWindowSeconds: windowSeconds,
      withinOfflineWindow: withinWindow,
      lifecycleStateAsOfEvidence: subject.lifecycleState,
    },
    statement: OFFLINE_VERIFICATION_STATEMENT,
    evaluatedAt: at,
    clockId,
    sandbox: SANDBOX_STATEMENT,
  };
}
