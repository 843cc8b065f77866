/**
 * npm run backup -- --table NAME --out DIR [--tiles-dir DIR | --tiles-bucket NAME] [--endpoint URL] [--region R]
 * npm run backup -- --restore DIR [--table NAME] [--tiles-dir DIR | --tiles-bucket NAME] [--endpoint URL] [--region R]
 *
 * A backup is the table in the format DynamoDB's own export writes (DIR/table: data/*.json.gz,
 * manifest-summary.json, manifest-files.json), taken first, then the ledger's tile log beside it
 * (DIR/tiles): the tile log only grows, so a copy taken after the table holds everything the
 * table's ledger refers to. `--restore` writes the export into a new table (the local counterpart of
 * deploying with -c importFrom=s3://.../table/data/) and puts back the tile log objects the
 * destination lacks (docs/deploy.md#restore).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { exportTable, importExport } from '../lib/backup/table-export';
import { bucketTileLog, copyTileLog, directoryTileLog, type TileLogPlace } from '../lib/backup/tile-log';

const USAGE =
  'usage: npm run backup -- --table NAME --out DIR [--tiles-dir DIR | --tiles-bucket NAME] [--endpoint URL] [--region R]\n' +
  '       npm run backup -- --restore DIR [--table NAME] [--tiles-dir DIR | --tiles-bucket NAME] [--endpoint URL] [--region R]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      table: { type: 'string' },
      out: { type: 'string' },
      restore: { type: 'string' },
      'tiles-dir': { type: 'string' },
      'tiles-bucket': { type: 'string' },
      endpoint: { type: 'string' },
      region: { type: 'string' },
    },
  });
  if (!values.out === !values.restore || (values.out && !values.table)) throw new Error(USAGE);
  const local = values.endpoint ? { endpoint: values.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {};
  const region = values.region ?? process.env.AWS_REGION ?? 'eu-central-1';
  const client = new DynamoDBClient({ region, ...local });
  const tiles: TileLogPlace | null = values['tiles-dir']
    ? directoryTileLog(values['tiles-dir'])
    : values['tiles-bucket']
      ? bucketTileLog(new S3Client({ region }), values['tiles-bucket'])
      : null;
  try {
    if (values.out) {
      const table = await exportTable(client, values.table!, path.join(values.out, 'table'));
      console.error(`table ${values.table}: ${table.itemCount} items in ${table.files.length} files (${table.billedSizeBytes} bytes) -> ${values.out}/table`);
      if (tiles) console.error(`tile log: ${await copyTileLog(tiles, directoryTileLog(path.join(values.out, 'tiles')))} objects -> ${values.out}/tiles`);
    } else if (values.restore) {
      // Without --table only the tile log is put back (a bucket's loss).
      if (values.table) console.error(`table ${values.table}: ${await importExport(client, values.table, path.join(values.restore, 'table'))} items restored from ${values.restore}/table`);
      if (tiles) console.error(`tile log: ${await copyTileLog(directoryTileLog(path.join(values.restore, 'tiles')), tiles)} missing objects put back`);
    }
  } finally {
    client.destroy();
  }
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exitCode = 1;
});
