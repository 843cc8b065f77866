import { GetItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { FIRST_LOG_KEYS, LEDGER_HEAD_SK, ledgerHeadPk, tilesDirOfKeys } from '../layout';
import type { LedgerHead } from '../ports/ledger';

type Item = Record<string, AttributeValue>;

/** A log's head item as the ports give it; `keys` is where its items are (layout.ts). */
export function headFrom(item: Item | undefined, keys: string): LedgerHead | null {
  if (!item) return null;
  return {
    origin: item.origin?.S ?? null,
    treeSize: item.treeSize?.N ? Number(item.treeSize.N) : 0,
    checkpoint: item.checkpoint?.S ?? null,
    updatedAt: item.updatedAt?.S ?? null,
    lock: item.lockId?.S ? { id: item.lockId.S, since: item.lockedAt?.S ?? 'unknown', until: item.lockUntil?.S ?? null } : null,
    ...(item.leasesTaken?.N ? { leasesTaken: Number(item.leasesTaken.N) } : {}),
    // The first log's head reads as it always did; a successor's names where its items and tiles are.
    ...(keys === FIRST_LOG_KEYS ? {} : { keys, tilesDir: tilesDirOfKeys(keys) }),
    ...(item.successor?.S ? { successor: { keys: item.successor.S, origin: item.successorOrigin?.S ?? null } } : {}),
  };
}

/** A writer of a log that was retired (a key change): it must be given the successor's key, never append to the old log. */
export class LedgerRetiredError extends Error {
  constructor(origin: string | null, treeSize: number, successor: { origin: string | null }) {
    super(`the log ${origin ?? ''} was retired at its final checkpoint of ${treeSize} entries; its successor is ${successor.origin ?? 'another log'}: write with the successor's key (docs/ledger.md#when-the-key-must-change)`);
  }
}

/** The longest chain of logs followed: a table holds a handful in its life; a loop of successors is a damaged table. */
const MAX_LOGS = 64;

/**
 * Every log of the table, first to current: the first log's head (pk "L#LOG"), then each head its
 * predecessor names as `successor`. Before any key change that is one GetItem, as it always was.
 * `onlyKeys` stops reading at the last head (its keys are all the caller needs).
 */
export async function followLogs(client: DynamoDBClient, table: string, consistent: boolean, onlyKeys = false): Promise<LedgerHead[]> {
  const logs: LedgerHead[] = [];
  let keys: string | undefined = FIRST_LOG_KEYS;
  while (keys && logs.length < MAX_LOGS) {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: ledgerHeadPk(keys) }, sk: { S: LEDGER_HEAD_SK } }, ConsistentRead: consistent }));
    const head = headFrom(out.Item, keys);
    if (!head) {
      if (onlyKeys) logs.push({ origin: null, treeSize: 0, checkpoint: null, updatedAt: null, lock: null, keys });
      break;
    }
    logs.push(head);
    keys = head.successor?.keys;
  }
  return logs;
}

/** Which log the writers' ports address: the current one, looked up again before every lease. */
export interface LogLocator {
  /** The keys of the log located last (the first log's before any look-up). */
  current(): string;
  /** Looks the current log up (strongly consistent); a fixed locator answers at once. */
  locate(): Promise<void>;
}

/** The current log of the table's chain: a writer takes its lease from the log the chain ends in. */
export function chainLocator(client: DynamoDBClient, table: string): LogLocator {
  let keys = FIRST_LOG_KEYS;
  return {
    current: () => keys,
    async locate() {
      const logs = await followLogs(client, table, true, true);
      keys = logs.at(-1)?.keys ?? FIRST_LOG_KEYS;
    },
  };
}

/** One log named by its keys, whatever the chain says: how a key change writes the new log before the chain leads to it. */
export const fixedLocator = (keys: string): LogLocator => ({ current: () => keys, locate: async () => undefined });

/**
 * Retires a log: its head names its successor, so the chain (and every writer's next lease) leads
 * there. Conditional on the log still ending at the final checkpoint and on holding no successor
 * yet: a log that grew after its final checkpoint, or that was handed over already, is refused.
 */
export async function retireLog(client: DynamoDBClient, table: string, keys: string, final: { treeSize: number; checkpoint: string }, successor: { keys: string; origin: string }): Promise<void> {
  await client.send(
    new UpdateItemCommand({
      TableName: table,
      Key: { pk: { S: ledgerHeadPk(keys) }, sk: { S: LEDGER_HEAD_SK } },
      UpdateExpression: 'SET successor = :keys, successorOrigin = :origin',
      ConditionExpression: 'attribute_not_exists(successor) AND treeSize = :size AND checkpoint = :checkpoint',
      ExpressionAttributeValues: { ':keys': { S: successor.keys }, ':origin': { S: successor.origin }, ':size': { N: String(final.treeSize) }, ':checkpoint': { S: final.checkpoint } },
    }),
  );
}
