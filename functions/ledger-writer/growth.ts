import { parseCheckpointText } from '#verify/checks/checkpoint';
import type { LogEvidence } from '#verify/checks/evidence-format';
import { parseNote } from '#verify/checks/note';
import { MerkleTree } from '#verify/node/merkle-tree';
import { LedgerIntegrityError, logEvidence } from './log';

/** A leaf hash's length: the batch's leaves travel as one run of them. */
const HASH_SIZE = 32;

/**
 * What a batch grew the log by, as little as any writer of its new versions needs to give each its
 * evidence without the log: where the batch began and the log's right edge there (the partial hash
 * tile of each level), every leaf hash it appended in order, and the checkpoint signed for the
 * batch. A part writer is handed it (parts.ts); a writer finishing a stopped batch's journal reads
 * it back from the leaves the batch stored (batch.ts, leafPlacer).
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
  const signed = parseCheckpointText(parseNote(growth.checkpoint).text);
  if (signed.origin !== growth.origin || signed.treeSize !== tree.size || !Buffer.from(tree.root()).equals(Buffer.from(signed.rootHash))) {
    throw new LedgerIntegrityError(`the batch's leaves from ${growth.start} do not make the tree its checkpoint is for (${signed.origin}, ${signed.treeSize} leaves)`);
  }
  return (leafIndex, version) => {
    if (leafIndex < growth.start || leafIndex >= tree.size) throw new LedgerIntegrityError(`leaf ${leafIndex} is not one the batch appended (${growth.start} to ${tree.size - 1})`);
    return logEvidence(tree, growth.origin, leafIndex, version, growth.checkpoint);
  };
}
