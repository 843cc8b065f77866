import type { KeyObject } from 'node:crypto';
import { nodeCrypto } from '../../runtime/lazy-crypto';
import { canonicalBytes } from '../../../packages/verify/src/checks/canonical';
import { checkCosignaturesOf, checkWitnessedOf, parseWitnessKeyOf, witnessKeyIdOf, type CosignatureCheck, type WitnessKey, type WitnessPolicy } from '../../../packages/verify/src/checks/cosignature';
import { verifyConsistencyOf } from '../../../packages/verify/src/checks/consistency';
import { runSteps, type SyncCrypto } from '../../../packages/verify/src/checks/crypto-steps';
import { verifyEvidenceSteps, type EvidenceVerification } from '../../../packages/verify/src/checks/evidence';
import { rootFromInclusionProof as rootSteps } from '../../../packages/verify/src/checks/merkle';
import { leafHash } from '../../../packages/verify/src/node/hashing';
import { encodeVerifierKeyOf, keyIdOf, parseVerifierKeyOf, verifyNoteOf, type NoteVerification, type VerifierKey } from '../../../packages/verify/src/checks/note';
import type { LedgerEvidence } from '../record';

/**
 * The ledger checks of the verifier package (packages/verify/src/checks/: written once, as pure
 * steps, for relying parties, the trust receipt and the service alike) answered by node:crypto,
 * synchronously, so that server reads stay synchronous.
 */

/** Public keys as node:crypto key objects, built once per key (building one is the costly part). */
const keyObjects = new Map<string, KeyObject>();

function ed25519Key(publicKey: Uint8Array): KeyObject {
  const x = Buffer.from(publicKey).toString('base64url');
  let key = keyObjects.get(x);
  if (!key) {
    key = nodeCrypto().createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    if (keyObjects.size > 64) keyObjects.clear();
    keyObjects.set(x, key);
  }
  return key;
}

/** The ledger checks' primitives on node:crypto (loaded at the first check). */
export const NODE_CRYPTO: SyncCrypto = {
  sha256: (data) => nodeCrypto().createHash('sha256').update(data).digest(),
  ed25519Verify: (publicKey, message, signature) => publicKey.length === 32 && nodeCrypto().verify(null, message, ed25519Key(publicKey), signature),
};

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
