import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { leafHash, nodeHash } from '#verify/node/hashing';
import { decodeEntryBundle, encodeEntryBundle, entriesStart, parseTilePath, tileHashes, tilePath, tilesAddedBetween, tilesOfTree, TILE_WIDTH, type TileCoordinate } from '#verify/node/tlog-tiles';
import { logResourceHeaders, tileResources } from '../../functions/domain/ledger/tiles';
import { MerkleTree } from '#verify/node/merkle-tree';
import { LEAF_HASHES, LEAF_INPUTS, ROOTS } from '../support/rfc6962-vectors';

const SEED = 20261123;

const entryOf = (i: number) => Buffer.from(`{"entry":${i}}`);
function treeOf(entries: Buffer[]): MerkleTree {
  const tree = new MerkleTree();
  for (const e of entries) tree.append(leafHash(e));
  return tree;
}

/** MTH of a run of hashes (any length), as RFC 6962 §2.1 defines it: an independent fold for checking tiles. */
function mth(hashes: Buffer[]): Buffer {
  if (hashes.length === 1) return hashes[0];
  let k = 1;
  while (k * 2 < hashes.length) k *= 2;
  return nodeHash(mth(hashes.slice(0, k)), mth(hashes.slice(k)));
}

describe('tlog-tiles paths (the examples of c2sp.org/tlog-tiles)', () => {
  test('index 1234067 is x001/x234/067; small indexes are three digits', () => {
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe('tile/0/x001/x234/067');
    expect(tilePath({ level: 0, index: 0, width: 256 })).toBe('tile/0/000');
    expect(tilePath({ level: 3, index: 999, width: 256 })).toBe('tile/3/999');
    expect(tilePath({ level: 1, index: 1000, width: 17 })).toBe('tile/1/x001/000.p/17');
    // Tessera's published example of an entry bundle path: EntriesPath(1234067, 8).
    expect(tilePath({ level: 'entries', index: 1234067, width: 8 })).toBe('tile/entries/x001/x234/067.p/8');
  });

  test('paths parse back to their coordinates, and only the canonical spelling parses', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 63 }), fc.constant('entries' as const)), fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 1, max: 256 }), (level, index, width) => {
        const tile: TileCoordinate = { level, index, width };
        expect(parseTilePath(tilePath(tile))).toEqual(tile);
      }),
      { seed: SEED, numRuns: 500 },
    );
    for (const bad of ['tile/0/x000/001', 'tile/0/1', 'tile/00/000', 'tile/64/000', 'tile/0/000.p/256', 'tile/0/000.p/0', 'tile/0/000.p/007', 'tile/0/001/000', 'tile/data/000', '/tile/0/000']) {
      expect([bad, parseTilePath(bad)]).toEqual([bad, null]);
    }
  });

  test('a tree of 70,000: 273 full level-0 tiles, a partial one of 112, one full level-1 tile, a partial one of 17, a partial level-2 tile of 1', () => {
    const tiles = tilesOfTree(70_000);
    const level = (l: number) => tiles.filter((t) => t.level === l);
    expect(level(0).filter((t) => t.width === 256)).toHaveLength(273);
    expect(level(0).filter((t) => t.width < 256)).toEqual([{ level: 0, index: 273, width: 112 }]);
    expect(level(1)).toEqual([
      { level: 1, index: 0, width: 256 },
      { level: 1, index: 1, width: 17 },
    ]);
    expect(level(2)).toEqual([{ level: 2, index: 0, width: 1 }]);
    expect(level(3)).toEqual([]);
    expect(tiles.filter((t) => t.level === 'entries')).toHaveLength(274);
  });

  test('a tree of 256: one full level-0 tile and a partial level-1 tile of width 1', () => {
    expect(tilesOfTree(256)).toEqual([
      { level: 0, index: 0, width: 256 },
      { level: 1, index: 0, width: 1 },
      { level: 'entries', index: 0, width: 256 },
    ]);
  });

  test('growth rewrites the rightmost tile of each level and adds what follows; nothing when nothing grew', () => {
    expect(tilesAddedBetween(300, 300)).toEqual([]);
    expect(tilesAddedBetween(300, 301)).toEqual([
      { level: 0, index: 1, width: 45 },
      { level: 'entries', index: 1, width: 45 },
    ]);
    expect(tilesAddedBetween(255, 513)).toEqual([
      { level: 0, index: 0, width: 256 },
      { level: 0, index: 1, width: 256 },
      { level: 0, index: 2, width: 1 },
      { level: 1, index: 0, width: 2 },
      { level: 'entries', index: 0, width: 256 },
      { level: 'entries', index: 1, width: 256 },
      { level: 'entries', index: 2, width: 1 },
    ]);
  });
});

describe('tile contents', () => {
  test("the RFC 6962 vectors: a level-0 tile holds the entries' leaf hashes and folds to the published root", () => {
    for (let n = 1; n <= 8; n++) {
      const tree = treeOf(LEAF_INPUTS.slice(0, n));
      const resources = tileResources({ tree, oldSize: 0, entries: LEAF_INPUTS.slice(0, n), checkpoint: 'c\n' });
      const tile = resources.find((r) => r.path === `tile/0/000.p/${n}`)!;
      expect(tile.immutable).toBe(false);
      const hashes = tileHashes(tile.bytes);
      expect(hashes[0].toString('hex')).toBe(ROOTS[0]);
      expect(hashes.map((h) => h.toString('hex'))).toEqual(LEAF_HASHES.slice(0, n));
      expect(mth(hashes).toString('hex')).toBe(ROOTS[n - 1]);
      expect(decodeEntryBundle(resources.find((r) => r.path === `tile/entries/000.p/${n}`)!.bytes)).toEqual(LEAF_INPUTS.slice(0, n));
    }
  });

  test('every hash of a level-L tile is the MTH of its 256^L leaves, and the tiles of every level rebuild the root', () => {
    const entries = Array.from({ length: 70_000 }, (_, i) => entryOf(i));
    const leaves = entries.map((e) => leafHash(e));
    const tree = treeOf(entries);
    const resources = new Map(tileResources({ tree, oldSize: 0, entries, checkpoint: 'note\n' }).map((r) => [r.path, r]));
    const level1 = tileHashes(resources.get('tile/1/000')!.bytes);
    for (const i of [0, 1, 100, 255]) expect(level1[i].equals(mth(leaves.slice(i * 256, (i + 1) * 256)))).toBe(true);
    const level2 = tileHashes(resources.get('tile/2/000.p/1')!.bytes);
    expect(level2[0].equals(mth(leaves.slice(0, 65_536)))).toBe(true);
    // The root of 70,000 from the tiles alone: the level-2 hash, then the 17 level-1 hashes of tile 1/1, then the 112 leaves.
    const right = [...tileHashes(resources.get('tile/1/001.p/17')!.bytes), mth(tileHashes(resources.get('tile/0/273.p/112')!.bytes))];
    expect(nodeHash(level2[0], nodeHash(mth(right.slice(0, 16)), mth(right.slice(16)))).equals(tree.root())).toBe(true);
    expect(resources.get('tile/0/000')!.immutable).toBe(true);
    expect(resources.get('tile/entries/272')!.bytes.equals(encodeEntryBundle(entries.slice(272 * 256, 273 * 256)))).toBe(true);
  });

  test('batches of random sizes write the same tiles as one batch: each full tile once, the final partial tiles and checkpoint', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 8 }), (batches) => {
        const total = batches.reduce((a, b) => a + b, 0);
        const entries = Array.from({ length: total }, (_, i) => entryOf(i));
        const tree = new MerkleTree();
        const written = new Map<string, Buffer>();
        let size = 0;
        for (const count of batches) {
          for (let i = size; i < size + count; i++) tree.append(leafHash(entries[i]));
          for (const r of tileResources({ tree, oldSize: size, entries: entries.slice(entriesStart(size), size + count), checkpoint: `${size + count}\n` })) {
            if (r.immutable && written.has(r.path)) expect(written.get(r.path)!.equals(r.bytes)).toBe(true);
            written.set(r.path, r.bytes);
          }
          size += count;
        }
        const once = new Map(tileResources({ tree, oldSize: 0, entries, checkpoint: `${total}\n` }).map((r) => [r.path, r.bytes]));
        for (const [path, bytes] of once) expect([path, written.get(path)?.equals(bytes)]).toEqual([path, true]);
        // Anything else written is a partial tile of an earlier size (or an earlier checkpoint), never a full one.
        for (const path of written.keys()) if (!once.has(path)) expect(/\.p\/\d+$|^checkpoints\//.test(path)).toBe(true);
        for (const r of tileResources({ tree, oldSize: 0, entries, checkpoint: `${total}\n` })) expect([r.path, r.immutable]).toEqual([r.path, !/\.p\/|checkpoint/.test(r.path)]);
      }),
      { seed: SEED, numRuns: 40 },
    );
  });

  test('entry bundles: uint16 big-endian lengths; truncated or overlong bundles are refused', () => {
    const bundle = encodeEntryBundle([Buffer.from('ab'), Buffer.alloc(0), Buffer.from('c')]);
    expect(bundle.toString('hex')).toBe('0002616200000001' + '63');
    expect(decodeEntryBundle(bundle).map((b) => b.toString())).toEqual(['ab', '', 'c']);
    expect(() => decodeEntryBundle(bundle.subarray(0, bundle.length - 1))).toThrow(/ends first/);
    expect(() => decodeEntryBundle(Buffer.from([0]))).toThrow(/inside the length/);
    expect(() => encodeEntryBundle([Buffer.alloc(65_536)])).toThrow(/at most 65535/);
  });

  test('headers: the checkpoint short-lived text, full tiles immutable, partial tiles short-lived', () => {
    expect(logResourceHeaders('checkpoint')).toEqual({ contentType: 'text/plain; charset=utf-8', cacheControl: 'public, max-age=5, must-revalidate' });
    expect(logResourceHeaders('tile/0/000').cacheControl).toContain('immutable');
    expect(logResourceHeaders('tile/entries/x001/000').contentType).toBe('application/octet-stream');
    expect(logResourceHeaders('tile/0/000.p/3').cacheControl).toBe('public, max-age=60');
    expect(logResourceHeaders('checkpoints/12').cacheControl).toBe('public, max-age=300');
    expect(() => logResourceHeaders('checkpoints/../tile')).toThrow();
    expect(() => logResourceHeaders('tile/0/1')).toThrow();
  });

  test('a SHA-256 sanity check of the leaf hash the vectors use', () => {
    expect(createHash('sha256').update(Buffer.from([0])).digest('hex')).toBe(ROOTS[0]);
    expect(TILE_WIDTH).toBe(256);
  });
});
