import { EMPTY_ROOT, HASH_SIZE, nodeHash } from '../domain/ledger/hashing';

/** One level of the tree: hashes of aligned, complete subtrees, packed 32 bytes apiece. */
class HashLevel {
  private bytes = Buffer.alloc(HASH_SIZE * 64);
  length = 0;

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
    return this.bytes.subarray(index * HASH_SIZE, (index + 1) * HASH_SIZE);
  }
}

function largestPowerOfTwoBelow(n: number): number {
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
    return this.levels[0].length;
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
      this.levels[level] ??= new HashLevel();
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
    if (!level || index < 0 || index >= level.length) throw new RangeError(`no complete subtree ${index} of height ${height} in a tree of size ${this.size}`);
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
    const siblings: Buffer[] = [];
    let start = 0;
    let end = size;
    while (end - start > 1) {
      const k = largestPowerOfTwoBelow(end - start);
      if (index < start + k) {
        siblings.push(this.subtreeHash(start + k, end));
        end = start + k;
      } else {
        siblings.push(this.subtreeHash(start, start + k));
        start += k;
      }
    }
    return siblings.reverse();
  }
}
