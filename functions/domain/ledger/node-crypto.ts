import { checkCosignaturesOf, checkWitnessedOf, parseWitnessKeyOf, type CosignatureCheck, type WitnessKey, type WitnessPolicy } from '#verify/checks/cosignature';
import { verifyConsistencyOf } from '#verify/checks/consistency';
import { verifyEvidenceSteps, type EvidenceVerification } from '#verify/checks/evidence';
import { rootFromInclusionProof as rootSteps } from '#verify/checks/merkle';
import { onNodeCrypto } from '#verify/node/node-crypto';
import { encodeVerifierKeyOf, keyIdOf, parseVerifierKeyOf, verifyNoteOf, type NoteVerification, type VerifierKey } from '#verify/checks/note';
import type { LedgerEvidence } from '../record';

/**
 * The ledger checks of the verifier package (packages/verify/src/checks/: written once, as pure
 * steps, for relying parties, the trust receipt and the service alike) answered by node:crypto
 * (packages/verify/src/node/node-crypto.ts), synchronously, so that server reads stay synchronous.
 */

export const keyIdFor = (name: string, signatureType: number, publicKey: Uint8Array): number => onNodeCrypto(keyIdOf(name, signatureType, publicKey));
export const encodeVerifierKey = (name: string, publicKey: Uint8Array): string => onNodeCrypto(encodeVerifierKeyOf(name, publicKey));
export const parseVerifierKey = (encoded: string): VerifierKey => onNodeCrypto(parseVerifierKeyOf(encoded));
export const verifyNote = (message: string, trusted: readonly VerifierKey[]): NoteVerification => onNodeCrypto(verifyNoteOf(message, trusted));
export const rootFromInclusionProof = (leafIndex: number, treeSize: number, leaf: Uint8Array, proof: readonly Uint8Array[]): Buffer =>
  Buffer.from(onNodeCrypto(rootSteps(leafIndex, treeSize, leaf, proof)));
export const verifyEvidence = (record: unknown, evidence: LedgerEvidence, trustedKeys: readonly string[]): EvidenceVerification =>
  onNodeCrypto(verifyEvidenceSteps(record, evidence, trustedKeys));
export const verifyConsistency = (first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array, proof: readonly Uint8Array[]): boolean =>
  onNodeCrypto(verifyConsistencyOf(first, second, firstRoot, secondRoot, proof));

/* Witness cosignatures (C2SP tlog-cosignature), for the loader's --add-cosignatures and the witness's own tooling. */
export const parseWitnessKey = (encoded: string): WitnessKey => onNodeCrypto(parseWitnessKeyOf(encoded));
export const checkCosignatures = (noteMessage: string, policy: WitnessPolicy): CosignatureCheck => onNodeCrypto(checkCosignaturesOf(noteMessage, policy));
export const checkWitnessed = (noteMessage: string, copies: readonly string[], policy: WitnessPolicy): CosignatureCheck =>
  onNodeCrypto(checkWitnessedOf(noteMessage, copies, policy));
