import fc from 'fast-check';
import { EMPTY_ROOT, leafHash, nodeHash } from '#verify/node/hashing';
import { rootFromInclusionProof } from '../../functions/domain/ledger/node-crypto';
import { MerkleTree } from '#verify/node/merkle-tree';
import { hashTileBytes, tilesAddedBetween, TILE_WIDTH } from '#verify/node/tlog-tiles';
import { LEAF_HASHES, LEAF_INPUTS, ROOTS } from '../support/rfc6962-vectors';

const hex = (h: string) => Buffer.from(h, 'hex');
/** [0-based leaf index, tree size, inclusion path]. */
const INCLUSION: [number, number, string[]][] = [
  [0, 1, []],
  [0, 8, ['96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4']],
  [5, 8, ['bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b', 'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0', 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7']],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [1, 5, ['6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d', '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b']],
];
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const SOME_HASH = hex('abacaba000000000000000000000000000000000000000000060061e00123456');

function vectorTree(): MerkleTree {
  const tree = new MerkleTree();
  for (const input of LEAF_INPUTS) tree.append(leafHash(input));
  return tree;
}

/** RFC 9162 §2.1.1 MTH, written straight from the definition, to compare the tree against. */
function referenceRoot(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return Buffer.from(EMPTY_ROOT);
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(referenceRoot(leaves.slice(0, k)), referenceRoot(leaves.slice(k)));
}

function verifies(index: number, size: number, leaf: Buffer, proof: Buffer[], root: Buffer): boolean {
  try {
    return rootFromInclusionProof(index, size, leaf, proof).equals(root);
  } catch {
    return false;
  }
}

describe('RFC 6962 / 9162 test vectors', () => {
  it('hashes the empty tree and each leaf as published', () => {
    expect(EMPTY_ROOT.toString('hex')).toBe(EMPTY);
    expect(new MerkleTree().root().toString('hex')).toBe(EMPTY);
    expect(LEAF_INPUTS.map((l) => leafHash(l).toString('hex'))).toEqual(LEAF_HASHES);
  });

  it('computes the published root for every tree size 1..8', () => {
    const tree = vectorTree();
    for (let size = 1; size <= 8; size++) expect(tree.root(size).toString('hex')).toBe(ROOTS[size - 1]);
  });

  it('produces and accepts the published inclusion proofs', () => {
    const tree = vectorTree();
    for (const [index, size, path] of INCLUSION) {
      expect(tree.inclusionProof(index, size).map((h) => h.toString('hex'))).toEqual(path);
      expect(rootFromInclusionProof(index, size, hex(LEAF_HASHES[index]), path.map(hex)).toString('hex')).toBe(ROOTS[size - 1]);
    }
  });

  it('refuses every corruption of the published proofs the reference implementation tries', () => {
    for (const [index, size, path] of INCLUSION) {
      const leaf = hex(LEAF_HASHES[index]);
      const root = hex(ROOTS[size - 1]);
      const proof = path.map(hex);
      const probes: [number, number, Buffer, Buffer[], Buffer][] = [
        [index - 1, size, leaf, proof, root],
        [index + 1, size, leaf, proof, root],
        [index ^ 2, size, leaf, proof, root],
        [index, size * 2, leaf, proof, root],
        [index, Math.floor(size / 2), leaf, proof, root],
        [index, size, Buffer.from('WrongLeaf'), proof, root],
        [index, size, leaf, proof, hex(EMPTY)],
        [index, size, leaf, proof, SOME_HASH],
        [index, size, leaf, [...proof, Buffer.alloc(0)], root],
        [index, size, leaf, [...proof, root], root],
        [index, size, leaf, [Buffer.alloc(0), ...proof], root],
        [index, size, leaf, [root, ...proof], root],
      ];
      proof.forEach((_, i) => {
        const wrong = proof.map((h) => Buffer.from(h));
        wrong[i][0] ^= 8;
        probes.push([index, size, leaf, wrong, root]);
      });
      if (proof.length > 0) probes.push([index, size, leaf, proof.slice(0, -1), root]);
      if (proof.length > 1) probes.push([index, size, leaf, [proof[0], SOME_HASH, ...proof.slice(1)], root]);
      for (const probe of probes) expect(verifies(...probe)).toBe(false);
    }
  });
});

describe('the append-only tree', () => {
  it('matches the RFC definition of the root for random sizes, and for every earlier size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 2 ** 31 }), (size, seed) => {
        const leaves = Array.from({ length: size }, (_, i) => leafHash(Buffer.from(`${seed}:${i}`)));
        const tree = new MerkleTree();
        for (const leaf of leaves) tree.append(leaf);
        expect(tree.root().equals(referenceRoot(leaves))).toBe(true);
        const earlier = 1 + (seed % size);
        expect(tree.root(earlier).equals(referenceRoot(leaves.slice(0, earlier)))).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('every leaf of random trees of sizes 1 to 2000 verifies against the root', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 }), (size) => {
        const tree = new MerkleTree();
        for (let i = 0; i < size; i++) tree.append(leafHash(Buffer.from(String(i))));
        const root = tree.root();
        for (let i = 0; i < size; i++) {
          expect(rootFromInclusionProof(i, size, tree.leaf(i), tree.inclusionProof(i)).equals(root)).toBe(true);
        }
      }),
      { numRuns: 12, examples: [[1], [2], [2000], [1024], [1025]] },
    );
  });

  it('proves a leaf against an earlier tree size too (the checkpoint a record was stored with)', () => {
    const tree = new MerkleTree();
    for (let i = 0; i < 100; i++) tree.append(leafHash(Buffer.from(String(i))));
    expect(rootFromInclusionProof(40, 57, tree.leaf(40), tree.inclusionProof(40, 57)).equals(tree.root(57))).toBe(true);
  });

  it('refuses hashes of the wrong size and leaves that do not exist', () => {
    const tree = new MerkleTree();
    expect(() => tree.append(Buffer.alloc(31))).toThrow(RangeError);
    tree.append(leafHash(Buffer.from('a')));
    expect(() => tree.inclusionProof(1)).toThrow(RangeError);
    expect(() => tree.root(2)).toThrow(RangeError);
    expect(() => rootFromInclusionProof(0, 0, tree.leaf(0), [])).toThrow();
    expect(() => rootFromInclusionProof(-1, 1, tree.leaf(0), [])).toThrow();
    expect(() => rootFromInclusionProof(0.5, 1, tree.leaf(0), [])).toThrow();
  });
});

describe('a tree opened from its right edge (the partial hash tiles)', () => {
  /** The log's partial hash tile at each level for `size`, cut from a full tree as the table keeps them. */
  const partialTiles = (full: MerkleTree, size: number) => (level: number) => {
    const complete = Math.floor(size / TILE_WIDTH ** level);
    return hashTileBytes(full, { level, index: Math.floor(complete / TILE_WIDTH), width: complete % TILE_WIDTH });
  };

  it('grows as the tree built leaf by leaf does: same roots, proofs of new leaves, grown tiles and the partial tile\'s leaves', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 60_000, max: 70_000 }), fc.constantFrom(255, 256, 257, 65_535, 65_536, 65_537)),
        fc.integer({ min: 0, max: 700 }),
        (size, grown) => {
          const leaf = (i: number) => leafHash(Buffer.from(`leaf ${i}`));
          const full = new MerkleTree();
          for (let i = 0; i < size; i++) full.append(leaf(i));
          const edge = MerkleTree.fromRightEdge(size, partialTiles(full, size));
          expect(edge.size).toBe(size);
          expect(edge.root().equals(full.root())).toBe(true);
          const partialStart = size - (size % TILE_WIDTH);
          for (let i = partialStart; i < size; i++) expect(edge.leaf(i).equals(full.leaf(i))).toBe(true);
          for (let i = size; i < size + grown; i++) {
            expect(edge.append(leaf(i))).toBe(full.append(leaf(i)));
          }
          expect(edge.root().equals(full.root())).toBe(true);
          for (let i = size; i < size + grown; i += Math.max(1, Math.floor(grown / 9))) {
            expect(edge.inclusionProof(i).map((h) => h.toString('hex'))).toEqual(full.inclusionProof(i).map((h) => h.toString('hex')));
          }
          for (const tile of tilesAddedBetween(size, size + grown)) {
            if (tile.level !== 'entries') expect(hashTileBytes(edge, tile).equals(hashTileBytes(full, tile))).toBe(true);
          }
        },
      ),
      { seed: 20261124, numRuns: 25 },
    );
  });

  it('says plainly what it does not hold: an older leaf, or a tile that is too short', () => {
    const full = new MerkleTree();
    for (let i = 0; i < 300; i++) full.append(leafHash(Buffer.from(String(i))));
    const edge = MerkleTree.fromRightEdge(300, partialTiles(full, 300));
    expect(() => edge.leaf(3)).toThrow(/not held/);
    expect(() => edge.inclusionProof(3)).toThrow(/not held/);
    expect(() => MerkleTree.fromRightEdge(300, () => Buffer.alloc(32))).toThrow(/holds 1 hashes; a tree of 300 leaves needs 44/);
    expect(() => MerkleTree.fromRightEdge(300, () => null)).toThrow(/holds no hashes/);
  });
});
