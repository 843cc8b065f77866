/** The version tag of the evidence layout below. */
export const EVIDENCE_FORMAT = 'svc.ledger-evidence.v1';

/**
 * What the service stores with a record version and shows in responses: enough for anyone to
 * re-check, offline, that exactly this content was appended to the log, with no call to the service.
 * Hashes are standard base64; the proof lists sibling hashes from the leaf up (RFC 9162 §2.1.3).
 */
export type LogEvidence = {
  format: typeof EVIDENCE_FORMAT;
  /** The record version the leaf holds. */
  version: number;
  /** The log's origin: first line of the checkpoint and name of the log's signing key. */
  origin: string;
  /** 0-based position of the leaf in the log. */
  leafIndex: number;
  /** Size of the tree the proof and checkpoint are for. */
  treeSize: number;
  /** SHA-256(0x00 || RFC 8785 canonical JSON of the record version). */
  leafHash: string;
  inclusionProof: string[];
  /** The signed checkpoint (C2SP tlog-checkpoint in a C2SP signed note). */
  checkpoint: string;
};

const isWhole = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** Lists what is wrong with the shape of an evidence object; an empty list means well formed. */
export function evidenceShapeProblems(evidence: unknown): string[] {
  if (evidence === null || typeof evidence !== 'object' || Array.isArray(evidence)) return ['the evidence is not an object'];
  const e = evidence as Record<string, unknown>;
  const problems: string[] = [];
  if (e.format !== EVIDENCE_FORMAT) problems.push(`format is not ${EVIDENCE_FORMAT}`);
  if (!isWhole(e.version) || e.version < 1) problems.push('version is not a positive whole number');
  if (typeof e.origin !== 'string' || e.origin.length === 0) problems.push('origin is missing');
  if (!isWhole(e.leafIndex)) problems.push('leafIndex is not a whole number');
  if (!isWhole(e.treeSize) || e.treeSize < 1) problems.push('treeSize is not a positive whole number');
  if (isWhole(e.leafIndex) && isWhole(e.treeSize) && e.leafIndex >= e.treeSize) problems.push('leafIndex is not below treeSize');
  if (typeof e.leafHash !== 'string') problems.push('leafHash is missing');
  if (!Array.isArray(e.inclusionProof) || e.inclusionProof.some((h) => typeof h !== 'string')) problems.push('inclusionProof is not a list of base64 hashes');
  if (typeof e.checkpoint !== 'string') problems.push('checkpoint is missing');
  return problems;
}

export const isLogEvidence = (evidence: unknown): evidence is LogEvidence => evidenceShapeProblems(evidence).length === 0;
