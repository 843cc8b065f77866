import { canonicalBytes } from '../../../packages/verify/src/checks/canonical';
import { checkCosignaturesOf, checkWitnessedOf, parseWitnessKeyOf, witnessKeyIdOf, type CosignatureCheck, type WitnessKey, type WitnessPolicy } from '../../../packages/verify/src/checks/cosignature';
import { verifyConsistencyOf } from '../../../packages/verify/src/checks/consistency';
import { runSteps } from '../../../packages/verify/src/checks/crypto-steps';
import { verifyEvidenceSteps, type EvidenceVerification } from '../../../packages/verify/src/checks/evidence';
import { rootFromInclusionProof as rootSteps } from '../../../packages/verify/src/checks/merkle';
import { leafHash } from '../../../packages/verify/src/node/hashing';
import { NODE_CRYPTO } from '../../../packages/verify/src/node/node-crypto';
import { encodeVerifierKeyOf, keyIdOf, parseVerifierKeyOf, verifyNoteOf, type NoteVerification, type VerifierKey } from '../../../packages/verify/src/checks/note';
import type { LedgerEvidence } from '../record';

/**
 * The ledger checks of the verifier package (packages/verify/src/checks/: written once, as pure
 * steps, for relying parties, the trust receipt and the service alike) answered by node:crypto
 * (packages/verify/src/node/node-crypto.ts, loaded at the first check), synchronously, so that
 * server reads stay synchronous.
 */

export { NODE_CRYPTO };

export const keyIdFor = (name: string, signatureType: number, publicKey: Uint8Array): number => runSteps(keyIdOf(name, signatureType, publicKey), NODE_CRYPTO);
export const encodeVerifierKey = (name: string, publicKey: Uint8Array): string => runSteps(encodeVerifierKeyOf(name, publicKey), NODE_CRYPTO);
export const parseVerifierKey = (encoded: string): VerifierKey => runSteps(parseVerifierKeyOf(encoded), NODE_CRYPTO);
export const verifyNote = (message: string, trusted: readonly VerifierKey[]): NoteVerification => runSteps(verifyNoteOf(message, trusted), NODE_CRYPTO);
export const rootFromInclusionProof = (leafIndex: number, treeSize: number, leaf: Uint8Array, proof: readonly Uint8Array[]): Buffer =>
  Buffer.from(runSteps(rootSteps(leafIndex, treeSize, leaf, proof), NODE_CRYPTO));
/** SHA-256(0x00 || JCS(record)): the Merkle leaf hash of one record version. */
export const recordLeafHash = (record: unknown): Buffer => leafHash(canonicalBytes(record));
export const verifyEvidence = (record: unknown, evidence: LedgerEvidence, trustedKeys: readonly string[]): EvidenceVerification =>
  runSteps(verifyEvidenceSteps(record, evidence, trustedKeys), NODE_CRYPTO);
export const verifyConsistency = (first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array, proof: readonly Uint8Array[]): boolean =>
  runSteps(verifyConsistencyOf(first, second, firstRoot, secondRoot, proof), NODE_CRYPTO);

/* Witness cosignatures (C2SP tlog-cosignature), for the loader's --add-cosignatures and the witness's own tooling. */
export const witnessKeyId = (name: string, publicKey: Uint8Array): number => runSteps(witnessKeyIdOf(name, publicKey), NODE_CRYPTO);
export const parseWitnessKey = (encoded: string): WitnessKey => runSteps(parseWitnessKeyOf(encoded), NODE_CRYPTO);
export const checkCosignatures = (noteMessage: string, policy: WitnessPolicy): CosignatureCheck => runSteps(checkCosignaturesOf(noteMessage, policy), NODE_CRYPTO);
export const checkWitnessed = (noteMessage: string, copies: readonly string[], policy: WitnessPolicy): CosignatureCheck =>
  runSteps(checkWitnessedOf(noteMessage, copies, policy), NODE_CRYPTO);
