import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { putStream } from '../../functions/store/dynamodb/put-items';

/**
 * A small reader of DynamoDB's import format, written from AWS's description of it (Amazon S3
 * import formats for DynamoDB, "DynamoDB JSON"), not from the exporter: every object under the
 * prefix, gzip-compressed; in each, items separated by newlines, each `{"Item": {...}}` in
 * DynamoDB's marshalled JSON, binary values base64-encoded. It refuses anything else, and a key
 * given twice (the import would keep one of them, in no set order).
 */
function fromDynamoDbJson(value: Record<string, unknown>): AttributeValue {
  const [type, ...more] = Object.keys(value);
  if (!type || more.length > 0) throw new Error(`an attribute value has exactly one type: ${JSON.stringify(value)}`);
  const v = value[type];
  switch (type) {
    case 'S':
    case 'N':
      if (typeof v !== 'string') throw new Error(`${type} is a string`);
      return { [type]: v } as unknown as AttributeValue;
    case 'BOOL':
      if (typeof v !== 'boolean') throw new Error('BOOL is a boolean');
      return { BOOL: v };
    case 'NULL':
      return { NULL: true };
    case 'B':
      if (typeof v !== 'string' || Buffer.from(v, 'base64').toString('base64') !== v) throw new Error('B is base64');
      return { B: Buffer.from(v, 'base64') };
    case 'SS':
    case 'NS':
      return { [type]: v as string[] } as unknown as AttributeValue;
    case 'BS':
      return { BS: (v as string[]).map((b) => Buffer.from(b, 'base64')) };
    case 'L':
      return { L: (v as Record<string, unknown>[]).map(fromDynamoDbJson) };
    case 'M':
      return { M: Object.fromEntries(Object.entries(v as Record<string, Record<string, unknown>>).map(([k, x]) => [k, fromDynamoDbJson(x)])) };
    default:
      throw new Error(`unknown attribute type ${type}`);
  }
}

/** Every item of the import files under `dir`, in file order. */
export async function* readImportFiles(dir: string): AsyncIterable<Record<string, AttributeValue>> {
  for (const file of (await readdir(dir)).sort()) {
    if (!file.endsWith('.gz')) throw new Error(`${file}: the export compresses every file with gzip`);
    const lines = createInterface({ input: createReadStream(path.join(dir, file)).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line === '') continue;
      const object = JSON.parse(line) as Record<string, unknown>;
      if (Object.keys(object).join() !== 'Item') throw new Error(`${file}: a line is one {"Item": ...} object, not ${line.slice(0, 80)}`);
      yield Object.fromEntries(Object.entries(object.Item as Record<string, Record<string, unknown>>).map(([k, v]) => [k, fromDynamoDbJson(v)]));
    }
  }
}

/** Imports the files into `table` (which must exist, as ImportTable creates it), as the import would: every item once. */
export async function importFiles(client: DynamoDBClient, table: string, dir: string, keys: { partitionKey: string; sortKey: string }): Promise<number> {
  const seen = new Set<string>();
  async function* onceEach() {
    for await (const item of readImportFiles(dir)) {
      const key = `${item[keys.partitionKey]?.S}\u0000${item[keys.sortKey]?.S}`;
      if (seen.has(key)) throw new Error(`the key ${key.replace('\u0000', ' / ')} is given twice`);
      seen.add(key);
      yield item;
    }
  }
  return putStream(client, table, onceEach());
}
