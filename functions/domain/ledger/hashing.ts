import { createHash } from 'node:crypto';

/**
 * RFC 9162 §2.1 Merkle tree hashing with SHA-256: leaves and interior nodes are hashed with
 * distinct one-byte prefixes, so no leaf can be passed off as a node (second-preimage defence).
 */
export const HASH_SIZE = 32;
const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** The root of the empty tree: SHA-256 of the empty string. */
export const EMPTY_ROOT = createHash('sha256').digest();

export function leafHash(data: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(data).digest();
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

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
export function rootFromInclusionProof(leafIndex: number, treeSize: number, leaf: Uint8Array, proof: readonly Uint8Array[]): Buffer {
  if (!isIndex(leafIndex) || !isIndex(treeSize)) throw new InclusionProofError('leaf index and tree size must be whole numbers');
  if (leafIndex >= treeSize) throw new InclusionProofError(`leaf index ${leafIndex} is outside a tree of size ${treeSize}`);
  if (leaf.length !== HASH_SIZE) throw new InclusionProofError(`the leaf hash has ${leaf.length} bytes, not ${HASH_SIZE}`);
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const [i, p] of proof.entries()) {
    if (p.length !== HASH_SIZE) throw new InclusionProofError(`proof hash ${i} has ${p.length} bytes, not ${HASH_SIZE}`);
    if (sn === 0) throw new InclusionProofError(`the proof has ${proof.length} hashes, more than a tree of size ${treeSize} needs`);
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw new InclusionProofError(`the proof has ${proof.length} hashes, fewer than a tree of size ${treeSize} needs`);
  return r;
}

