import { HASH_SIZE } from '../checks/merkle';
import { EMPTY_ROOT, nodeHash } from './hashing';
import { hashesAtLevel, TILE_HEIGHT, TILE_WIDTH } from './tlog-tiles';

/**
 * One level of the tree: hashes of aligned, complete subtrees, packed 32 bytes apiece, for the
 * indexes `offset` to `end` - 1 (from 0 in a tree built leaf by leaf; from its right edge in one
 * opened from tiles).
 */
class HashLevel {
  private bytes = Buffer.alloc(HASH_SIZE * 64);
  length = 0;

  constructor(readonly offset = 0) {}

  /** The index the next hash takes. */
  get end(): number {
    return this.offset + this.length;
  }

  push(hash: Uint8Array): void {
    if ((this.length + 1) * HASH_SIZE > this.bytes.length) {
      const grown = Buffer.alloc(this.bytes.length * 2);
      this.bytes.copy(grown);
      this.bytes = grown;
    }
    this.bytes.set(hash, this.length * HASH_SIZE);
    this.length++;
  }

  at(index: number): Buffer {
    if (index < this.offset || index >= this.end) {
      throw new RangeError(`hash ${index} of this level is not held (held: ${this.offset} to ${this.end - 1}; a tree opened from its right edge holds only what it can still need)`);
    }
    const i = index - this.offset;
    return this.bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE);
  }
}

/** The largest power of two smaller than n (n > 1): where RFC 9162 splits a tree of n leaves. */
export function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * An append-only RFC 9162 Merkle tree kept in memory as levels of complete subtrees: level k
 * holds the hash of every aligned run of 2^k leaves. Appending costs O(1) amortised hashes.
 * Every subtree that RFC 9162's recursion visits starts at a multiple of its largest power-of-two
 * part, so complete ones are looked up and only the ragged right edge is hashed: a root or an
 * inclusion proof costs O(log n) lookups and hashes, whatever the size of the log.
 */
export class MerkleTree {
  private readonly levels: HashLevel[] = [new HashLevel()];
  /** Hashes of ragged right-edge subtrees, valid until the next append. */
  private readonly edgeCache = new Map<string, Buffer>();

  get size(): number {
    return this.levels[0].end;
  }

  /**
   * The tree of `size` leaves from its right edge alone: `tileHashes(level)` gives the hashes of
   * the log's partial hash tile at each tile level (C2SP tlog-tiles: the level-L tile holds the
   * hashes of complete subtrees of 256^L leaves), at least as many as `size` makes it hold. Every
   * hash the tree can still need, to append, to prove a new leaf, to compute a root or a tile it
   * grows, lies in those tiles or is computed from them (the rest of the log is complete tiles,
   * summed up by the level above): a few tiles instead of every leaf. Proofs of older leaves are
   * not available from it.
   */
  static fromRightEdge(size: number, tileHashes: (level: number) => Uint8Array | null): MerkleTree {
    const tree = new MerkleTree();
    tree.levels.length = 0;
    for (let level = 0; hashesAtLevel(size, level) > 0; level++) {
      const complete = hashesAtLevel(size, level);
      const width = complete % TILE_WIDTH;
      const start = complete - width;
      const hashes = width > 0 ? tileHashes(level) : new Uint8Array(0);
      if (!hashes || hashes.length < width * HASH_SIZE) {
        throw new RangeError(`the hash tile of level ${level} at index ${start / TILE_WIDTH} holds ${hashes ? hashes.length / HASH_SIZE : 'no'} hashes; a tree of ${size} leaves needs ${width}`);
      }
      const base = new HashLevel(start);
      for (let i = 0; i < width; i++) base.push(hashes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
      tree.levels[level * TILE_HEIGHT] = base;
      // Inside the tile: the complete subtrees of 2^j of its hashes, for j = 1..7.
      for (let j = 1; j < TILE_HEIGHT; j++) {
        const below = tree.levels[level * TILE_HEIGHT + j - 1];
        const above = new HashLevel(below.offset / 2);
        for (let m = above.offset; 2 * m + 1 < below.end; m++) above.push(nodeHash(below.at(2 * m), below.at(2 * m + 1)));
        tree.levels[level * TILE_HEIGHT + j] = above;
      }
    }
    if (tree.levels.length === 0) tree.levels.push(new HashLevel());
    return tree;
  }

  /** Appends a leaf hash; returns its index. */
  append(leafHash: Uint8Array): number {
    if (leafHash.length !== HASH_SIZE) throw new RangeError(`a leaf hash has ${HASH_SIZE} bytes`);
    const index = this.size;
    this.levels[0].push(leafHash);
    let level = 0;
    let i = index;
    while (i % 2 === 1) {
      const parent = nodeHash(this.levels[level].at(i - 1), this.levels[level].at(i));
      level++;
      this.levels[level] ??= new HashLevel((i - 1) / 2);
      this.levels[level].push(parent);
      i = (i - 1) / 2;
    }
    this.edgeCache.clear();
    return index;
  }

  leaf(index: number): Buffer {
    if (index < 0 || index >= this.size) throw new RangeError(`no leaf ${index} in a tree of size ${this.size}`);
    return this.levels[0].at(index);
  }

  /** MTH of the complete subtree of 2^height leaves starting at leaf index · 2^height (the hashes tiles hold). */
  hash(height: number, index: number): Buffer {
    const level = this.levels[height];
    if (!level || index < 0 || index >= level.end) throw new RangeError(`no complete subtree ${index} of height ${height} in a tree of size ${this.size}`);
    return level.at(index);
  }

  /** MTH of leaves [start, end), per RFC 9162 §2.1.1 (end <= size). */
  subtreeHash(start: number, end: number): Buffer {
    const n = end - start;
    if (n === 1) return this.levels[0].at(start);
    const level = Math.log2(n);
    if (Number.isInteger(level) && start % n === 0) return this.levels[level].at(start / n);
    const key = `${start}:${end}`;
    const cached = this.edgeCache.get(key);
    if (cached) return cached;
    const k = largestPowerOfTwoBelow(n);
    const hash = nodeHash(this.subtreeHash(start, start + k), this.subtreeHash(start + k, end));
    this.edgeCache.set(key, hash);
    return hash;
  }

  /** Root of the tree made of the first `size` leaves (default: all). */
  root(size = this.size): Buffer {
    if (size < 0 || size > this.size) throw new RangeError(`the tree has ${this.size} leaves, not ${size}`);
    return size === 0 ? Buffer.from(EMPTY_ROOT) : this.subtreeHash(0, size);
  }

  /** PATH(index, D[size]) of RFC 9162 §2.1.3.1: sibling hashes from the leaf up to the root. */
  inclusionProof(index: number, size = this.size): Buffer[] {
    if (size > this.size || index < 0 || index >= size) throw new RangeError(`no leaf ${index} in a tree of size ${size}`);
    return inclusionPath(index, size, (start, end) => this.subtreeHash(start, end));
  }
}

/**
 * PATH(index, D[size]) of RFC 9162 §2.1.3.1 from any source of subtree hashes (`subtreeHash(start,
 * end)`, MTH of leaves [start, end)): the sibling hashes from the leaf up to the root.
 */
export function inclusionPath<H>(index: number, size: number, subtreeHash: (start: number, end: number) => H): H[] {
  const siblings: H[] = [];
  let start = 0;
  let end = size;
  while (end - start > 1) {
    const k = largestPowerOfTwoBelow(end - start);
    if (index < start + k) {
      siblings.push(subtreeHash(start + k, end));
      end = start + k;
    } else {
      siblings.push(subtreeHash(start, start + k));
      start += k;
    }
  }
  return siblings.reverse();
}

/**
 * The root of a tree grown leaf by leaf, keeping only the roots of its complete subtrees (at most
 * one per height, O(log n) hashes): RFC 9162's MTH of any number of leaves in bounded memory, for
 * checking a stored log of any size against its signed checkpoint.
 */
export class CompactRange {
  /** Roots of complete subtrees, left to right, heights strictly decreasing. */
  private readonly peaks: { height: number; hash: Buffer }[] = [];
  size = 0;

  append(leafHash: Uint8Array): void {
    let node: { height: number; hash: Buffer } = { height: 0, hash: Buffer.from(leafHash) };
    while (this.peaks.length > 0 && this.peaks[this.peaks.length - 1].height === node.height) {
      const left = this.peaks.pop()!;
      node = { height: node.height + 1, hash: nodeHash(left.hash, node.hash) };
    }
    this.peaks.push(node);
    this.size++;
  }

  /** MTH of the leaves appended: the peaks folded from the right (a ragged subtree hangs off the right of each larger one). */
  root(): Buffer {
    if (this.peaks.length === 0) return Buffer.from(EMPTY_ROOT);
    let hash = this.peaks[this.peaks.length - 1].hash;
    for (let i = this.peaks.length - 2; i >= 0; i--) hash = nodeHash(this.peaks[i].hash, hash);
    return hash;
  }
}
