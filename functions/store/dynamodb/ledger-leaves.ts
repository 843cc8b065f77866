import { paginateQuery, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { batchGetItems, WRITER_READ } from '../batch-get';
import { LEDGER_PK, ledgerLeafSk, ledgerTileSk } from '../layout';
import type { HashTileToStore, LeafStore, LeafToStore } from '../ports/ledger';
import { putItems } from './put-items';

type Item = Record<string, AttributeValue>;

/**
 * The log's leaves and hash tiles in the table (layout.ts), beside its head: leaves read a page at
 * a time (a writer checks a log of any size in bounded memory), the edge tiles in one strongly
 * consistent BatchGetItem, new leaves and tiles in BatchWriteItems.
 */
export function dynamoLeafStore(client: DynamoDBClient, table: string): LeafStore {
  return {
    async forEachLeaf(treeSize, onLeaf, onProgress, from = 0) {
      if (treeSize <= from) return;
      const pages = paginateQuery(
        { client },
        {
          TableName: table,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
          ExpressionAttributeValues: { ':pk': { S: LEDGER_PK }, ':first': { S: ledgerLeafSk(from) }, ':last': { S: ledgerLeafSk(treeSize - 1) } },
          ProjectionExpression: 'sk, leafHash',
          ConsistentRead: true,
        },
      );
      let next = from;
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          if (item.sk?.S !== ledgerLeafSk(next) || !item.leafHash?.B) throw new Error(`the ledger is missing leaf ${next} (found ${item.sk?.S ?? 'nothing'})`);
          onLeaf(Buffer.from(item.leafHash.B), next++);
        }
        onProgress?.(next, treeSize);
      }
      if (next !== treeSize) throw new Error(`the ledger head says ${treeSize} leaves but ${next} are stored`);
    },
    async readEdgeTiles(tiles) {
      // A tile stored wider than the published size (grown by a batch that stopped before publishing)
      // is returned as stored; the caller takes the hashes the size covers, which that batch could not change.
      const levelOf = new Map(tiles.map((t) => [ledgerTileSk(t.level, t.index), t.level]));
      const items = await batchGetItems(client, table, tiles.map((t) => ({ pk: { S: LEDGER_PK }, sk: { S: ledgerTileSk(t.level, t.index) } })), WRITER_READ);
      return new Map(items.flatMap((item) => (item.sk?.S && item.hashes?.B ? [[levelOf.get(item.sk.S)!, item.hashes.B] as const] : [])));
    },
    async write(leaves, tiles, onProgress) {
      const items = [...ledgerLeafItems(leaves), ...ledgerTileItems(tiles)];
      await putItems(client, table, items, (written) => onProgress?.(written, items.length));
    },
  };
}

export function ledgerLeafItems(leaves: readonly LeafToStore[]): Item[] {
  return leaves.map((leaf) => ({
    pk: { S: LEDGER_PK },
    sk: { S: ledgerLeafSk(leaf.index) },
    leafHash: { B: leaf.leafHash },
    reference: { S: leaf.reference },
    version: { N: String(leaf.version) },
  }));
}

export function ledgerTileItems(tiles: readonly HashTileToStore[]): Item[] {
  return tiles.map((tile) => ({ pk: { S: LEDGER_PK }, sk: { S: ledgerTileSk(tile.level, tile.index) }, hashes: { B: tile.hashes } }));
}
