import { HASH_SIZE, nodeHash } from './hashing';

/**
 * RFC 9162 §2.1.4 consistency proofs: the hashes that show a tree of size `first` is a prefix of
 * a tree of size `second`, i.e. the log only grew between the two checkpoints. Pure: proof
 * generation takes the leaf hashes, verification only the two roots and the proof.
 */
export class ConsistencyProofError extends Error {
  override name = 'ConsistencyProofError';
}

/** The largest power of two smaller than n (n > 1): where RFC 9162 splits a tree of n leaves. */
export function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
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
 * interior hashes (functions/ledger-writer/merkle-tree.ts, or the log's tiles) answers in O(log n) hashes.
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

const equal = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && Buffer.compare(a, b) === 0;

/**
 * RFC 9162 §2.1.4.2: true when `proof` shows the tree of size `first` with root `firstRoot` is a
 * prefix of the tree of size `second` with root `secondRoot`. Never throws on a bad proof; sizes
 * that are not whole numbers with 1 <= first <= second are refused.
 */
export function verifyConsistency(first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array, proof: readonly Uint8Array[]): boolean {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 1 || first > second) return false;
  if (firstRoot.length !== HASH_SIZE || secondRoot.length !== HASH_SIZE || proof.some((p) => p.length !== HASH_SIZE)) return false;
  if (first === second) return proof.length === 0 && equal(firstRoot, secondRoot);
  if (proof.length === 0) return false;
  // Step 2: when `first` is a power of two, its root is the first node of the path.
  const path = Number.isInteger(Math.log2(first)) ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  // Halving by arithmetic: sizes may exceed 32 bits.
  const half = (n: number) => Math.floor(n / 2);
  while (fn % 2 === 1) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr: Buffer = Buffer.from(path[0]);
  let sr: Buffer = Buffer.from(path[0]);
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equal(fr, firstRoot) && equal(sr, secondRoot);
}
