import { canonicalBytes } from '#verify/checks/canonical';
import { leafHash } from '#verify/node/hashing';
import { entriesStart, hashTileBytes, tilesAddedBetween, TILE_WIDTH, type TileCoordinate } from '#verify/node/tlog-tiles';
import { growthResources, partialHashTiles, tileResources, type LogResource } from '../domain/ledger/tiles';
import { checkpointText, parseCheckpointText } from '#verify/checks/checkpoint';
import { EVIDENCE_FORMAT, type LogEvidence } from '#verify/checks/evidence-format';
import { parseVerifierKey, verifyNote } from '../domain/ledger/node-crypto';
import type { LeafToStore } from '../store/ports/ledger';
import { largestPowerOfTwoBelow, MerkleTree } from '#verify/node/merkle-tree';
import type { CheckpointSigner, LedgerSigner } from './signer';

/**
 * Standard base64 (RFC 4648 §4, padded), the same text as the verifier's own encoder (which runs in
 * browsers too and builds a string a byte at a time): Node's, for the thousands of hashes a batch
 * encodes (each new version's leaf hash and inclusion proof, each leaf it tracks).
 */
const base64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

export class LedgerIntegrityError extends Error {
  override name = 'LedgerIntegrityError';
}

export interface StoredLog {
  leaves: Buffer[];
  /** The published checkpoint for `leaves.length`, or null for an empty log. */
  checkpoint: string | null;
}

/**
 * Throws unless `checkpoint` is signed by `signer`'s key, names its log, and is for a tree of
 * `tree.size` leaves with `tree.root()`: the stored history a writer may extend (and never rewrite).
 */
export function checkSignedTree(signer: CheckpointSigner | LedgerSigner, tree: { size: number; root(): Uint8Array }, storedCheckpoint: string | null): void {
  if (!storedCheckpoint) throw new LedgerIntegrityError(`the table holds ${tree.size} leaves but no checkpoint`);
  const opened = verifyNote(storedCheckpoint, [parseVerifierKey(signer.verifierKey)]);
  if (!opened.ok) {
    throw new LedgerIntegrityError(`the table's latest checkpoint is not signed by this signing key (${signer.verifierKey}): ${opened.reason}`);
  }
  const checkpoint = parseCheckpointText(opened.note.text);
  if (checkpoint.origin !== signer.name) throw new LedgerIntegrityError(`the table's log is ${checkpoint.origin}, the signing key is for ${signer.name}`);
  if (checkpoint.treeSize !== tree.size) throw new LedgerIntegrityError(`the checkpoint is for ${checkpoint.treeSize} leaves, the table holds ${tree.size}`);
  if (!Buffer.from(tree.root()).equals(checkpoint.rootHash)) {
    throw new LedgerIntegrityError('the stored leaves do not reproduce the root of the published checkpoint: the log was altered');
  }
}

/**
 * The append-only log as the loader holds it: the Merkle tree, an index from leaf hash to
 * position (so logging the same content twice appends nothing), and the signing key. It opens
 * only onto stored leaves that reproduce the published, signed checkpoint, so a load can extend
 * history but never rewrite it.
 */
export class AppendOnlyLog {
  readonly origin: string;
  private readonly tree: MerkleTree;
  private readonly positions = new Map<string, number>();
  private readonly pending: LeafToStore[] = [];
  /** The leaf data (canonical JSON) of the pending leaves, for the tile log's entry bundles. */
  private readonly pendingEntries: Uint8Array[] = [];
  private publishedSize: number;
  private publishedCheckpoint: string | null;
  private signed: { size: number; note: string } | null = null;

  constructor(
    private readonly signer: CheckpointSigner | LedgerSigner,
    stored: StoredLog = { leaves: [], checkpoint: null },
    tree?: MerkleTree,
  ) {
    this.origin = signer.name;
    if (tree) {
      this.tree = tree;
      // Only the partial tile's leaves are known: content logged before them is not recognised again.
      const start = tree.size - (tree.size % TILE_WIDTH);
      for (let i = start; i < tree.size; i++) this.track(tree.leaf(i), i);
    } else {
      this.tree = new MerkleTree();
      for (const leaf of stored.leaves) this.track(leaf, this.tree.append(leaf));
    }
    this.publishedSize = this.tree.size;
    this.publishedCheckpoint = stored.checkpoint;
    if (this.tree.size > 0) this.checkStoredHistory(stored.checkpoint);
  }

  /**
   * The log opened from its right edge (MerkleTree.fromRightEdge: the partial hash tiles the table
   * keeps) instead of every leaf, checked against the signed checkpoint the same way; how both
   * writers open it. It does not recognise content logged before the partial tile: the sequencer
   * logs only new versions, and a load run again reuses the evidence stored with its records
   * (lib/loader/evidence.ts IssuedEvidence) instead of logging their content again.
   */
  static fromRightEdge(signer: CheckpointSigner | LedgerSigner, size: number, tileHashes: (level: number) => Uint8Array | null, checkpoint: string | null): AppendOnlyLog {
    return new AppendOnlyLog(signer, { leaves: [], checkpoint }, MerkleTree.fromRightEdge(size, tileHashes));
  }

  private track(leaf: Uint8Array, index: number): void {
    const key = base64(leaf);
    if (!this.positions.has(key)) this.positions.set(key, index);
  }

  /** The tree, as it now stands, must be the one the signed checkpoint describes. */
  private checkStoredHistory(storedCheckpoint: string | null): void {
    checkSignedTree(this.signer, { size: this.tree.size, root: () => this.tree.root() }, storedCheckpoint);
  }

  get size(): number {
    return this.tree.size;
  }

  /** The size and checkpoint last published (or read when the log was opened). */
  get published(): { size: number; checkpoint: string | null } {
    return { size: this.publishedSize, checkpoint: this.publishedCheckpoint };
  }

  /** True while leaves appended here are not yet published. */
  get hasUnpublished(): boolean {
    return this.tree.size !== this.publishedSize;
  }

  /** The head now says this log's current size and `checkpoint`: what was appended is history. */
  markPublished(checkpoint: string): void {
    this.publishedSize = this.tree.size;
    this.publishedCheckpoint = checkpoint;
    this.pending.length = 0;
    this.pendingEntries.length = 0;
  }

  /**
   * Continues a log kept from an earlier batch with the leaves another writer published since,
   * checked against the head's signed checkpoint like a log opened from every leaf.
   */
  extendWithStored(leaves: readonly Buffer[], checkpoint: string): void {
    if (this.hasUnpublished) throw new LedgerIntegrityError('a log with unpublished leaves cannot take stored ones');
    for (const leaf of leaves) this.track(leaf, this.tree.append(leaf));
    this.checkStoredHistory(checkpoint);
    this.publishedSize = this.tree.size;
    this.publishedCheckpoint = checkpoint;
  }

  /**
   * The published log as its right edge alone (the partial hash tile of each level), checked
   * against its signed checkpoint: what a writer keeps between batches, so memory does not grow
   * with the log. Nothing may be unpublished.
   */
  rightEdge(): AppendOnlyLog {
    if (this.hasUnpublished) throw new LedgerIntegrityError('a log with unpublished leaves has no published right edge');
    if (this.size === 0) return this;
    const tiles = new Map(partialHashTiles(this.size).map((tile) => [tile.level, hashTileBytes(this.tree, tile)] as const));
    return AppendOnlyLog.fromRightEdge(this.signer, this.size, (level) => tiles.get(level) ?? null, this.publishedCheckpoint);
  }

  /** The frontier of the leaves from `start` up to `end` in the log as it stands (frontierOf): what a part writer places them by (growth.ts). */
  frontier(start: number, end: number): Array<[number, number, Uint8Array]> {
    return frontierOf((from, to) => this.tree.subtreeHash(from, to), this.size, start, end);
  }

  /** The partial hash tile of each level of the log as it stands (its right edge), by level: what a batch's growth starts from (growth.ts). */
  edgeTiles(): Record<number, Uint8Array> {
    return Object.fromEntries(partialHashTiles(this.size).map((tile) => [tile.level, hashTileBytes(this.tree, tile)] as const));
  }

  /** Leaves appended since the log was opened, to store before the new checkpoint is published. */
  get newLeaves(): readonly LeafToStore[] {
    return this.pending;
  }

  /** Logs one record version's public content; content already in the log keeps its leaf. */
  add(content: unknown, meta: { reference: string; version: number }): { leafIndex: number; appended: boolean } {
    const entry = canonicalBytes(content);
    return this.addEntry(entry, leafHash(entry), meta);
  }

  /** add() for content already canonicalised: its entry bytes and their leaf hash. */
  addEntry(entry: Uint8Array, leaf: Buffer, meta: { reference: string; version: number }): { leafIndex: number; appended: boolean } {
    const known = this.positions.get(base64(leaf));
    if (known !== undefined) return { leafIndex: known, appended: false };
    const leafIndex = this.tree.append(leaf);
    this.track(leaf, leafIndex);
    this.pending.push({ index: leafIndex, leafHash: leaf, reference: meta.reference, version: meta.version });
    this.pendingEntries.push(entry);
    return { leafIndex, appended: true };
  }

  /**
   * Appends a new record version's leaf, known to be new (its content names its record and its
   * version, which no leaf of the log holds yet: a part's new versions, sequencer.ts), without the
   * look-up and the index add() keeps for content logged again: its leaf index.
   */
  appendNew(entry: Uint8Array, leaf: Buffer, meta: { reference: string; version: number }): number {
    const leafIndex = this.tree.append(leaf);
    this.pending.push({ index: leafIndex, leafHash: leaf, reference: meta.reference, version: meta.version });
    this.pendingEntries.push(entry);
    return leafIndex;
  }

  private checkpointTextNow(): string {
    return checkpointText({ origin: this.origin, treeSize: this.size, rootHash: this.tree.root(), extensions: [] });
  }

  /**
   * Signs the checkpoint for the current size (once per size), with whatever key the log holds:
   * a KMS key answers asynchronously, so a batch seals its log before it asks for evidence.
   */
  async seal(): Promise<string> {
    if (this.size === 0) throw new LedgerIntegrityError('an empty log has no checkpoint to sign');
    if (this.size === this.publishedSize && this.publishedCheckpoint) return this.publishedCheckpoint;
    if (this.signed?.size !== this.size) this.signed = { size: this.size, note: await this.signer.signNoteAsync(this.checkpointTextNow()) };
    return this.signed.note;
  }

  /**
   * The signed checkpoint for the current size; the published one when nothing was appended. A
   * key file signs on demand; any other key needs seal() first.
   */
  checkpoint(): string {
    if (this.size === 0) throw new LedgerIntegrityError('an empty log has no checkpoint to sign');
    if (this.size === this.publishedSize && this.publishedCheckpoint) return this.publishedCheckpoint;
    if (this.signed?.size !== this.size) {
      if (!('signNote' in this.signer)) throw new LedgerIntegrityError(`the checkpoint for size ${this.size} is not signed yet: seal() the log first`);
      this.signed = { size: this.size, note: this.signer.signNote(this.checkpointTextNow()) };
    }
    return this.signed.note;
  }

  /**
   * The entry bundle of the published size that this load's bundles extend (the partial one), or
   * null when the published size ends a bundle. Its entries come from the tile store.
   */
  get previousBundle(): TileCoordinate | null {
    const start = entriesStart(this.publishedSize);
    return this.publishedSize > start ? { level: 'entries', index: start / TILE_WIDTH, width: this.publishedSize - start } : null;
  }

  /**
   * The hash tiles this load grew (C2SP tlog-tiles coordinates and bytes), kept in the table too so
   * the read path builds consistency proofs from a few tiles instead of every leaf.
   */
  get grownHashTiles(): Array<{ level: number; index: number; hashes: Buffer }> {
    return tilesAddedBetween(this.publishedSize, this.size)
      .filter((tile): tile is TileCoordinate & { level: number } => tile.level !== 'entries')
      .map((tile) => ({ level: tile.level, index: tile.index, hashes: hashTileBytes(this.tree, tile) }));
  }

  /**
   * The tile log's resources for this load's growth (C2SP tlog-tiles, functions/domain/ledger/tiles.ts):
   * `previousEntries` are the entries of `previousBundle`, each checked against the stored leaf it
   * must hash to, so a tile store that disagrees with the table stops the load.
   */
  tileResources(previousEntries: readonly Uint8Array[]): LogResource[] {
    this.checkPreviousEntries(previousEntries);
    return tileResources({ tree: this.tree, oldSize: this.publishedSize, entries: [...previousEntries, ...this.pendingEntries], checkpoint: this.checkpoint() });
  }

  /** This load's new and grown tiles and bundles alone (tileResources without its checkpoints): they need no signature. */
  growthResources(previousEntries: readonly Uint8Array[]): LogResource[] {
    this.checkPreviousEntries(previousEntries);
    return growthResources({ tree: this.tree, oldSize: this.publishedSize, entries: [...previousEntries, ...this.pendingEntries] });
  }

  /** Throws unless `previousEntries` are exactly the entries of `previousBundle`, leaf for leaf. */
  checkPreviousEntries(previousEntries: readonly Uint8Array[]): void {
    const start = entriesStart(this.publishedSize);
    if (previousEntries.length !== this.publishedSize - start) {
      throw new LedgerIntegrityError(`the tile log's last entry bundle holds ${previousEntries.length} entries, the log's published size needs ${this.publishedSize - start}`);
    }
    previousEntries.forEach((entry, i) => {
      if (!leafHash(entry).equals(this.tree.leaf(start + i))) throw new LedgerIntegrityError(`entry ${start + i} of the tile log does not hash to leaf ${start + i} of the table: the tile log was altered`);
    });
  }

  /**
   * Evidence for a leaf against the current checkpoint; with `checkpoint` given, naming it so
   * instead (CHECKPOINT_TO_COME: a batch asks for evidence before its checkpoint is signed).
   */
  evidence(leafIndex: number, version: number, checkpoint?: string): LogEvidence {
    return logEvidence(this.tree, this.origin, leafIndex, version, checkpoint ?? this.checkpoint());
  }
}

/** The evidence of leaf `leafIndex` (record version `version`) of `tree`, the log `origin`, against `checkpoint` (signed for the tree's size). */
export function logEvidence(tree: MerkleTree, origin: string, leafIndex: number, version: number, checkpoint: string): LogEvidence {
  return evidenceOf({ origin, leafIndex, treeSize: tree.size, version, leafHash: tree.leaf(leafIndex), proof: tree.inclusionProof(leafIndex), checkpoint });
}

/** Evidence as the service stores and shows it (svc.ledger-evidence.v1), its fields in one order wherever it is made. */
export function evidenceOf(e: { origin: string; leafIndex: number; treeSize: number; version: number; leafHash: Uint8Array; proof: readonly Uint8Array[]; checkpoint: string }): LogEvidence {
  return {
    format: EVIDENCE_FORMAT,
    version: e.version,
    origin: e.origin,
    leafIndex: e.leafIndex,
    treeSize: e.treeSize,
    leafHash: base64(e.leafHash),
    inclusionProof: e.proof.map(base64),
    checkpoint: e.checkpoint,
  };
}

/**
 * The subtrees of the tree of `size` leaves that hold none of the leaves from `start` up to `end`
 * and are the largest such (where RFC 9162's split of the tree first leaves the range), with their
 * hashes (`subtreeHash`, of the whole tree): every sibling a proof of a leaf in the range needs is
 * one of them, or is made of the range's own leaves and them.
 */
export function frontierOf(subtreeHash: (from: number, to: number) => Uint8Array, size: number, start: number, end: number): Array<[number, number, Uint8Array]> {
  const out: Array<[number, number, Uint8Array]> = [];
  const visit = (from: number, to: number) => {
    if (to <= start || from >= end) out.push([from, to, subtreeHash(from, to)]);
    else if (from < start || to > end) {
      const k = largestPowerOfTwoBelow(to - from);
      visit(from, from + k);
      visit(from + k, to);
    }
  };
  if (start < end) visit(0, size);
  return out;
}
