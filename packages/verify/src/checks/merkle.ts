import { sha256, type Steps } from './crypto-steps';
import { concatBytes } from './encoding';

/**
 * RFC 9162 §2.1 Merkle tree hashing with SHA-256: leaves and interior nodes are hashed with
 * distinct one-byte prefixes, so no leaf can be passed off as a node (second-preimage defence).
 * Pure: the hashes are asked of the platform (crypto-steps), so verifiers run it anywhere.
 */
export const HASH_SIZE = 32;
export const LEAF_PREFIX = Uint8Array.of(0x00);
export const NODE_PREFIX = Uint8Array.of(0x01);

export const leafHashOf = (data: Uint8Array): Steps<Uint8Array> => sha256(concatBytes(LEAF_PREFIX, data));
export const nodeHashOf = (left: Uint8Array, right: Uint8Array): Steps<Uint8Array> => sha256(concatBytes(NODE_PREFIX, left, right));

export class InclusionProofError extends Error {
  override name = 'InclusionProofError';
}

const isIndex = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;

/**
 * The root a verifier computes from a leaf hash and its inclusion proof (RFC 9162 §2.1.3.2).
 * Throws when the proof cannot belong to a tree of that size (wrong length, index out of range,
 * malformed hashes); the caller compares the returned root with the signed one.
 * Sizes are whole numbers below 2^53, so halving uses arithmetic, not 32-bit shifts.
 */
export function* rootFromInclusionProof(leafIndex: number, treeSize: number, leaf: Uint8Array, proof: readonly Uint8Array[]): Steps<Uint8Array> {
  if (!isIndex(leafIndex) || !isIndex(treeSize)) throw new InclusionProofError('leaf index and tree size must be whole numbers');
  if (leafIndex >= treeSize) throw new InclusionProofError(`leaf index ${leafIndex} is outside a tree of size ${treeSize}`);
  if (leaf.length !== HASH_SIZE) throw new InclusionProofError(`the leaf hash has ${leaf.length} bytes, not ${HASH_SIZE}`);
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = leaf;
  for (const [i, p] of proof.entries()) {
    if (p.length !== HASH_SIZE) throw new InclusionProofError(`proof hash ${i} has ${p.length} bytes, not ${HASH_SIZE}`);
    if (sn === 0) throw new InclusionProofError(`the proof has ${proof.length} hashes, more than a tree of size ${treeSize} needs`);
    if (fn % 2 === 1 || fn === sn) {
      r = yield* nodeHashOf(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = yield* nodeHashOf(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw new InclusionProofError(`the proof has ${proof.length} hashes, fewer than a tree of size ${treeSize} needs`);
  return r;
}
