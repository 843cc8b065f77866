import { GetItemCommand, paginateQuery, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LEDGER_PK } from '../layout';
import type { JournaledWrites, LedgerJournal } from '../ports/ledger';
import { tableMetaItem } from '../write';
import { settledItem } from './pending';
import { putItems } from './put-items';
import { recordChangeItems } from './records';

type Item = Record<string, AttributeValue>;

/**
 * The batch journal in the table, beside the log's head (layout.ts):
 *   pk = "L#LOG", sk = "J#" + chunk(6)   the items a batch writes after its head, a few hundred per
 *                                        chunk, as gzip-compressed JSON (binary): the items repeat
 *                                        their evidence and checkpoint text, so a chunk is a fraction
 *                                        of its items' size to write, store and read
 *   pk = "L#LOG", sk = "J#"              the header, written after every chunk: the tree size the
 *                                        batch publishes, the number of chunks, and whether all its
 *                                        items are written
 * The items are the very items the record and pending stores write for those changes (in the order
 * they write them), so finishing a journal is writing them. Overwritten by the next journaled batch.
 */
const JOURNAL_SK = 'J#';
/** node:zlib when a journal is first written or read (process.getBuiltinModule: not at a function's start, which reads never pay for). */
const zlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');
const journalChunkSk = (chunk: number): string => `J#${String(chunk).padStart(6, '0')}`;
/** Uncompressed JSON per chunk: below DynamoDB's 400 KB item limit even if gzip could not shrink it at all. */
const JOURNAL_CHUNK_BYTES = 300_000;

interface JournalHeader {
  treeSize: number;
  chunks: number;
  done: boolean;
}

const headerItem = (header: JournalHeader): Item => ({
  pk: { S: LEDGER_PK },
  sk: { S: JOURNAL_SK },
  treeSize: { N: String(header.treeSize) },
  chunks: { N: String(header.chunks) },
  done: { BOOL: header.done },
});

/** The items of a batch's writes, in the order the stores write them: entries, geneses, the schema mark, settled events. */
function itemsOf(writes: JournaledWrites): Item[] {
  const records = recordChangeItems(writes.records);
  return [...records.entries, ...records.geneses, ...(writes.schema ? [tableMetaItem()] : []), ...writes.settlements.map(settledItem)];
}

/** The journal of `items` for a batch publishing `treeSize`: chunk items, then the header (written in this order). */
function journalItems(treeSize: number, items: readonly Item[]): Item[] {
  const chunks: Item[] = [];
  let current: string[] = [];
  let bytes = 0;
  const flush = () => {
    chunks.push({ pk: { S: LEDGER_PK }, sk: { S: journalChunkSk(chunks.length) }, items: { B: zlib().gzipSync(`[${current.join(',')}]`) } });
    current = [];
    bytes = 0;
  };
  for (const item of items) {
    for (const value of Object.values(item)) {
      if (!('S' in value || 'N' in value || 'BOOL' in value)) throw new TypeError('a journaled item holds only strings, numbers and booleans');
    }
    const text = JSON.stringify(item);
    if (bytes + text.length > JOURNAL_CHUNK_BYTES && current.length > 0) flush();
    current.push(text);
    bytes += text.length;
  }
  if (current.length > 0) flush();
  return [...chunks, headerItem({ treeSize, chunks: chunks.length, done: false })];
}

export function dynamoJournal(client: DynamoDBClient, table: string): LedgerJournal {
  const readHeader = async (): Promise<JournalHeader | null> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: LEDGER_PK }, sk: { S: JOURNAL_SK } }, ConsistentRead: true }));
    if (!out.Item) return null;
    return { treeSize: Number(out.Item.treeSize!.N), chunks: Number(out.Item.chunks!.N), done: out.Item.done?.BOOL === true };
  };
  const readItems = async (header: JournalHeader): Promise<Item[]> => {
    const items: Item[] = [];
    if (header.chunks === 0) return items;
    const pages = paginateQuery(
      { client },
      {
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
        ExpressionAttributeValues: { ':pk': { S: LEDGER_PK }, ':first': { S: journalChunkSk(0) }, ':last': { S: journalChunkSk(header.chunks - 1) } },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) for (const chunk of page.Items ?? []) items.push(...(JSON.parse(zlib().gunzipSync(chunk.items!.B!).toString('utf8')) as Item[]));
    return items;
  };
  const markDone = (treeSize: number) => putItems(client, table, [headerItem({ treeSize, chunks: 0, done: true })]);
  return {
    async write(treeSize, writes) {
      await putItems(client, table, journalItems(treeSize, itemsOf(writes)));
    },
    async finish(publishedSize) {
      const header = await readHeader();
      if (!header || header.done || header.treeSize !== publishedSize) return false;
      await putItems(client, table, await readItems(header));
      await markDone(publishedSize);
      return true;
    },
    markDone,
    async unfinished() {
      return (await readHeader())?.done === false;
    },
  };
}
