import { loggedRecord } from '../record';
import type { MinimalDisclosure } from '../../contract/schemas/common';
import type {
  CheckOutcome,
  CredentialCheckName,
  CredentialCheckResult,
  CredentialLifecycleState,
  CredentialStatus,
  CredentialVerification,
} from '../../contract/schemas/credentials';
import type { IntegrityAssessment } from '../evidence';
import { portableCredentialUrl, statusListUrl, type CredentialContent, type CredentialView, type CredentialWindowEntry } from './model';
import { statusListEntries } from './projection';

export const CREDENTIAL_DISCLOSURE: MinimalDisclosure = {
  class: 'PUBLIC_CREDENTIAL_STATUS',
  containsCustomerPii: false,
  containsPaymentAccountData: false,
};

export type TimeStanding = 'WITHIN' | 'NOT_YET_VALID' | 'EXPIRED';

/** VC 2.0 validity period, bounds inclusive: valid from validFrom through validUntil. */
export function timeStanding(content: Pick<CredentialContent, 'validFrom' | 'validUntil'>, at: string): TimeStanding {
  const t = Date.parse(at);
  if (t < Date.parse(content.validFrom)) return 'NOT_YET_VALID';
  if (content.validUntil !== null && t > Date.parse(content.validUntil)) return 'EXPIRED';
  return 'WITHIN';
}

/**
 * One word, the most decisive reason first: REVOKED (permanent, by the issuer), EXPIRED
 * (permanent, by time), SUSPENDED (temporary, by the issuer), NOT_YET_VALID (temporary, by
 * time), ACTIVE. Each check still reports on its own, so nothing is hidden by the precedence.
 */
export function credentialStatus(lifecycle: CredentialLifecycleState, standing: TimeStanding): CredentialStatus {
  if (lifecycle === 'REVOKED') return 'REVOKED';
  if (standing === 'EXPIRED') return 'EXPIRED';
  if (lifecycle === 'SUSPENDED') return 'SUSPENDED';
  if (standing === 'NOT_YET_VALID') return 'NOT_YET_VALID';
  return 'ACTIVE';
}

/** "3 days", "2 hours", "15 minutes", "40 seconds": the largest whole unit, for reasons people read. */
export function humanDuration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size) {
      const n = Math.floor(seconds / size);
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

export interface StatusFreshness {
  lifecycleState: CredentialLifecycleState;
  statusSince: string;
  lastConfirmedAt: string;
  ageSeconds: number;
  maxAgeSeconds: number;
  fresh: boolean;
}

/** Fresh: the authority stated or confirmed the status no longer ago than the credential's freshness window. */
export function statusFreshness(content: CredentialContent, view: CredentialView, at: string): StatusFreshness {
  const ageSeconds = Math.max(0, Math.floor((Date.parse(at) - Date.parse(view.lastConfirmedAt)) / 1000));
  return {
    lifecycleState: view.status,
    statusSince: content.statusSince,
    lastConfirmedAt: view.lastConfirmedAt,
    ageSeconds,
    maxAgeSeconds: content.freshnessSeconds,
    fresh: ageSeconds <= content.freshnessSeconds,
  };
}

const result = (check: CredentialCheckName, outcome: CheckOutcome, reason: string): CredentialCheckResult => ({
  check,
  outcome,
  valid: outcome === 'PASS',
  reason,
});

export function integrityCheck(integrity: IntegrityAssessment): CredentialCheckResult {
  return result('integrity', integrity.confirmed ? 'PASS' : 'NOT_CONFIRMED', integrity.reason);
}

export function validityWindowCheck(content: CredentialContent, at: string): CredentialCheckResult {
  const until = content.validUntil === null ? 'with no end date' : `until ${content.validUntil}`;
  switch (timeStanding(content, at)) {
    case 'NOT_YET_VALID':
      return result('validityWindow', 'FAIL', `Not yet valid: it is valid from ${content.validFrom}, after the evaluation instant ${at}.`);
    case 'EXPIRED':
      return result('validityWindow', 'FAIL', `Expired: it was valid until ${content.validUntil}, before the evaluation instant ${at}.`);
    default:
      return result('validityWindow', 'PASS', `Within its validity window: valid from ${content.validFrom} ${until}.`);
  }
}

/**
 * Revoked or suspended fails whatever its age (the last word of the issuer withdrew it). Active
 * passes only when fresh: an old confirmation could hide a revocation since, so it is
 * NOT_CONFIRMED rather than a guess.
 */
export function statusCheck(freshness: StatusFreshness): CredentialCheckResult {
  const age = `${humanDuration(freshness.ageSeconds)} ago`;
  switch (freshness.lifecycleState) {
    case 'REVOKED':
      return result('status', 'FAIL', `The issuer revoked this credential on ${freshness.statusSince}. Revocation is permanent.`);
    case 'SUSPENDED':
      return result('status', 'FAIL', `The issuer suspended this credential on ${freshness.statusSince}. A suspension can be lifted; check again later.`);
    default:
      if (!freshness.fresh) {
        return result(
          'status',
          'NOT_CONFIRMED',
          `Active when the issuer last confirmed it at ${freshness.lastConfirmedAt} (${age}), but that is beyond its ${humanDuration(freshness.maxAgeSeconds)} freshness window, so a later revocation or suspension would not show here.`,
        );
      }
      return result('status', 'PASS', `Active: the issuer confirmed this status at ${freshness.lastConfirmedAt} (${age}), within its ${humanDuration(freshness.maxAgeSeconds)} freshness window.`);
  }
}

const PROBLEM_TITLES: Record<CredentialCheckName, Partial<Record<CheckOutcome, string>>> = {
  integrity: { NOT_CONFIRMED: 'Integrity not confirmed', FAIL: 'Integrity check failed' },
  validityWindow: { FAIL: 'Outside the validity window' },
  status: { FAIL: 'Credential withdrawn by its issuer', NOT_CONFIRMED: 'Status not confirmed recently' },
};

export interface VerifyCredentialInput {
  /** The newest entry at or before the evaluation instant. */
  newest: CredentialWindowEntry;
  evaluatedAt: string;
  integrity: IntegrityAssessment;
  baseUrl: string;
}

/** Builds the verification result. Pure: no clock, no I/O; every field comes from an allowlist. */
export function verifyCredential(input: VerifyCredentialInput): CredentialVerification {
  const { content } = input.newest.head;
  const freshness = statusFreshness(content, input.newest.view, input.evaluatedAt);
  const checks = [integrityCheck(input.integrity), validityWindowCheck(content, input.evaluatedAt), statusCheck(freshness)];
  const status = credentialStatus(input.newest.view.status, timeStanding(content, input.evaluatedAt));
  const failing = checks.filter((c) => c.outcome !== 'PASS');
  const verified = failing.length === 0;
  const word = status.toLowerCase().replace(/_/g, ' ');
  const summary = verified
    ? `Verified: ${word}, within its validity window, status confirmed ${humanDuration(freshness.ageSeconds)} ago, integrity confirmed.`
    : `Not verified (${word}): ${failing.map((c) => `${c.check} ${c.outcome === 'FAIL' ? 'failed' : 'not confirmed'}`).join(', ')}.`;
  const entries = statusListEntries(content.statusSlots, input.baseUrl);

  return {
    schemaVersion: 'svc.credential-verification.v1',
    credentialId: content.credentialId,
    verified,
    status,
    summary,
    checks,
    problemDetails: failing.map((c) => ({
      type: `urn:svc:credential-check:${c.check}:${c.outcome.toLowerCase().replace(/_/g, '-')}`,
      title: PROBLEM_TITLES[c.check][c.outcome] ?? `${c.check} ${c.outcome}`,
      detail: c.reason,
    })),
    credentialType: content.credentialType,
    issuer: content.issuer,
    validityWindow: { validFrom: content.validFrom, validUntil: content.validUntil },
    credentialStatus: entries,
    evaluatedAt: input.evaluatedAt,
    statusFreshness: freshness,
    links: {
      portableCredential: portableCredentialUrl(input.baseUrl, content.credentialId),
      statusLists: content.statusSlots.map((s) => statusListUrl(input.baseUrl, s.listId)).sort(),
    },
    logged: loggedRecord(input.newest.head),
    disclosure: CREDENTIAL_DISCLOSURE,
  };
}
