import { paginateScan, type AttributeValue, type DynamoDBClient, type ScanCommandInput } from '@aws-sdk/client-dynamodb';
import { forEachConcurrently } from '../../functions/store/dynamodb/put-items';

/** What a step is given: the table, and where to say what it did. */
export interface MigrationContext {
  client: DynamoDBClient;
  table: string;
  log: (line: string) => void;
}

/**
 * One change of a table's layout: a plain async function, idempotent (a table already migrated,
 * or migrated part-way by a run that stopped, is brought to the new layout and nothing else
 * changes). It returns how many items it moved.
 */
export type MigrationStep = (context: MigrationContext) => Promise<number>;

type Item = Record<string, AttributeValue>;

/** The items a filtered Scan finds: one strongly consistent read of the whole table, page after page. */
export async function scanWhere({ client, table }: Pick<MigrationContext, 'client' | 'table'>, filter: Pick<ScanCommandInput, 'FilterExpression' | 'ExpressionAttributeValues' | 'ProjectionExpression'>): Promise<Item[]> {
  const found: Item[] = [];
  for await (const page of paginateScan({ client }, { TableName: table, ...filter, ConsistentRead: true })) found.push(...(page.Items ?? []));
  return found;
}

/** Rewrites in flight at once. */
const REWRITE_CONCURRENCY = 16;

/**
 * Each of `found` rewritten by `rewrite`, whose first write is conditional on the item still being
 * as the step found it: one a writer (or a run before) changed meanwhile fails that condition and
 * is passed over. How many were rewritten.
 */
export async function rewriteEach<T>(found: readonly T[], rewrite: (one: T) => Promise<void>): Promise<number> {
  let rewritten = 0;
  await forEachConcurrently(found, REWRITE_CONCURRENCY, async (one) => {
    try {
      await rewrite(one);
      rewritten++;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  });
  return rewritten;
}
