/**
 * @public-trust/verify: verify the Public Trust and Verification Service's answers yourself, in
 * Node.js and in browsers, with WebCrypto (Ed25519, SHA-256) and RFC 8785 canonical JSON.
 */
export { verifyEvidence, verifyRecord, verifyCheckpoint, verifyConsistency, parseVerifierKey, parseWitnessKey } from './verify';
export type {
  Check,
  CheckName,
  CheckpointResult,
  ConsistencyProof,
  ConsistencyResult,
  EvidenceOptions,
  EvidenceResult,
  RecordResult,
  TreeHead,
  TrustOptions,
} from './verify';
export { evidenceSubject, UnrecognizedResponseError } from './responses';
export type { EvidenceSubject, SubjectKind } from './responses';
export { createTrustClient, fetchAndVerify, FetchError } from './client';
export type { ClientOptions, EvidenceKind, FetchAndVerifyOptions, FetchedResult, TrustClient, paths } from './client';
export { EVIDENCE_CHECK_NAMES } from './checks/evidence';
export { EVIDENCE_FORMAT, type LogEvidence } from './checks/evidence-format';
export type { VerifierKey } from './checks/note';
export type { WitnessKey } from './checks/cosignature';
export type { AsyncCrypto } from './checks/crypto-steps';
export { webCrypto, type SubtleCryptoLike } from './web-crypto';
