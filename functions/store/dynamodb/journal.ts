import { GetItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { batchGetItems, WRITER_READ } from '../batch-get';
import { LEDGER_ITEM_SK, ledgerJournalChunkPk, ledgerJournalPk } from '../layout';
import type { JournaledWrites, LedgerJournal } from '../ports/ledger';
import { tableMetaItem } from '../write';
import { settledItem } from './pending';
import { chainLocator, type LogLocator } from './ledger-chain';
import { storedHeadItem } from './head-text';
import { inHeadsPartition } from './record-items';
import { deleteItems, putItems } from './put-items';
import { TTL_ATTRIBUTE } from './pending-items';
import { recordChangeItems } from './records';

type Item = Record<string, AttributeValue>;

/**
 * The batch journal in the table (layout.ts), each batch's chunks in a partition of their own:
 *   pk = "L#J#" + treeSize(12) + "#" + chunk(6), sk = "#"
 *                             the items a batch writes after its head, a few hundred per chunk, as
 *                             gzip-compressed JSON (binary): the items repeat their evidence and
 *                             checkpoint text, so a chunk is a fraction of its items' size to
 *                             write, store and read. Deleted by the writer's next journaled batch
 *                             once the batch is done (and they carry a TTL, CHUNK_RETENTION_DAYS,
 *                             for chunks no living writer remembers)
 *   pk = "L#J", sk = "#"      the header: the tree size the batch publishes, the number of chunks,
 *                             and whether all its items are written
 * The chunks and the header are written together: the header counts only once the head is
 * published at its size, which happens after both are stored (functions/ledger-writer/batch.ts).
 * The items are the very items the record and pending stores write for those changes (in the order
 * they write them), so finishing a journal is writing them; only a head is kept as its text, which
 * the chunk's gzip compresses together with the others (head-text.ts), and deflated when written.
 */
/** node:zlib when a journal is first written or read (process.getBuiltinModule: not at a function's start, which reads never pay for). */
const zlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');
/**
 * Uncompressed JSON per chunk: below DynamoDB's 400 KB item limit even if gzip could not shrink it
 * at all, and small enough that a chunk (a few KB compressed, a few write units) is a small share
 * of its partition's 1,000 write units a second.
 */
const JOURNAL_CHUNK_BYTES = 100_000;
/** How long an unfinished batch's chunks outlive it at most: as long as a failed batch's description is kept (lib/stack/sequencer.ts). */
const CHUNK_RETENTION_DAYS = 14;
/** Chunk and item writes in flight at once. */
const WRITE_CONCURRENCY = 16;

interface JournalHeader {
  treeSize: number;
  chunks: number;
  done: boolean;
}

const headerKey = (keys: string): Item => ({ pk: { S: ledgerJournalPk(keys) }, sk: { S: LEDGER_ITEM_SK } });
const chunkKey = (treeSize: number, chunk: number, keys: string): Item => ({ pk: { S: ledgerJournalChunkPk(treeSize, chunk, keys) }, sk: { S: LEDGER_ITEM_SK } });

const headerItem = (header: JournalHeader, keys: string): Item => ({
  ...headerKey(keys),
  treeSize: { N: String(header.treeSize) },
  chunks: { N: String(header.chunks) },
  done: { BOOL: header.done },
});

/** The items of a batch's writes, in the order the stores write them: entries, geneses, the schema mark, settled events. */
function itemsOf(writes: JournaledWrites): Item[] {
  const records = recordChangeItems(writes.records, 'journal');
  return [...records.entries, ...records.geneses, ...(writes.schema ? [tableMetaItem()] : []), ...writes.settlements.map(settledItem)];
}

/** A binary attribute's bytes in the journal's JSON as base64 (a digest of a settled event: pending-items.ts), and back. */
function binaryAsBase64(this: Record<string, unknown>, key: string, value: unknown): unknown {
  return key === 'B' && this[key] instanceof Uint8Array ? Buffer.from(this[key] as Uint8Array).toString('base64') : value;
}
const base64AsBinary = (key: string, value: unknown): unknown => (key === 'B' && typeof value === 'string' ? Buffer.from(value, 'base64') : value);

/** The chunks of `items` for a batch publishing `treeSize`. */
function journalChunks(treeSize: number, items: readonly Item[], keys: string): Item[] {
  const chunks: Item[] = [];
  const expiresAt = { N: String(Math.floor(Date.now() / 1000) + CHUNK_RETENTION_DAYS * 86_400) };
  let current: string[] = [];
  let bytes = 0;
  const flush = () => {
    chunks.push({ ...chunkKey(treeSize, chunks.length, keys), items: { B: zlib().gzipSync(`[${current.join(',')}]`) }, [TTL_ATTRIBUTE]: expiresAt });
    current = [];
    bytes = 0;
  };
  for (const item of items) {
    for (const value of Object.values(item)) {
      if (!('S' in value || 'N' in value || 'BOOL' in value || 'B' in value)) throw new TypeError('a journaled item holds only strings, numbers, booleans and binaries');
    }
    const text = JSON.stringify(item, binaryAsBase64);
    if (bytes + text.length > JOURNAL_CHUNK_BYTES && current.length > 0) flush();
    current.push(text);
    bytes += text.length;
  }
  if (current.length > 0) flush();
  return chunks;
}

export function dynamoJournal(client: DynamoDBClient, table: string, locator: LogLocator = chainLocator(client, table)): LedgerJournal {
  /** The chunks this process last wrote (removed when that batch is marked done). */
  let written: { treeSize: number; chunks: number } | null = null;
  const readHeader = async (): Promise<JournalHeader | null> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: headerKey(locator.current()), ConsistentRead: true }));
    if (!out.Item) return null;
    return { treeSize: Number(out.Item.treeSize!.N), chunks: Number(out.Item.chunks!.N), done: out.Item.done?.BOOL === true };
  };
  const readItems = async (header: JournalHeader, checkpoint: string | null): Promise<Item[]> => {
    if (header.chunks === 0) return [];
    const keys = Array.from({ length: header.chunks }, (_, chunk) => chunkKey(header.treeSize, chunk, locator.current()));
    const found = new Map((await batchGetItems(client, table, keys, WRITER_READ)).map((chunk) => [chunk.pk!.S!, chunk] as const));
    return keys.flatMap((key) => {
      const chunk = found.get(key.pk!.S!);
      if (!chunk?.items?.B) throw new Error(`the journal of the batch publishing ${header.treeSize} is missing its chunk ${key.pk!.S}`);
      return (JSON.parse(zlib().gunzipSync(chunk.items.B).toString('utf8'), base64AsBinary) as Item[]).map((item) => inHeadsPartition(storedHeadItem(item, checkpoint)));
    });
  };
  /** The chunks of the last batch this process marked done: removed while the next batch's journal is written (no round trip of their own). */
  let done: { treeSize: number; chunks: number } | null = null;
  const markDone = async (treeSize: number, chunks = written?.treeSize === treeSize ? written.chunks : 0) => {
    // Only the header of this size: a writer marking done while it releases the lease must never mark a newer batch's journal.
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: headerKey(locator.current()),
          UpdateExpression: 'SET done = :done, chunks = :none',
          ConditionExpression: 'treeSize = :size',
          ExpressionAttributeValues: { ':done': { BOOL: true }, ':none': { N: '0' }, ':size': { N: String(treeSize) } },
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
    if (chunks > 0) done = { treeSize, chunks };
    if (written?.treeSize === treeSize) written = null;
  };
  return {
    async write(treeSize, writes) {
      const chunks = journalChunks(treeSize, itemsOf(writes), locator.current());
      const old = done && done.treeSize !== treeSize ? done : null;
      await Promise.all([
        putItems(client, table, [...chunks, headerItem({ treeSize, chunks: chunks.length, done: false }, locator.current())], undefined, { concurrency: WRITE_CONCURRENCY }),
        old ? deleteItems(client, table, Array.from({ length: old.chunks }, (_, chunk) => chunkKey(old.treeSize, chunk, locator.current())), WRITE_CONCURRENCY) : null,
      ]);
      if (old === done) done = null;
      written = { treeSize, chunks: chunks.length };
    },
    async finish(publishedSize, checkpoint) {
      const header = await readHeader();
      if (!header || header.done || header.treeSize !== publishedSize) return false;
      await putItems(client, table, await readItems(header, checkpoint), undefined, { concurrency: WRITE_CONCURRENCY });
      await markDone(publishedSize, header.chunks);
      return true;
    },
    markDone: (treeSize) => markDone(treeSize),
    async unfinished() {
      return (await readHeader())?.done === false;
    },
  };
}
