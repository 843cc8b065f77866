import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { DescribeTableCommand, ScanCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ImportFileWriter } from '../../functions/store/dynamodb/import-files';
import { putItems, putStream } from '../../functions/store/dynamodb/put-items';
import { ensureTable } from '../../functions/store/write';
import { GENESIS_SK, TABLE_META_PK } from '../../functions/store/layout';

type Item = Record<string, AttributeValue>;

/**
 * A table written as DynamoDB's own export to S3 writes it (DYNAMODB_JSON): `data/*.json.gz`, each
 * line `{"Item":{...}}` in marshalled DynamoDB JSON, with `manifest-summary.json` and
 * `manifest-files.json` beside them. Item for item, whatever the table's layout: the backup knows
 * nothing of what the items mean, so it stays right however the write path lays them out. The data
 * folder is what the stack's `importFrom` (DynamoDB's import from S3) reads.
 */

export interface TableExport {
  itemCount: number;
  /** Uncompressed bytes of the data files. */
  billedSizeBytes: number;
  files: string[];
}

/** Parallel scan segments: each a sequential read of its share of the table. */
const SCAN_SEGMENTS = 4;

export async function exportTable(client: DynamoDBClient, table: string, dir: string, now = new Date()): Promise<TableExport> {
  const described = (await client.send(new DescribeTableCommand({ TableName: table }))).Table;
  const writer = new ImportFileWriter(path.join(dir, 'data'));
  let itemCount = 0;
  // Strongly consistent reads: every write acknowledged before the scan reached its item is in the backup.
  const segment = async (n: number) => {
    let start: Item | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: table, Segment: n, TotalSegments: SCAN_SEGMENTS, ConsistentRead: true, ExclusiveStartKey: start }));
      const items = page.Items ?? [];
      itemCount += items.length;
      await writer.write(items);
      start = page.LastEvaluatedKey;
    } while (start);
  };
  for (let n = 0; n < SCAN_SEGMENTS; n++) await segment(n);
  const files = await writer.close();
  const manifestLines: string[] = [];
  for (const file of files) {
    const bytes = await readFile(path.join(dir, 'data', file.file));
    manifestLines.push(JSON.stringify({ itemCount: file.items, md5Checksum: createHash('md5').update(bytes).digest('base64'), dataFileS3Key: `data/${file.file}` }));
  }
  await writeFile(path.join(dir, 'manifest-files.json'), manifestLines.map((l) => `${l}\n`).join(''));
  const billedSizeBytes = files.reduce((n, f) => n + f.bytes, 0);
  const summary = {
    version: '2020-06-30',
    startTime: now.toISOString(),
    endTime: new Date().toISOString(),
    tableArn: described?.TableArn ?? table,
    tableId: described?.TableId,
    exportType: 'FULL_EXPORT',
    exportFormat: 'DYNAMODB_JSON',
    outputFormat: 'DYNAMODB_JSON',
    itemCount,
    billedSizeBytes,
    manifestFilesS3Key: 'manifest-files.json',
  };
  await writeFile(path.join(dir, 'manifest-summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  return { itemCount, billedSizeBytes, files: files.map((f) => `data/${f.file}`) };
}

/** A value of DynamoDB JSON (binary values base64-encoded) as the SDK takes it. */
function fromDynamoDbJson(value: Record<string, unknown>): AttributeValue {
  const [type] = Object.keys(value);
  const v = value[type];
  switch (type) {
    case 'B':
      return { B: Buffer.from(v as string, 'base64') };
    case 'BS':
      return { BS: (v as string[]).map((b) => Buffer.from(b, 'base64')) };
    case 'L':
      return { L: (v as Record<string, unknown>[]).map(fromDynamoDbJson) };
    case 'M':
      return { M: Object.fromEntries(Object.entries(v as Record<string, Record<string, unknown>>).map(([k, x]) => [k, fromDynamoDbJson(x)])) };
    default:
      return value as unknown as AttributeValue;
  }
}

/** Every item of an export's data files, checked against its manifest (item counts and checksums). */
export async function* exportedItems(dir: string): AsyncIterable<Item> {
  const manifest = (await readFile(path.join(dir, 'manifest-files.json'), 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { itemCount: number; md5Checksum: string; dataFileS3Key: string });
  const listed = new Set(manifest.map((m) => m.dataFileS3Key));
  for (const file of await readdir(path.join(dir, 'data'))) {
    if (!listed.has(`data/${file}`)) throw new Error(`${dir}/data/${file} is not in the export's manifest-files.json`);
  }
  for (const entry of manifest) {
    const file = path.join(dir, entry.dataFileS3Key);
    const md5 = createHash('md5').update(await readFile(file)).digest('base64');
    if (md5 !== entry.md5Checksum) throw new Error(`${entry.dataFileS3Key}: its checksum differs from the manifest's: the backup is damaged`);
    let count = 0;
    const lines = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (line === '') continue;
      const object = JSON.parse(line) as { Item: Record<string, Record<string, unknown>> };
      count++;
      yield Object.fromEntries(Object.entries(object.Item).map(([k, v]) => [k, fromDynamoDbJson(v)]));
    }
    if (count !== entry.itemCount) throw new Error(`${entry.dataFileS3Key}: ${count} items, the manifest says ${entry.itemCount}`);
  }
}

const isTableMeta = (item: Item) => item.pk?.S === TABLE_META_PK && item.sk?.S === GENESIS_SK;

/**
 * Writes an export into a table (created when missing), as DynamoDB's import creates a table from
 * it: the local counterpart of deploying with `-c importFrom=...`. Refuses a table that holds items.
 * The table's metadata item (what /health reads as "loaded") is written last, after every other
 * item, so a restore that stops part-way leaves the table not ready (DynamoDB's own import makes
 * the table usable only once it is whole).
 */
export async function importExport(client: DynamoDBClient, table: string, dir: string): Promise<number> {
  await stat(path.join(dir, 'manifest-summary.json'));
  await ensureTable(client, table);
  const probe = await client.send(new ScanCommand({ TableName: table, Limit: 1 }));
  if ((probe.Items ?? []).length > 0) throw new Error(`${table} is not empty: an import creates a new table (restore into a new name, then point the stack at it)`);
  const held: { meta?: Item } = {};
  async function* everyItemButTheMeta() {
    for await (const item of exportedItems(dir)) {
      if (isTableMeta(item)) held.meta = item;
      else yield item;
    }
  }
  const count = await putStream(client, table, everyItemButTheMeta());
  if (!held.meta) return count;
  await putItems(client, table, [held.meta]);
  return count + 1;
}
