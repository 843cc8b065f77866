import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BATCH_GET_KEYS, batchGetItems } from '../batch-get';
import { LeaseLostError, LedgerLockedError, StoreUnavailable } from '../errors';
import { LEDGER_HEAD_SK, LEDGER_ITEM_SK, LEDGER_PK, ledgerCheckpointPk, ledgerTilePk } from '../layout';
import { tileName, type LedgerHead, type LedgerLock, type PublishedHead, type PublishedLedger } from '../ports/ledger';

type Item = Record<string, AttributeValue>;

const headKey = (): Item => ({ pk: { S: LEDGER_PK }, sk: { S: LEDGER_HEAD_SK } });

function headFrom(item: Item | undefined): LedgerHead | null {
  if (!item) return null;
  return {
    origin: item.origin?.S ?? null,
    treeSize: item.treeSize?.N ? Number(item.treeSize.N) : 0,
    checkpoint: item.checkpoint?.S ?? null,
    updatedAt: item.updatedAt?.S ?? null,
    lock: item.lockId?.S ? { id: item.lockId.S, since: item.lockedAt?.S ?? 'unknown', until: item.lockUntil?.S ?? null } : null,
  };
}

/**
 * The log's head in the table (layout.ts: pk = "L#LOG", sk = "#"): its size, signed checkpoint and
 * the single writer's lease, changed only by conditional UpdateItems, so every change of it is a
 * compare-and-swap DynamoDB serializes. A few writes a batch: the one key every batch touches.
 * The checkpoint history is one item per published size, each under its own key.
 */
export function dynamoLedgerLock(client: DynamoDBClient, table: string): LedgerLock {
  const read = async () => headFrom((await client.send(new GetItemCommand({ TableName: table, Key: headKey(), ConsistentRead: true }))).Item);
  return {
    read,
    async acquire(lockId, lease) {
      const until = new Date(Date.parse(lease.at) + lease.leaseMs).toISOString();
      try {
        const out = await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: headKey(),
            UpdateExpression: 'SET lockId = :id, lockedAt = :at, lockUntil = :until',
            // No lease held, or the one held ran out (a lease without an end, from a version that had none, needs force), or the one named.
            ...(lease.force ? {} : { ConditionExpression: `attribute_not_exists(lockId) OR lockUntil < :at${lease.replacing ? ' OR lockId = :replacing' : ''}` }),
            ExpressionAttributeValues: {
              ':id': { S: lockId },
              ':at': { S: lease.at },
              ':until': { S: until },
              ...(lease.replacing && !lease.force ? { ':replacing': { S: lease.replacing } } : {}),
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return headFrom(out.Attributes)!;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException') {
          const current = await read();
          throw new LedgerLockedError(current?.lock?.since ?? 'an unknown time', current?.lock?.until ?? null, current?.lock?.id ?? null);
        }
        throw error;
      }
    },
    async recordCheckpoint(head) {
      await client.send(new PutItemCommand({ TableName: table, Item: ledgerCheckpointItem(head) }));
    },
    async publish(lockId, head) {
      await client
        .send(
        new UpdateItemCommand({
          TableName: table,
          Key: headKey(),
          UpdateExpression: 'SET origin = :origin, treeSize = :size, checkpoint = :checkpoint, updatedAt = :at',
          ConditionExpression: 'lockId = :id',
          ExpressionAttributeValues: {
            ':origin': { S: head.origin },
            ':size': { N: String(head.treeSize) },
            ':checkpoint': { S: head.checkpoint },
            ':at': { S: head.at },
            ':id': { S: lockId },
          },
        }),
      )
        .catch((error: Error) => {
          throw error.name === 'ConditionalCheckFailedException' ? new LeaseLostError(lockId) : error;
        });
    },
    async release(lockId) {
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: headKey(),
            UpdateExpression: 'REMOVE lockId, lockedAt, lockUntil',
            ConditionExpression: 'lockId = :id',
            ExpressionAttributeValues: { ':id': { S: lockId } },
          }),
        );
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      }
    },
  };
}

/**
 * The read path's view of the log in the table: the head in one GetItem, and for a consistency
 * proof the head and the hash tiles it is built from in one BatchGetItem (the keys follow from the
 * two sizes asked, so the head need not be read first), asked again at once for keys left unprocessed.
 */
export function dynamoPublishedLedger(client: DynamoDBClient, table: string): PublishedLedger {
  return {
    async head() {
      let item: Item | undefined;
      try {
        item = (await client.send(new GetItemCommand({ TableName: table, Key: headKey() }))).Item;
      } catch (error) {
        throw new StoreUnavailable('GetItem ledger head', { cause: error });
      }
      const head = headFrom(item);
      return head && head.checkpoint ? head : null;
    },
    async headWithTiles(tiles) {
      if (tiles.length + 1 > BATCH_GET_KEYS) throw new StoreUnavailable(`${tiles.length} tiles are more than one request reads`);
      const names = new Map(tiles.map((t) => [ledgerTilePk(t.level, t.index), tileName(t)]));
      const keys: Item[] = [headKey(), ...[...names.keys()].map((pk) => ({ pk: { S: pk }, sk: { S: LEDGER_ITEM_SK } }))];
      let items: Item[];
      try {
        // It answers a person, not a batch: three requests at most, without waiting between them.
        items = await batchGetItems(client, table, keys, { consistentRead: false, maxAttempts: 3, backoffMs: 0 });
      } catch (error) {
        if (error instanceof StoreUnavailable) throw error;
        throw new StoreUnavailable('BatchGetItem ledger tiles', { cause: error });
      }
      const found = new Map<string, Uint8Array>();
      let head: LedgerHead | null = null;
      for (const item of items) {
        if (item.pk?.S === LEDGER_PK && item.sk?.S === LEDGER_HEAD_SK) head = headFrom(item);
        else if (item.pk?.S && item.hashes?.B) found.set(names.get(item.pk.S)!, item.hashes.B);
      }
      return { head, tiles: found };
    },
  };
}

/** The checkpoint history's item for one published size. */
export function ledgerCheckpointItem(head: { treeSize: number; checkpoint: string; at: string }): Item {
  return { pk: { S: ledgerCheckpointPk(head.treeSize) }, sk: { S: LEDGER_ITEM_SK }, checkpoint: { S: head.checkpoint }, at: { S: head.at } };
}

/** The head item as a writer leaves it once it has published and released its lease (for a table made from an export). */
export function ledgerHeadItem(head: PublishedHead): Item {
  return { ...headKey(), origin: { S: head.origin }, treeSize: { N: String(head.treeSize) }, checkpoint: { S: head.checkpoint }, updatedAt: { S: head.at } };
}
