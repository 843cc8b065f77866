import { isLogEvidence, type LogEvidence } from '#verify/checks/evidence-format';

/**
 * The shapes every stored record shares, whatever its kind (object, commercial proof, credential).
 * `content` is the public record version: exactly what a response shows and what the ledger logs,
 * so anyone can re-hash it from a response. `restricted` is kept for the platform and is never
 * projected into a response.
 */
export interface LedgerEvidence {
  /** The record version this evidence covers. */
  version: number;
  [field: string]: unknown;
}

export interface RecordHead<Content = object> {
  kind: string;
  reference: string;
  version: number;
  content: Content;
  /** Evidence for the newest logged version at or before `version`; null when none was logged. */
  evidence: LedgerEvidence | null;
  restricted?: Record<string, unknown>;
}

/** A record version as logged, and its evidence (the `logged` member of credential and status list answers). */
export interface LoggedRecord {
  record: Record<string, unknown>;
  evidence: LogEvidence | null;
}

/** What a response shows of a head for offline re-checking: its content as logged and its well-formed evidence (else null). */
export function loggedRecord(head: RecordHead): LoggedRecord {
  return { record: { ...head.content }, evidence: isLogEvidence(head.evidence) ? head.evidence : null };
}
