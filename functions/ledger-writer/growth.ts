import { parseCheckpointText } from '#verify/checks/checkpoint';
import type { LogEvidence } from '#verify/checks/evidence-format';
import { parseNote } from '#verify/checks/note';
import { nodeHash } from '#verify/node/hashing';
import { inclusionPath, largestPowerOfTwoBelow, MerkleTree } from '#verify/node/merkle-tree';
import { evidenceOf, LedgerIntegrityError, logEvidence } from './log';

/** A leaf hash's length: the batch's leaves travel as one run of them. */
const HASH_SIZE = 32;

/**
 * What a batch grew the log by, as little as a writer needs to give its new versions their evidence
 * without the log: where the batch began and the log's right edge there (the partial hash tile of
 * each level), every leaf hash it appended in order, and the checkpoint signed for the batch. A
 * writer finishing a stopped batch's journal reads it back from the leaves the batch stored
 * (batch.ts, leafPlacer); a part writer is handed less (PartPlacement, below).
 */
export interface BatchGrowth {
  origin: string;
  /** The log's size before the batch. */
  start: number;
  /** The partial hash tile of each level of the log of `start` leaves, by level. */
  edge: Record<number, Uint8Array>;
  /** The hashes of the leaves the batch appended, 32 bytes each, in order. */
  leaves: Uint8Array;
  /** The signed checkpoint for `start` + the number of leaves. */
  checkpoint: string;
}

/**
 * The evidence of each leaf the batch appended (by its index in the log and its version), from
 * the tree `growth` rebuilds: the right edge, then the new leaves. The tree must be the one the
 * checkpoint is for (its origin, size and root), or nothing is given: evidence that does not verify
 * against its own checkpoint is never made.
 */
export function evidenceOfGrowth(growth: BatchGrowth): (leafIndex: number, version: number) => LogEvidence {
  if (growth.leaves.length % HASH_SIZE !== 0) throw new LedgerIntegrityError(`a batch's leaves are ${HASH_SIZE} bytes each, not ${growth.leaves.length} bytes in all`);
  const tree = MerkleTree.fromRightEdge(growth.start, (level) => growth.edge[level] ?? null);
  for (let at = 0; at < growth.leaves.length; at += HASH_SIZE) tree.append(growth.leaves.subarray(at, at + HASH_SIZE));
  checkTreeOfCheckpoint(growth.checkpoint, growth.origin, tree.size, () => tree.root(), `the batch's leaves from ${growth.start}`);
  return (leafIndex, version) => {
    if (leafIndex < growth.start || leafIndex >= tree.size) throw new LedgerIntegrityError(`leaf ${leafIndex} is not one the batch appended (${growth.start} to ${tree.size - 1})`);
    return logEvidence(tree, growth.origin, leafIndex, version, growth.checkpoint);
  };
}

/**
 * Where one part's new versions sit in the log, and as little as its writer needs to give each
 * its evidence: the part's own leaf hashes and, for the tree the batch made, the hash of every
 * largest subtree (RFC 9162's split of [0, size)) that holds none of the part's leaves and that a
 * proof of one of them needs: O(log n) hashes, whatever the batch's size (log.ts frontierOf).
 */
export interface PartPlacement {
  origin: string;
  /** The log index of the part's first new version. */
  start: number;
  /** The part's leaf hashes, 32 bytes each, in order. */
  leaves: Uint8Array;
  /** The tree's size after the batch: its checkpoint's. */
  treeSize: number;
  /** [from, to, hash] of each subtree outside the part's leaves that its proofs need. */
  frontier: Array<[number, number, Uint8Array]>;
  checkpoint: string;
}

/**
 * The evidence of each new version of a part (by its index in the log and its version), from its
 * placement alone: every subtree hash from the part's leaves and the frontier (each computed once),
 * the root checked against the checkpoint (its origin, size and root) before any is given.
 */
export function evidenceOfPart(placement: PartPlacement): (leafIndex: number, version: number) => LogEvidence {
  const { start, leaves, treeSize } = placement;
  const end = start + leaves.length / HASH_SIZE;
  if (!Number.isInteger(end) || end > treeSize) throw new LedgerIntegrityError(`a part's leaves are ${HASH_SIZE} bytes each and lie within the tree (from ${start}, ${leaves.length} bytes, a tree of ${treeSize})`);
  const known = new Map<string, Uint8Array>(placement.frontier.map(([from, to, hash]) => [`${from}:${to}`, hash]));
  const leaf = (index: number) => leaves.subarray((index - start) * HASH_SIZE, (index - start + 1) * HASH_SIZE);
  const hashOf = (from: number, to: number): Uint8Array => {
    const key = `${from}:${to}`;
    let hash = known.get(key);
    if (hash) return hash;
    if (to - from === 1) {
      if (from < start || from >= end) throw new LedgerIntegrityError(`the part's placement lacks the subtree ${from} to ${to}`);
      return leaf(from);
    }
    const k = largestPowerOfTwoBelow(to - from);
    hash = nodeHash(hashOf(from, from + k), hashOf(from + k, to));
    known.set(key, hash);
    return hash;
  };
  checkTreeOfCheckpoint(placement.checkpoint, placement.origin, treeSize, () => hashOf(0, treeSize), `the part's leaves from ${start} and its frontier`);
  return (leafIndex, version) => {
    if (leafIndex < start || leafIndex >= end) throw new LedgerIntegrityError(`leaf ${leafIndex} is not one of the part's (${start} to ${end - 1})`);
    return evidenceOf({ origin: placement.origin, leafIndex, treeSize, version, leafHash: leaf(leafIndex), proof: inclusionPath(leafIndex, treeSize, hashOf), checkpoint: placement.checkpoint });
  };
}

/**
 * Throws unless `checkpoint` is for the tree of `size` leaves with root `root()` of the log
 * `origin` (the root computed only once origin and size agree): evidence that would not verify
 * against its own checkpoint is never made. `what` names the leaves in the error.
 */
function checkTreeOfCheckpoint(checkpoint: string, origin: string, size: number, root: () => Uint8Array, what: string): void {
  const signed = parseCheckpointText(parseNote(checkpoint).text);
  if (signed.origin !== origin || signed.treeSize !== size || !Buffer.from(root()).equals(Buffer.from(signed.rootHash))) {
    throw new LedgerIntegrityError(`${what} do not make the tree its checkpoint is for (${signed.origin}, ${signed.treeSize} leaves)`);
  }
}
