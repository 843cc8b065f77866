/**
 * npm run migrate -- [--endpoint URL] [--table NAME] [--region R]: brings a table written by an
 * earlier layout to the current one (lib/migrate: the pending index's shards, the ledger's keys),
 * under the ledger's lease. Idempotent: run it again, or after a run that stopped, and it finishes
 * what is left and changes nothing else (docs/deploy.md#migrating-a-table). Without --endpoint it
 * migrates the table in AWS with the ambient credentials.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseArgs } from 'node:util';
import { localClient } from '../lib/local/service';
import { migrateTable } from '../lib/migrate';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      endpoint: { type: 'string' },
      table: { type: 'string', default: process.env.TABLE_NAME ?? 'trust-records' },
      region: { type: 'string', default: process.env.AWS_REGION ?? 'eu-central-1' },
    },
  });
  const client = values.endpoint ? localClient(values.endpoint, values.region) : new DynamoDBClient({ region: values.region });
  try {
    const moved = await migrateTable({ client, table: values.table, log: (line) => console.log(line) });
    console.log(`migrated ${values.table}: ${Object.values(moved).reduce((n, m) => n + m, 0)} items moved`);
  } finally {
    client.destroy();
  }
}

main().catch((error) => {
  console.error(`migration failed: ${(error as Error).message}`);
  process.exit(1);
});
