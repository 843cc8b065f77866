import type { Steps } from './crypto-steps';
import { bytesEqual } from './encoding';
import { HASH_SIZE, nodeHashOf } from './merkle';

/**
 * RFC 9162 §2.1.4.2: true when `proof` shows the tree of size `first` with root `firstRoot` is a
 * prefix of the tree of size `second` with root `secondRoot`: the log only grew between the two
 * checkpoints. Never throws on a bad proof; sizes that are not whole numbers with
 * 1 <= first <= second are refused. Pure: the platform answers the hashes (crypto-steps).
 */
export function* verifyConsistencyOf(first: number, second: number, firstRoot: Uint8Array, secondRoot: Uint8Array, proof: readonly Uint8Array[]): Steps<boolean> {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 1 || first > second) return false;
  if (firstRoot.length !== HASH_SIZE || secondRoot.length !== HASH_SIZE || proof.some((p) => p.length !== HASH_SIZE)) return false;
  if (first === second) return proof.length === 0 && bytesEqual(firstRoot, secondRoot);
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
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = yield* nodeHashOf(c, fr);
      sr = yield* nodeHashOf(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = yield* nodeHashOf(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && bytesEqual(fr, firstRoot) && bytesEqual(sr, secondRoot);
}
