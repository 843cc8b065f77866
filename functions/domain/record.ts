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
