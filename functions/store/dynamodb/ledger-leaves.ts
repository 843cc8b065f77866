import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BATCH_GET_KEYS, batchGetItems, WRITER_READ } from '../batch-get';
import { LEDGER_ITEM_SK, ledgerTilePk } from '../layout';
import type { HashTileToStore, LeafStore } from '../ports/ledger';
import { chainLocator, type LogLocator } from './ledger-chain';
import { putItems } from './put-items';

type Item = Record<string, AttributeValue>;

/** Leaves in one level-0 hash tile (C2SP tlog-tiles: 2^8 hashes of 32 bytes). */
const TILE_WIDTH = 256;
const HASH_BYTES = 32;
/** Tile writes in flight at once: a batch grows a few tiles, a load thousands. */
const WRITE_CONCURRENCY = 16;

const tileKey = (level: number, index: number, keys?: string): Item => ({ pk: { S: ledgerTilePk(level, index, keys) }, sk: { S: LEDGER_ITEM_SK } });

/**
 * The log's hash tiles in the table, each in a partition of its own (layout.ts): no key takes
 * every batch's writes. The leaves are the hashes of the level-0 tiles, so no item is kept per
 * leaf: a writer reads leaves 100 tiles (25,600 leaves) a BatchGetItem, in bounded memory; the
 * edge tiles in one strongly consistent BatchGetItem; new tiles in BatchWriteItems sent together.
 */
export function dynamoLeafStore(client: DynamoDBClient, table: string, locator: LogLocator = chainLocator(client, table)): LeafStore {
  return {
    async forEachLeaf(treeSize, onLeaf, onProgress, from = 0) {
      if (treeSize <= from) return;
      const first = Math.floor(from / TILE_WIDTH);
      const last = Math.floor((treeSize - 1) / TILE_WIDTH);
      let next = from;
      for (let page = first; page <= last; page += BATCH_GET_KEYS) {
        const indexes = Array.from({ length: Math.min(BATCH_GET_KEYS, last - page + 1) }, (_, i) => page + i);
        const items = await batchGetItems(client, table, indexes.map((index) => tileKey(0, index, locator.current())), WRITER_READ);
        const byIndex = new Map(items.map((item) => [Number(item.pk!.S!.slice(item.pk!.S!.lastIndexOf('#') + 1)), item.hashes?.B] as const));
        for (const index of indexes) {
          const hashes = byIndex.get(index);
          const end = Math.min(treeSize, (index + 1) * TILE_WIDTH);
          for (; next < end; next++) {
            const at = (next - index * TILE_WIDTH) * HASH_BYTES;
            if (!hashes || hashes.length < at + HASH_BYTES) throw new Error(`the ledger is missing leaf ${next} (its hash tile 0/${index} holds ${hashes ? hashes.length / HASH_BYTES : 'no'} hashes)`);
            onLeaf(Buffer.from(hashes.subarray(at, at + HASH_BYTES)), next);
          }
        }
        onProgress?.(next, treeSize);
      }
    },
    async readEdgeTiles(tiles) {
      // A tile stored wider than the published size (grown by a batch that stopped before publishing)
      // is returned as stored; the caller takes the hashes the size covers, which that batch could not change.
      const levelOf = new Map(tiles.map((t) => [ledgerTilePk(t.level, t.index, locator.current()), t.level]));
      const items = await batchGetItems(client, table, tiles.map((t) => tileKey(t.level, t.index, locator.current())), WRITER_READ);
      return new Map(items.flatMap((item) => (item.pk?.S && item.hashes?.B ? [[levelOf.get(item.pk.S)!, item.hashes.B] as const] : [])));
    },
    async write(_leaves, tiles, onProgress) {
      // The leaves are in the level-0 tiles: only the tiles are stored.
      const items = ledgerTileItems(tiles, locator.current());
      await putItems(client, table, items, (written) => onProgress?.(written, items.length), { concurrency: WRITE_CONCURRENCY });
    },
  };
}

export function ledgerTileItems(tiles: readonly HashTileToStore[], keys?: string): Item[] {
  return tiles.map((tile) => ({ ...tileKey(tile.level, tile.index, keys), hashes: { B: tile.hashes } }));
}
