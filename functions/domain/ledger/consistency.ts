import { nodeHash } from '#verify/node/hashing';
import { largestPowerOfTwoBelow } from '#verify/node/merkle-tree';

/**
 * RFC 9162 §2.1.4 consistency proofs: the hashes that show a tree of size `first` is a prefix of
 * a tree of size `second`, i.e. the log only grew between the two checkpoints. Proof generation
 * (here) takes the leaf hashes; verification, which relying parties run too, is the verifier
 * package's (packages/verify/src/checks/consistency.ts; on node:crypto: ./node-crypto.ts).
 */
export class ConsistencyProofError extends Error {
  override name = 'ConsistencyProofError';
}

/** MTH(D[start:end]) of RFC 9162 §2.1.1 over leaf hashes (end > start). */
export function subtreeRoot(leaves: readonly Uint8Array[], start: number, end: number): Buffer {
  if (end - start === 1) return Buffer.from(leaves[start]);
  const k = largestPowerOfTwoBelow(end - start);
  return nodeHash(subtreeRoot(leaves, start, start + k), subtreeRoot(leaves, start + k, end));
}

/**
 * PROOF(first, D[second]) of RFC 9162 §2.1.4.1, computed from the first `second` leaf hashes.
 * Empty when first = second (the same tree). Costs O(second) hashes.
 */
export function consistencyProof(first: number, second: number, leaves: readonly Uint8Array[]): Buffer[] {
  if (leaves.length < second) throw new ConsistencyProofError(`${leaves.length} leaf hashes given for a tree of size ${second}`);
  return consistencyProofFrom(first, second, (start, end) => subtreeRoot(leaves, start, end));
}

/**
 * The same proof from any source of subtree roots MTH(D[start:end]): a tree that keeps its
 * interior hashes (the MerkleTree of packages/verify/src/node/merkle-tree.ts, or the log's tiles) answers in O(log n) hashes.
 */
export function consistencyProofFrom(first: number, second: number, subtree: (start: number, end: number) => Buffer): Buffer[] {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 1 || first > second) {
    throw new ConsistencyProofError(`no consistency proof from a tree of size ${first} to one of size ${second}`);
  }
  const proof: Buffer[] = [];
  // SUBPROOF(m, D[start:end], b), unrolled: each step keeps one side and records the other's root.
  const sub = (m: number, start: number, end: number, complete: boolean): void => {
    if (m === end - start) {
      if (!complete) proof.push(subtree(start, end));
      return;
    }
    const k = largestPowerOfTwoBelow(end - start);
    if (m <= k) {
      sub(m, start, start + k, complete);
      proof.push(subtree(start + k, end));
    } else {
      sub(m - k, start + k, end, false);
      proof.push(subtree(start, start + k));
    }
  };
  sub(first, 0, second, true);
  return proof;
}
