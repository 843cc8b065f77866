import { CACHE_CONTROL } from '../../contract/caching';
import {
  CHECKPOINT_HISTORY_DIR,
  CHECKPOINT_PATH,
  checkpointHistoryPath,
  encodeEntryBundle,
  entriesStart,
  hashesAtLevel,
  hashTileBytes,
  parseTilePath,
  TileError,
  tilePath,
  tilesAddedBetween,
  TILE_WIDTH,
  type TreeHashes,
} from '#verify/node/tlog-tiles';

/**
 * The ledger's C2SP tlog-tiles log as the service writes and serves it: the resources a batch
 * adds when the tree grows from one size to another, and the headers they are served with. The
 * writers (a folder locally, the catalogue bucket on AWS) only store what `tileResources` returns.
 * The format itself (paths, tiles, entry bundles), which monitors read too, is the verifier
 * package's (packages/verify/src/node/tlog-tiles.ts).
 */

/**
 * The partial hash tile of each level of a tree of `size` leaves, lowest level first: the tree's
 * right edge, from which a writer opens it (a level whose hashes fill whole tiles has none).
 */
export function partialHashTiles(size: number): Array<{ level: number; index: number; width: number }> {
  const tiles: Array<{ level: number; index: number; width: number }> = [];
  for (let level = 0; hashesAtLevel(size, level) > 0; level++) {
    const hashes = hashesAtLevel(size, level);
    if (hashes % TILE_WIDTH > 0) tiles.push({ level, index: Math.floor(hashes / TILE_WIDTH), width: hashes % TILE_WIDTH });
  }
  return tiles;
}

/** One static resource under the log's prefix; `immutable` ones never change once written. */
export interface LogResource {
  path: string;
  bytes: Buffer;
  immutable: boolean;
}

export interface TileBatch {
  /** The tree after the batch (its size is the new size). */
  tree: TreeHashes;
  /** The size before the batch (0 for a new log). */
  oldSize: number;
  /**
   * The leaf data of entries `entriesStart(oldSize)` … `tree.size - 1`: the entries already in the
   * old rightmost, partial bundle, then the new ones.
   */
  entries: readonly Uint8Array[];
  /** The signed checkpoint note for `tree.size`. */
  checkpoint: string;
}

/**
 * The resources a batch writes when the tree grows from `oldSize` to `tree.size`: every new or
 * grown hash tile and entry bundle (growthResources), then its checkpoints (checkpointResources).
 * Writers store them in this order, so the checkpoint never names tiles not yet there.
 */
export function tileResources(batch: TileBatch): LogResource[] {
  return [...growthResources(batch), ...checkpointResources(batch.tree.size, batch.checkpoint)];
}

/**
 * Every new or grown hash tile and entry bundle of a batch (full ones immutable, partial ones at
 * their own `.p/<W>` path): none depends on the checkpoint's signature.
 */
export function growthResources(batch: Omit<TileBatch, 'checkpoint'>): LogResource[] {
  const { tree, oldSize } = batch;
  const newSize = tree.size;
  const first = entriesStart(oldSize);
  if (batch.entries.length !== newSize - first) {
    throw new TileError(`a batch from ${oldSize} to ${newSize} needs entries ${first}..${newSize - 1} (${newSize - first}), not ${batch.entries.length}`);
  }
  const resources: LogResource[] = tilesAddedBetween(oldSize, newSize).map((tile) => {
    const start = tile.index * TILE_WIDTH;
    const bytes = tile.level === 'entries' ? encodeEntryBundle(batch.entries.slice(start - first, start - first + tile.width)) : hashTileBytes(tree, tile);
    return { path: tilePath(tile), bytes, immutable: tile.width === TILE_WIDTH };
  });
  return resources;
}

/**
 * The checkpoint of a log of `size` leaves at `checkpoints/<size>` and, last, `checkpoint`: both
 * mutable (witnesses' cosignatures are added after the log signs: lib/ledger/cosign-log.ts); none
 * for an empty log.
 */
export function checkpointResources(size: number, checkpoint: string): LogResource[] {
  if (size === 0) return [];
  const note = Buffer.from(checkpoint, 'utf8');
  return [
    { path: checkpointHistoryPath(size), bytes: note, immutable: false },
    { path: CHECKPOINT_PATH, bytes: note, immutable: false },
  ];
}

/**
 * Cache lifetimes, from the caching classes of the log's routes (functions/contract/caching.ts):
 * full tiles and bundles never change; partial tiles go away once full; the checkpoint changes
 * with every batch; a past checkpoint keeps its text but may gain cosignatures.
 */
export const IMMUTABLE_CACHE_CONTROL = CACHE_CONTROL.immutable;
export const PARTIAL_TILE_CACHE_CONTROL = CACHE_CONTROL['partial-tile'];
export const CHECKPOINT_CACHE_CONTROL = CACHE_CONTROL.checkpoint;
export const CHECKPOINT_HISTORY_CACHE_CONTROL = CACHE_CONTROL.published;

export interface ResourceHeaders {
  contentType: string;
  cacheControl: string;
}

/** The headers a log resource is served with, the same locally and from the bucket (set as object metadata). */
export function logResourceHeaders(logPath: string): ResourceHeaders {
  // A log that succeeded another after a key change is served below logs/<id>/ (docs/ledger.md#the-urls), with the same headers.
  const path = logPath.replace(/^logs\/[0-9a-f]{16}\//, '');
  if (path === CHECKPOINT_PATH) return { contentType: 'text/plain; charset=utf-8', cacheControl: CHECKPOINT_CACHE_CONTROL };
  if (new RegExp(`^${CHECKPOINT_HISTORY_DIR}/[1-9][0-9]{0,15}$`).test(path)) return { contentType: 'text/plain; charset=utf-8', cacheControl: CHECKPOINT_HISTORY_CACHE_CONTROL };
  const tile = parseTilePath(path);
  if (!tile) throw new TileError(`${path} is not a resource of the log`);
  return { contentType: 'application/octet-stream', cacheControl: tile.width === TILE_WIDTH ? IMMUTABLE_CACHE_CONTROL : PARTIAL_TILE_CACHE_CONTROL };
}

