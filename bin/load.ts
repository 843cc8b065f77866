/**
 * npm run load -- FILE|--demo [--endpoint URL] [--table NAME] [--region R] [--create-table]
 * Validates every record (reporting each bad one by record and field), writes nothing when any
 * is bad, shows progress, and is idempotent. Without --endpoint it writes to AWS with the
 * ambient credentials.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { demoDocument } from '../fixtures/demo';
import { InvalidRecordsError, loadDocument } from '../lib/loader/load';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      endpoint: { type: 'string' },
      table: { type: 'string', default: process.env.TABLE_NAME ?? 'trust-records' },
      region: { type: 'string', default: process.env.AWS_REGION ?? 'eu-central-1' },
      demo: { type: 'boolean', default: false },
      'create-table': { type: 'boolean', default: false },
    },
  });
  if (!values.demo && positionals.length !== 1) {
    console.error('usage: npm run load -- FILE|--demo [--endpoint URL] [--table NAME] [--region R] [--create-table]');
    return 2;
  }
  const document = values.demo ? demoDocument(new Date()) : JSON.parse(await readFile(positionals[0], 'utf8'));
  const client = new DynamoDBClient({
    region: values.region,
    ...(values.endpoint ? { endpoint: values.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  try {
    const summary = await loadDocument(document, {
      client,
      table: values.table!,
      createTable: values['create-table'],
      onProgress: (written, total) => process.stderr.write(`\rwriting items: ${written}/${total} (${Math.round((100 * written) / total)}%)`),
    });
    process.stderr.write('\n');
    console.log(`loaded ${summary.records} records as ${summary.items} items into ${values.table}`);
    return 0;
  } catch (error) {
    if (error instanceof InvalidRecordsError) {
      for (const p of error.problems) console.error(`record ${p.index}${p.reference ? ` (${p.reference})` : ''}: ${p.field}: ${p.message}`);
      console.error(error.message);
      return 1;
    }
    console.error(`load failed: ${(error as Error).message}`);
    return 1;
  } finally {
    client.destroy();
  }
}

main().then((code) => process.exit(code));
