import { ConditionalCheckFailedException, GetItemCommand, PutItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BATCH_GET_KEYS, batchGetItems } from '../batch-get';
import { LeaseLostError, LedgerLockedError, StoreUnavailable } from '../errors';
import { FIRST_LOG_KEYS, LEDGER_HEAD_SK, LEDGER_ITEM_SK, ledgerCheckpointPk, ledgerHeadPk, ledgerTilePk } from '../layout';
import { tileName, type LedgerHead, type LedgerLease, type LedgerLock, type PublishedHead, type PublishedLedger } from '../ports/ledger';
import { chainLocator, followLogs, headFrom, LedgerRetiredError, type LogLocator } from './ledger-chain';

type Item = Record<string, AttributeValue>;

const headKey = (keys: string): Item => ({ pk: { S: ledgerHeadPk(keys) }, sk: { S: LEDGER_HEAD_SK } });

/**
 * The log's head in the table (layout.ts: pk = "L#LOG", sk = "#"): its size, signed checkpoint and
 * the single writer's lease, changed only by conditional UpdateItems, so every change of it is a
 * compare-and-swap DynamoDB serializes. A few writes a batch: the one key every batch touches.
 * The checkpoint history is one item per published size, each under its own key.
 */
export function dynamoLedgerLock(client: DynamoDBClient, table: string, locator: LogLocator = chainLocator(client, table)): LedgerLock {
  const headKey_ = () => headKey(locator.current());
  const readHere = async () => headFrom((await client.send(new GetItemCommand({ TableName: table, Key: headKey_(), ConsistentRead: true }))).Item, locator.current());
  /** After a key change the log located last may be retired: look the current one up, and say whether it moved. */
  const relocate = async () => {
    const before = locator.current();
    await locator.locate();
    return locator.current() !== before;
  };
  const read = async () => {
    const head = await readHere();
    return head?.successor && (await relocate()) ? readHere() : head;
  };
  const take = async (lockId: string, lease: LedgerLease) => {
    const until = new Date(Date.parse(lease.at) + lease.leaseMs).toISOString();
    const out = await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: headKey_(),
        // Each taking of the lease is counted: a warm writer tells by it whether another wrote since its last batch (record-tails.ts).
        UpdateExpression: 'SET lockId = :id, lockedAt = :at, lockUntil = :until ADD leasesTaken :one',
        // Never a retired log's (it has a successor); then no lease held, or the one held ran out (a lease without an end, from a version that had none, needs force), or the one named.
        ConditionExpression: `attribute_not_exists(successor)${lease.force ? '' : ` AND (attribute_not_exists(lockId) OR lockUntil < :at${lease.replacing ? ' OR lockId = :replacing' : ''})`}`,
        ExpressionAttributeValues: {
          ':id': { S: lockId },
          ':at': { S: lease.at },
          ':until': { S: until },
          ':one': { N: '1' },
          ...(lease.replacing && !lease.force ? { ':replacing': { S: lease.replacing } } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return headFrom(out.Attributes, locator.current())!;
  };
  return {
    read,
    async acquire(lockId, lease) {
      // The log located last is tried first: no look-up on a writer's usual path, one after a key change.
      for (let attempt = 0; ; attempt++) {
        try {
          return await take(lockId, lease);
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException')) throw error;
          const current = await readHere();
          if (current?.successor) {
            if (attempt === 0 && (await relocate())) continue;
            throw new LedgerRetiredError(current.origin, current.treeSize, current.successor);
          }
          throw new LedgerLockedError(current?.lock?.since ?? 'an unknown time', current?.lock?.until ?? null, current?.lock?.id ?? null);
        }
      }
    },
    async recordCheckpoint(head) {
      await client.send(new PutItemCommand({ TableName: table, Item: ledgerCheckpointItem(head, locator.current()) }));
    },
    async publish(lockId, head) {
      await client
        .send(
        new UpdateItemCommand({
          TableName: table,
          Key: headKey_(),
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
            Key: headKey_(),
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
      let logs: LedgerHead[];
      try {
        logs = await followLogs(client, table, false);
      } catch (error) {
        throw new StoreUnavailable('GetItem ledger head', { cause: error });
      }
      const head = logs.at(-1);
      return head && head.checkpoint ? { ...head, predecessors: logs.slice(0, -1) } : null;
    },
    async headWithTiles(tiles) {
      if (tiles.length + 1 > BATCH_GET_KEYS) throw new StoreUnavailable(`${tiles.length} tiles are more than one request reads`);
      // The first log's keys first: one BatchGetItem, as before any key change. A head that names a successor: the current log's.
      const first = await headAndTiles(client, table, tiles, FIRST_LOG_KEYS);
      if (!first.head?.successor) return first;
      let logKeys: string;
      try {
        logKeys = (await followLogs(client, table, false, true)).at(-1)?.keys ?? FIRST_LOG_KEYS;
      } catch (error) {
        throw new StoreUnavailable('GetItem ledger head', { cause: error });
      }
      return headAndTiles(client, table, tiles, logKeys);
    },
  };
}

/** One log's head and the hash tiles named, in one BatchGetItem. */
async function headAndTiles(client: DynamoDBClient, table: string, tiles: ReadonlyArray<{ level: number; index: number }>, logKeys: string): Promise<{ head: LedgerHead | null; tiles: Map<string, Uint8Array> }> {
  const names = new Map(tiles.map((t) => [ledgerTilePk(t.level, t.index, logKeys), tileName(t)]));
  const keys: Item[] = [headKey(logKeys), ...[...names.keys()].map((pk) => ({ pk: { S: pk }, sk: { S: LEDGER_ITEM_SK } }))];
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
    if (item.pk?.S === ledgerHeadPk(logKeys) && item.sk?.S === LEDGER_HEAD_SK) head = headFrom(item, logKeys);
    else if (item.pk?.S && item.hashes?.B) found.set(names.get(item.pk.S)!, item.hashes.B);
  }
  return { head, tiles: found };
}

/** The checkpoint history's item for one published size. */
export function ledgerCheckpointItem(head: { treeSize: number; checkpoint: string; at: string }, keys?: string): Item {
  return { pk: { S: ledgerCheckpointPk(head.treeSize, keys) }, sk: { S: LEDGER_ITEM_SK }, checkpoint: { S: head.checkpoint }, at: { S: head.at } };
}

/** The head item as a writer leaves it once it has published and released its lease (for a table made from an export). */
export function ledgerHeadItem(head: PublishedHead): Item {
  return { ...headKey(FIRST_LOG_KEYS), origin: { S: head.origin }, treeSize: { N: String(head.treeSize) }, checkpoint: { S: head.checkpoint }, updatedAt: { S: head.at } };
}
