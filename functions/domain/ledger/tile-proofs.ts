import { consistencyProofFrom } from './consistency';
import { largestPowerOfTwoBelow } from '#verify/node/merkle-tree';
import { nodeHash } from '#verify/node/hashing';
import { HASH_SIZE } from '#verify/checks/merkle';
import { TILE_HEIGHT, TILE_WIDTH } from '#verify/node/tlog-tiles';

/**
 * Consistency proofs from the log's hash tiles instead of its leaves: every subtree root a proof
 * needs is an aligned node of the tree, and every node is in a tile (height a multiple of 8) or
 * hashed up from at most 128 hashes of one tile. A proof between any two sizes needs a few tiles
 * per tile level (about 3 levels for a billion entries), so it is read in one request and built
 * in O(log n) hashes, whatever the log's size.
 */
export interface TileKey {
  /** Tile level: the tile holds nodes of height 8 · level. */
  level: number;
  index: number;
}

export class MissingTileError extends Error {
  override name = 'MissingTileError';
}

const tileId = (level: number, index: number): string => `${level}/${index}`;

/** The aligned nodes (height, index) whose hashes make MTH(D[start:end]), as RFC 9162 splits it. */
function nodesOf(start: number, end: number, out: Array<[height: number, index: number]>): void {
  const n = end - start;
  if ((n & (n - 1)) === 0 && start % n === 0) {
    out.push([Math.log2(n), start / n]);
    return;
  }
  const k = largestPowerOfTwoBelow(n);
  nodesOf(start, start + k, out);
  nodesOf(start + k, end, out);
}

/** The tile holding the hashes a node is built from. */
function tileOf(height: number, index: number): TileKey {
  const level = Math.floor(height / TILE_HEIGHT);
  const first = index * 2 ** (height % TILE_HEIGHT);
  return { level, index: Math.floor(first / TILE_WIDTH) };
}

/** The tiles a consistency proof between two tree sizes reads (each once). */
export function tilesForConsistency(from: number, to: number): TileKey[] {
  const nodes: Array<[number, number]> = [];
  consistencyProofFrom(from, to, (start, end) => {
    nodesOf(start, end, nodes);
    return Buffer.alloc(HASH_SIZE);
  });
  const tiles = new Map<string, TileKey>();
  for (const [height, index] of nodes) {
    const tile = tileOf(height, index);
    tiles.set(tileId(tile.level, tile.index), tile);
  }
  return [...tiles.values()];
}

/** A tile's hashes by level and index (partial tiles hold their first `width` hashes). */
export type TileSource = (level: number, index: number) => Uint8Array | undefined;

function nodeFromTiles(height: number, index: number, tiles: TileSource): Buffer {
  const { level, index: tileIndex } = tileOf(height, index);
  const bytes = tiles(level, tileIndex);
  const below = height % TILE_HEIGHT;
  const count = 2 ** below;
  const offset = index * count - tileIndex * TILE_WIDTH;
  if (!bytes || bytes.length < (offset + count) * HASH_SIZE) throw new MissingTileError(`tile ${level}/${tileIndex} does not hold hashes ${offset}..${offset + count - 1}`);
  let row: Buffer[] = [];
  for (let i = 0; i < count; i++) row.push(Buffer.from(bytes.subarray((offset + i) * HASH_SIZE, (offset + i + 1) * HASH_SIZE)));
  while (row.length > 1) {
    const up: Buffer[] = [];
    for (let i = 0; i < row.length; i += 2) up.push(nodeHash(row[i], row[i + 1]));
    row = up;
  }
  return row[0];
}

/** MTH(D[start:end]) from the tiles. */
function subtreeFromTiles(start: number, end: number, tiles: TileSource): Buffer {
  const nodes: Array<[number, number]> = [];
  nodesOf(start, end, nodes);
  // The nodes come left to right; MTH joins the last two first (the right edge is the ragged one).
  let root = nodeFromTiles(...nodes[nodes.length - 1], tiles);
  for (let i = nodes.length - 2; i >= 0; i--) root = nodeHash(nodeFromTiles(...nodes[i], tiles), root);
  return root;
}

/** PROOF(from, D[to]) of RFC 9162, from the tiles `tilesForConsistency(from, to)` names. */
export function consistencyProofFromTiles(from: number, to: number, tiles: TileSource): Buffer[] {
  return consistencyProofFrom(from, to, (start, end) => subtreeFromTiles(start, end, tiles));
}
