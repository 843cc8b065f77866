import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { canonicalBytes } from './canonical';
import { runSteps, type SyncCrypto } from './crypto-steps';
import { leafHash } from './hashing';
import { rootFromInclusionProof as rootSteps } from './merkle';
import { encodeVerifierKeyOf, keyIdOf, parseVerifierKeyOf, verifyNoteOf, type NoteVerification, type VerifierKey } from './note';
import { verifyEvidenceSteps, type EvidenceVerification } from './verify';
import type { LedgerEvidence } from '../record';

/** Public keys as node:crypto key objects, built once per key (building one is the costly part). */
const keyObjects = new Map<string, KeyObject>();

function ed25519Key(publicKey: Uint8Array): KeyObject {
  const x = Buffer.from(publicKey).toString('base64url');
  let key = keyObjects.get(x);
  if (!key) {
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    if (keyObjects.size > 64) keyObjects.clear();
    keyObjects.set(x, key);
  }
  return key;
}

/** The ledger checks' primitives on node:crypto: synchronous, so server reads stay synchronous. */
export const NODE_CRYPTO: SyncCrypto = {
  sha256: (data) => createHash('sha256').update(data).digest(),
  ed25519Verify: (publicKey, message, signature) => publicKey.length === 32 && verify(null, message, ed25519Key(publicKey), signature),
};

/* The pure checks (note.ts, merkle.ts, verify.ts) run on node:crypto. */

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
