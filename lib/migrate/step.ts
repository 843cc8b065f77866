import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

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
