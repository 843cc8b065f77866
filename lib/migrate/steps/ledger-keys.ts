import { paginateQuery, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { deleteItems, putItems } from '../../../functions/store/dynamodb/put-items';
import { LEDGER_ITEM_SK, LEDGER_JOURNAL_PK, LEDGER_PK, ledgerCheckpointPk, ledgerJournalChunkPk, ledgerTilePk } from '../../../functions/store/layout';
import type { MigrationStep } from '../step';

type Item = Record<string, AttributeValue>;

const TILE_WIDTH = 256;
const HASH_BYTES = 32;

/**
 * The ledger's items out of the one partition `L#LOG` (everything but the head stays there):
 *   T#<level>#<index>   hash tile        -> L#T#<level>#<index> / #
 *   C#<size>            checkpoint       -> L#C#<size> / #
 *   J#                  journal header   -> L#J / #
 *   J#<chunk>           journal chunk    -> L#J#<the header's size>#<chunk> / # (unfinished), removed (done)
 *   E#<index>           leaf             -> removed: its hash is in the level-0 tile, checked first
 * Each moved item is written under its new key before the old one is deleted, so a run stopped at
 * any point is finished by the next. Runs under the ledger's lease (lib/migrate/index.ts).
 */
export const ledgerKeys: MigrationStep = async ({ client, table }) => {
  const old: Item[] = [];
  const pages = paginateQuery(
    { client },
    { TableName: table, KeyConditionExpression: 'pk = :pk AND sk > :head', ExpressionAttributeValues: { ':pk': { S: LEDGER_PK }, ':head': { S: '#' } }, ConsistentRead: true },
  );
  for await (const page of pages) old.push(...(page.Items ?? []));
  if (old.length === 0) return 0;

  const header = old.find((item) => item.sk!.S === 'J#');
  const moved: Item[] = [];
  const tiles = new Map<number, Uint8Array>();
  for (const item of old) {
    const sk = item.sk!.S!;
    const { pk: _pk, sk: _sk, ...rest } = item;
    if (sk.startsWith('T#')) {
      const [, level, index] = sk.split('#');
      moved.push({ ...rest, pk: { S: ledgerTilePk(Number(level), Number(index)) }, sk: { S: LEDGER_ITEM_SK } });
      if (Number(level) === 0) tiles.set(Number(index), item.hashes!.B!);
    } else if (sk.startsWith('C#')) moved.push({ ...rest, pk: { S: ledgerCheckpointPk(Number(sk.slice(2))) }, sk: { S: LEDGER_ITEM_SK } });
    else if (sk === 'J#') moved.push({ ...rest, pk: { S: LEDGER_JOURNAL_PK }, sk: { S: LEDGER_ITEM_SK } });
    // The chunks of an unfinished journal move with it; a finished journal's are only removed.
    else if (sk.startsWith('J#') && header && header.done?.BOOL !== true) moved.push({ ...rest, pk: { S: ledgerJournalChunkPk(Number(header.treeSize!.N), Number(sk.slice(2))) }, sk: { S: LEDGER_ITEM_SK } });
  }
  // Each leaf must be the hash its level-0 tile holds (the tile is what the log is read from now); one that is not stops the migration before anything moves.
  for (const item of old.filter((i) => i.sk!.S!.startsWith('E#'))) {
    const index = Number(item.sk!.S!.slice(2));
    const tile = tiles.get(Math.floor(index / TILE_WIDTH));
    const at = (index % TILE_WIDTH) * HASH_BYTES;
    if (!tile || !Buffer.from(tile.subarray(at, at + HASH_BYTES)).equals(Buffer.from(item.leafHash!.B!))) {
      throw new Error(`leaf ${index} is not the hash its level-0 tile holds: the table's log is not whole, nothing was moved`);
    }
  }
  await putItems(client, table, moved, undefined, { concurrency: 16 });
  await deleteItems(client, table, old.map((item) => ({ pk: item.pk!, sk: item.sk! })), 16);
  return old.length;
};
