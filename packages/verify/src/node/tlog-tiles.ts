import { HASH_SIZE } from '../checks/merkle';

/**
 * C2SP tlog-tiles (https://c2sp.org/tlog-tiles): the log served as static resources under a URL
 * prefix. The format, as both sides read it: paths, the tiles a tree of a given size is made of,
 * entry bundles and hash tiles. The monitor (./monitor.ts) reads a log with it; the service's
 * writer (functions/domain/ledger/tiles.ts) writes one with it. Pure; Buffer-based (Node.js).
 *
 *   <prefix>checkpoint                    the latest signed checkpoint (mutable)
 *   <prefix>tile/<L>/<N>[.p/<W>]          hash tiles of height 8: 256 hashes of 32 bytes when full
 *   <prefix>tile/entries/<N>[.p/<W>]      entry bundles: big-endian uint16 length ‖ entry, repeated
 *
 * Hash i of tile N at level L is MTH(D[(N·256 + i)·256^L : (N·256 + i + 1)·256^L]).
 */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 1 << TILE_HEIGHT;
/** tlog-tiles levels are 0..63. */
export const MAX_TILE_LEVEL = 63;
/** An entry bundle's length prefix is a uint16. */
export const MAX_ENTRY_BYTES = 0xffff;
export const CHECKPOINT_PATH = 'checkpoint';
/** The log's own history of checkpoints, one per published size (an extension under the prefix; not part of tlog-tiles). */
export const CHECKPOINT_HISTORY_DIR = 'checkpoints';

export class TileError extends Error {
  override name = 'TileError';
}

/** A hash tile (level >= 0) or an entry bundle (level 'entries'); width 1..256, 256 = full. */
export interface TileCoordinate {
  level: number | 'entries';
  index: number;
  width: number;
}

const isWhole = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;

/** `<N>` of a tile path: zero-padded 3-digit elements, all but the last prefixed with x (1234067 → x001/x234/067). */
export function tileIndexPath(index: number): string {
  if (!isWhole(index)) throw new TileError(`a tile index is a whole number, not ${index}`);
  const groups: string[] = [];
  let rest = index;
  do {
    groups.unshift(String(rest % 1000).padStart(3, '0'));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
}

/** The folder of a log's tiles and entry bundles below its own (C2SP tlog-tiles: tile/<L>/<N>, tile/entries/<N>); the checkpoint lies beside it. */
export const TILES_FOLDER = 'tile/';

export function tilePath(tile: TileCoordinate): string {
  if (tile.level !== 'entries' && !(isWhole(tile.level) && tile.level <= MAX_TILE_LEVEL)) throw new TileError(`tile level ${tile.level} is not 0..${MAX_TILE_LEVEL}`);
  if (!Number.isInteger(tile.width) || tile.width < 1 || tile.width > TILE_WIDTH) throw new TileError(`tile width ${tile.width} is not 1..${TILE_WIDTH}`);
  const partial = tile.width < TILE_WIDTH ? `.p/${tile.width}` : '';
  return `${TILES_FOLDER}${tile.level}/${tileIndexPath(tile.index)}${partial}`;
}

const TILE_PATH = /^tile\/(0|[1-9][0-9]?|entries)\/((?:x[0-9]{3}\/)*)([0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/;

/** Parses a tile or entry bundle path (relative to the prefix); null when it is not one in canonical form. */
export function parseTilePath(path: string): TileCoordinate | null {
  const m = TILE_PATH.exec(path);
  if (!m) return null;
  const level = m[1] === 'entries' ? 'entries' : Number(m[1]);
  if (level !== 'entries' && level > MAX_TILE_LEVEL) return null;
  const groups = [...m[2].split('/').filter(Boolean).map((g) => g.slice(1)), m[3]];
  // A leading x000 group would be a second spelling of the same index.
  if (groups.length > 1 && groups[0] === '000') return null;
  const index = groups.reduce((n, group) => n * 1000 + Number(group), 0);
  const width = m[4] === undefined ? TILE_WIDTH : Number(m[4]);
  if (!isWhole(index) || (m[4] !== undefined && width >= TILE_WIDTH)) return null;
  return { level, index, width };
}

/** Number of hashes at tile level `level` for a tree of `size` leaves: floor(size / 256^level). */
export function hashesAtLevel(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** level);
}

/**
 * The tiles (hash tiles of every level, then entry bundles) that make up a tree of `newSize`
 * leaves and were not already part of the tree of `oldSize` leaves: the rightmost, growing tile
 * of each level and every tile after it. Empty when nothing grew.
 */
export function tilesAddedBetween(oldSize: number, newSize: number): TileCoordinate[] {
  if (!isWhole(oldSize) || !isWhole(newSize) || oldSize > newSize) throw new TileError(`a log grows from ${oldSize} to ${newSize}: not a growth`);
  const tiles: TileCoordinate[] = [];
  const entries: TileCoordinate[] = [];
  for (let level = 0; level <= MAX_TILE_LEVEL; level++) {
    const after = hashesAtLevel(newSize, level);
    if (after === 0) break;
    const before = hashesAtLevel(oldSize, level);
    if (after === before) continue;
    for (let index = Math.floor(before / TILE_WIDTH); index * TILE_WIDTH < after; index++) {
      const width = Math.min(TILE_WIDTH, after - index * TILE_WIDTH);
      tiles.push({ level, index, width });
      if (level === 0) entries.push({ level: 'entries', index, width });
    }
  }
  return [...tiles, ...entries];
}

/** Every tile of a tree of `size` leaves (what a monitor starting from nothing fetches). */
export const tilesOfTree = (size: number): TileCoordinate[] => tilesAddedBetween(0, size);

/** An entry bundle: each entry as a big-endian uint16 length followed by its bytes. */
export function encodeEntryBundle(entries: readonly Uint8Array[]): Buffer {
  if (entries.length === 0 || entries.length > TILE_WIDTH) throw new TileError(`an entry bundle holds 1..${TILE_WIDTH} entries, not ${entries.length}`);
  const size = entries.reduce((n, e) => n + 2 + e.length, 0);
  const out = Buffer.alloc(size);
  let at = 0;
  for (const [i, entry] of entries.entries()) {
    if (entry.length > MAX_ENTRY_BYTES) throw new TileError(`entry ${i} of the bundle has ${entry.length} bytes; an entry bundle holds at most ${MAX_ENTRY_BYTES}`);
    out.writeUInt16BE(entry.length, at);
    out.set(entry, at + 2);
    at += 2 + entry.length;
  }
  return out;
}

/** Splits an entry bundle into its entries; throws TileError on a truncated or overlong bundle. */
export function decodeEntryBundle(bytes: Uint8Array): Buffer[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: Buffer[] = [];
  let at = 0;
  while (at < buffer.length) {
    if (at + 2 > buffer.length) throw new TileError(`the entry bundle ends inside the length of entry ${entries.length} (byte ${at})`);
    const length = buffer.readUInt16BE(at);
    if (at + 2 + length > buffer.length) throw new TileError(`entry ${entries.length} of the bundle says ${length} bytes but the bundle ends first (byte ${at})`);
    entries.push(Buffer.from(buffer.subarray(at + 2, at + 2 + length)));
    at += 2 + length;
    if (entries.length > TILE_WIDTH) throw new TileError(`the entry bundle holds more than ${TILE_WIDTH} entries`);
  }
  return entries;
}

/** Splits a hash tile into its hashes; throws TileError when its length is not a whole number of hashes. */
export function tileHashes(bytes: Uint8Array): Buffer[] {
  if (bytes.length === 0 || bytes.length % HASH_SIZE !== 0 || bytes.length > TILE_WIDTH * HASH_SIZE) {
    throw new TileError(`a hash tile holds 1..${TILE_WIDTH} hashes of ${HASH_SIZE} bytes; this one has ${bytes.length} bytes`);
  }
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += HASH_SIZE) out.push(Buffer.from(bytes.subarray(at, at + HASH_SIZE)));
  return out;
}

/**
 * The hashes of the log's tree: `hash(height, index)` is MTH of the complete, aligned subtree of
 * 2^height leaves starting at index · 2^height. MerkleTree (./merkle-tree.ts) keeps them.
 */
export interface TreeHashes {
  readonly size: number;
  hash(height: number, index: number): Uint8Array;
}

/** The bytes of a hash tile of the tree: its `width` hashes of height 8·L, concatenated. */
export function hashTileBytes(tree: TreeHashes, tile: TileCoordinate): Buffer {
  if (tile.level === 'entries') throw new TileError('an entry bundle is not a hash tile');
  const bytes = Buffer.alloc(tile.width * HASH_SIZE);
  const start = tile.index * TILE_WIDTH;
  for (let i = 0; i < tile.width; i++) bytes.set(tree.hash(TILE_HEIGHT * tile.level, start + i), i * HASH_SIZE);
  return bytes;
}

/** The index of the first entry a batch from `oldSize` rewrites: the start of the old partial bundle. */
export const entriesStart = (oldSize: number): number => Math.floor(oldSize / TILE_WIDTH) * TILE_WIDTH;

export const checkpointHistoryPath = (treeSize: number): string => {
  if (!isWhole(treeSize) || treeSize === 0) throw new TileError(`no checkpoint for a tree of size ${treeSize}`);
  return `${CHECKPOINT_HISTORY_DIR}/${treeSize}`;
};

