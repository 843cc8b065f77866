import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ConsistencyProofError, consistencyProof, consistencyProofFrom, subtreeRoot } from '../../functions/domain/ledger/consistency';
import { verifyConsistency } from '../../functions/domain/ledger/node-crypto';
import { leafHash } from '#verify/node/hashing';
import { consistencyProofFromTiles, MissingTileError, tilesForConsistency, type TileSource } from '../../functions/domain/ledger/tile-proofs';
import { hashTileBytes, tilesOfTree } from '#verify/node/tlog-tiles';
import { MerkleTree } from '#verify/node/merkle-tree';

const SEED = 20261122;
const leavesOf = (n: number, salt = '') => Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`${salt}leaf ${i}`)));

/** Roots from the log's own tree (MerkleTree, packages/verify/src/node/merkle-tree.ts), a second computation of MTH. */
function rootsOf(leaves: Buffer[]) {
  const tree = new MerkleTree();
  for (const leaf of leaves) tree.append(leaf);
  return (size: number) => tree.root(size);
}

describe('RFC 9162 consistency proofs', () => {
  test('from a tree that keeps its interior hashes, the proof is the same as from the leaves, for every pair up to 70', () => {
    const leaves = leavesOf(70);
    const tree = new MerkleTree();
    for (const leaf of leaves) tree.append(leaf);
    for (let n = 1; n <= 70; n++) {
      for (let m = 1; m <= n; m++) expect([m, n, consistencyProofFrom(m, n, (s, e) => tree.subtreeHash(s, e)).map((h) => h.toString('hex'))]).toEqual([m, n, consistencyProof(m, n, leaves).map((h) => h.toString('hex'))]);
    }
  });

  test('the subtree root equals the log tree root for every size up to 70', () => {
    const leaves = leavesOf(70);
    const root = rootsOf(leaves);
    for (let n = 1; n <= 70; n++) expect(subtreeRoot(leaves, 0, n).equals(root(n))).toBe(true);
  });

  test('for every pair of sizes up to 40, the proof verifies against the two roots', () => {
    const leaves = leavesOf(40);
    const root = rootsOf(leaves);
    for (let n = 1; n <= 40; n++) {
      for (let m = 1; m <= n; m++) {
        const proof = consistencyProof(m, n, leaves);
        expect([m, n, verifyConsistency(m, n, root(m), root(n), proof)]).toEqual([m, n, true]);
      }
    }
  });

  test('the example tree of RFC 9162 §2.1.5 (seven leaves d0..d6): the proofs it lists, node for node', () => {
    // Leaves a..f, j are d0..d6; g = (a,b), h = (c,d), i = (e,f), k = (g,h), l = (i,j).
    // PROOF(3, D[7]) = [c, d, g, l], PROOF(4, D[7]) = [l], PROOF(6, D[7]) = [i, j, k].
    const leaves = leavesOf(7);
    const node = (start: number, end: number) => subtreeRoot(leaves, start, end).toString('hex');
    const [c, d, g, i, j, k, l] = [node(2, 3), node(3, 4), node(0, 2), node(4, 6), node(6, 7), node(0, 4), node(4, 7)];
    const hex = (proof: Buffer[]) => proof.map((p) => p.toString('hex'));
    expect(hex(consistencyProof(3, 7, leaves))).toEqual([c, d, g, l]);
    expect(hex(consistencyProof(4, 7, leaves))).toEqual([l]);
    expect(hex(consistencyProof(6, 7, leaves))).toEqual([i, j, k]);
    expect(consistencyProof(7, 7, leaves)).toEqual([]);
  });

  test('random logs grown in random batches: every checkpoint is consistent with every later one, and any change is caught', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 2, maxLength: 8 }),
        fc.nat(),
        fc.nat(),
        (batches, pick, bit) => {
          const total = batches.reduce((a, b) => a + b, 0);
          const leaves = leavesOf(total, `${total}:`);
          const root = rootsOf(leaves);
          const sizes = batches.map((_, i) => batches.slice(0, i + 1).reduce((a, b) => a + b, 0));
          for (const m of sizes) {
            for (const n of sizes.filter((s) => s >= m)) {
              const proof = consistencyProof(m, n, leaves);
              if (!verifyConsistency(m, n, root(m), root(n), proof)) return false;
              if (proof.length === 0) continue;
              // One flipped bit anywhere in the proof is refused.
              const tampered = proof.map((p) => Buffer.from(p));
              const at = pick % tampered.length;
              tampered[at][Math.floor(bit / 8) % 32] ^= 1 << bit % 8;
              if (verifyConsistency(m, n, root(m), root(n), tampered)) return false;
              // So are a dropped hash, an extra one, and a proof presented for other sizes.
              if (verifyConsistency(m, n, root(m), root(n), proof.slice(1))) return false;
              if (verifyConsistency(m, n, root(m), root(n), [...proof, proof[0]])) return false;
              if (m < n && verifyConsistency(m, n - 1, root(m), root(n - 1), proof) && consistencyProof(m, n - 1, leaves).length !== proof.length) return false;
            }
          }
          return true;
        },
      ),
      { seed: SEED, numRuns: 60 },
    );
  });

  test('a rewritten history (a fork) is not consistent with the checkpoint it forked from', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 60 }), fc.nat(), (m, extra, at) => {
        const honest = leavesOf(m + extra, 'fork:');
        const forked: Buffer[] = honest.map((l) => Buffer.from(l));
        forked[at % m] = leafHash(Buffer.from('rewritten entry'));
        const honestRoot = rootsOf(honest);
        const forkedRoot = rootsOf(forked);
        const n = m + extra;
        // The forked log's own proof does not take the honest checkpoint at m to the forked one at n.
        return !verifyConsistency(m, n, honestRoot(m), forkedRoot(n), consistencyProof(m, n, forked));
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  test('a log that shrank, equal sizes with different roots, and sizes out of range are refused', () => {
    const leaves = leavesOf(20);
    const root = rootsOf(leaves);
    expect(verifyConsistency(12, 8, root(12), root(8), consistencyProof(8, 12, leaves))).toBe(false);
    expect(verifyConsistency(8, 8, root(8), root(8), [])).toBe(true);
    expect(verifyConsistency(8, 8, root(8), root(9), [])).toBe(false);
    expect(verifyConsistency(0, 8, createHash('sha256').digest(), root(8), [])).toBe(false);
    expect(verifyConsistency(5, 8, root(5), root(8), [])).toBe(false);
    expect(() => consistencyProof(0, 5, leaves)).toThrow(ConsistencyProofError);
    expect(() => consistencyProof(6, 5, leaves)).toThrow(ConsistencyProofError);
    expect(() => consistencyProof(5, 21, leaves)).toThrow(ConsistencyProofError);
  });
});

describe('consistency proofs from hash tiles (what GET /v1/ledger/consistency reads)', () => {
  /** The log's hash tiles for a tree of `size`, as the loader stores them, answering by level and index. */
  function tilesOf(tree: MerkleTree, size: number): TileSource {
    const view = { size, hash: (height: number, index: number) => tree.hash(height, index) };
    const tiles = new Map<string, Buffer>();
    for (const tile of tilesOfTree(size)) if (tile.level !== 'entries') tiles.set(`${tile.level}/${tile.index}`, hashTileBytes(view, tile));
    return (level, index) => tiles.get(`${level}/${index}`);
  }

  test('equal the proofs from the leaves, for random sizes across several tile levels (property)', () => {
    const leaves = leavesOf(70_000);
    const tree = new MerkleTree();
    for (const leaf of leaves) tree.append(leaf);
    // The tiles of the larger tree also answer for every smaller one (partial tiles only grow).
    const source = tilesOf(tree, 70_000);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70_000 }), fc.integer({ min: 1, max: 70_000 }), (a, b) => {
        const [m, n] = a <= b ? [a, b] : [b, a];
        const fromTiles = consistencyProofFromTiles(m, n, source).map((h) => h.toString('hex'));
        expect(fromTiles).toEqual(consistencyProofFrom(m, n, (s, e) => tree.subtreeHash(s, e)).map((h) => h.toString('hex')));
        // Only the tiles it names are read.
        const named = new Set(tilesForConsistency(m, n).map((t) => `${t.level}/${t.index}`));
        expect(consistencyProofFromTiles(m, n, (level, index) => (named.has(`${level}/${index}`) ? source(level, index) : undefined))).toHaveLength(fromTiles.length);
        expect(named.size).toBeLessThanOrEqual(12);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  test('for every pair of sizes up to 600 (partial tiles at both levels), from the tiles of the later tree', () => {
    const leaves = leavesOf(600);
    const tree = new MerkleTree();
    for (const leaf of leaves) tree.append(leaf);
    for (let n = 1; n <= 600; n += 13) {
      const source = tilesOf(tree, n);
      for (let m = 1; m <= n; m += 7) expect(verifyConsistency(m, n, tree.root(m), tree.root(n), consistencyProofFromTiles(m, n, source))).toBe(true);
    }
  });

  test('a tile that is missing or too short is named, never guessed', () => {
    expect(() => consistencyProofFromTiles(3, 300, () => undefined)).toThrow(MissingTileError);
    expect(() => consistencyProofFromTiles(3, 300, () => Buffer.alloc(32))).toThrow(/does not hold hashes/);
  });
});
