import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { createGzip, type Gzip } from 'node:zlib';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

type Item = Record<string, AttributeValue>;

/**
 * An item in DynamoDB JSON, the format DynamoDB's import from S3 reads (DYNAMODB_JSON): the
 * marshalled attribute values, binary ones as base64 strings.
 */
function toDynamoDbJson(value: AttributeValue): unknown {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((b) => Buffer.from(b).toString('base64')) };
  if (value.L !== undefined) return { L: value.L.map(toDynamoDbJson) };
  if (value.M !== undefined) return { M: Object.fromEntries(Object.entries(value.M).map(([k, v]) => [k, toDynamoDbJson(v)])) };
  return value;
}

/** One line of an import file: `{"Item":{...}}`; newlines separate items and never occur inside one. */
export function importLine(item: Item): string {
  return `${JSON.stringify({ Item: Object.fromEntries(Object.entries(item).map(([k, v]) => [k, toDynamoDbJson(v)])) })}\n`;
}

export interface ImportFile {
  /** Relative to the export folder. */
  file: string;
  items: number;
  /** Uncompressed bytes (what the import is billed by). */
  bytes: number;
}

/** Uncompressed bytes per file before the next one starts (DynamoDB imports mid-sized objects in parallel). */
export const IMPORT_FILE_BYTES = 256 * 1024 * 1024;
/** Files written side by side, items dealt round-robin between them. */
const IMPORT_STREAMS = 8;

interface OpenFile {
  meta: ImportFile;
  gzip: Gzip;
  out: WriteStream;
}

/**
 * Writes items as gzip-compressed DynamoDB JSON files under `dir` (`items-<stream>-<n>.json.gz`),
 * dealing them round-robin over IMPORT_STREAMS files so consecutive lines of a file belong to
 * different records (the import's advice against sorted data, which writes one partition at a
 * time), each file starting anew past `maxBytes` uncompressed. Waits for each file to drain, so
 * memory holds a few compression buffers whatever the number of items.
 */
export class ImportFileWriter {
  private readonly files: ImportFile[] = [];
  private readonly open: (OpenFile | null)[];
  private readonly serial: number[];
  private next = 0;

  constructor(
    private readonly dir: string,
    private readonly maxBytes = IMPORT_FILE_BYTES,
    streams = IMPORT_STREAMS,
  ) {
    this.open = Array.from({ length: streams }, () => null);
    this.serial = Array.from({ length: streams }, () => 0);
  }

  async write(items: readonly Item[]): Promise<void> {
    for (const item of items) {
      const stream = this.next;
      this.next = (this.next + 1) % this.open.length;
      const line = importLine(item);
      let file = this.open[stream];
      if (file && file.meta.bytes + line.length > this.maxBytes && file.meta.items > 0) {
        await this.finish(file);
        file = null;
      }
      file ??= await this.start(stream);
      file.meta.items++;
      file.meta.bytes += Buffer.byteLength(line);
      if (!file.gzip.write(line)) await once(file.gzip, 'drain');
    }
  }

  private async start(stream: number): Promise<OpenFile> {
    await mkdir(this.dir, { recursive: true });
    const name = `items-${String(stream).padStart(2, '0')}-${String(this.serial[stream]++).padStart(5, '0')}.json.gz`;
    const gzip = createGzip();
    const out = createWriteStream(path.join(this.dir, name));
    gzip.pipe(out);
    const file = { meta: { file: name, items: 0, bytes: 0 }, gzip, out };
    this.open[stream] = file;
    this.files.push(file.meta);
    return file;
  }

  private async finish(file: OpenFile): Promise<void> {
    const closed = once(file.out, 'close');
    file.gzip.end();
    await closed;
    this.open[this.open.indexOf(file)] = null;
  }

  /** Closes every file; returns them all. */
  async close(): Promise<ImportFile[]> {
    for (const file of this.open) if (file) await this.finish(file);
    return this.files;
  }
}
