import { GetItemCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { batchGetItems, WRITER_READ } from '../batch-get';
import type { PlacedEvidence } from '../checkpoint-to-come';
import { LEDGER_ITEM_SK, ledgerJournalChunkPk, ledgerJournalPk, partChunkPk, PENDING_PK_PREFIX, RECORD_PK_PREFIX } from '../layout';
import { checkedChunksName, type JournalChunks, type JournaledPart, type JournaledWrites, type LedgerJournal, type LeafPlacer, type StoredChunks } from '../ports/ledger';
import { tableMetaItem } from '../write';
import { settledItem } from './pending';
import { chainLocator, type LogLocator } from './ledger-chain';
import { storedHeadItem } from './head-text';
import { inHeadsPartition, itemClass } from './record-items';
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
 *   pk = "J#" + name + "#" + chunk(6), sk = "#"
 *                             the chunks a part writer stored itself (storeChunks), the same form,
 *                             under a name the sequencer gave that part of that batch; removed and
 *                             expiring as the batch's own
 *   pk = "L#J", sk = "#"      the header: the tree size the batch publishes, the number of chunks,
 *                             whether all its items are written, and the parts planned apart
 *                             (`parts`: where each one's leaves start, how many, which chunks: a
 *                             range of the batch's own, or the name and count of those it stored)
 * The chunks and the header are written together: the header counts only once the head is
 * published at its size, which happens after both are stored (functions/ledger-writer/batch.ts).
 * The items are the very items the record and pending stores write for those changes (in the order
 * they write them), so finishing a journal is writing them; only a head is kept as its text, which
 * the chunk's gzip compresses together with the others (head-text.ts), and deflated when written.
 * A part planned apart (functions/ledger-writer/parts.ts) comes as chunks already made where it was
 * planned (chunksOf), its heads' evidence to come: finishing places it from the leaves the batch
 * stored (LeafPlacer).
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

/**
 * A part planned apart, as the header keeps it: its leaves (from `start`, `leaves` of them) and its
 * chunks: the batch's own from `from` up to `to`, or those it stored under `name` (`count`).
 */
type PartInHeader = { start: number; leaves: number } & ({ from: number; to: number } | StoredChunks);
/** The chunks a part stored itself, as the header names them (none for a part whose chunks are the batch's own). */
const storedChunksOf = (part: PartInHeader): StoredChunks[] => ('name' in part ? [{ name: part.name, count: part.count }] : []);

/** A batch's chunks this process wrote or finished: its own (how many) and those its parts stored. */
interface Written {
  treeSize: number;
  chunks: number;
  stored: StoredChunks[];
}

interface JournalHeader {
  treeSize: number;
  chunks: number;
  done: boolean;
  parts: PartInHeader[];
}

const headerKey = (keys: string): Item => ({ pk: { S: ledgerJournalPk(keys) }, sk: { S: LEDGER_ITEM_SK } });
const chunkKey = (treeSize: number, chunk: number, keys: string): Item => ({ pk: { S: ledgerJournalChunkPk(treeSize, chunk, keys) }, sk: { S: LEDGER_ITEM_SK } });
const storedChunkKeys = ({ name, count }: StoredChunks): Item[] => Array.from({ length: count }, (_, chunk) => ({ pk: { S: partChunkPk(name, chunk) }, sk: { S: LEDGER_ITEM_SK } }));
/** When a chunk written now expires at the latest (TTL_ATTRIBUTE): a stopped batch's chunks no living writer remembers. */
const chunkExpiry = (): AttributeValue => ({ N: String(Math.floor(Date.now() / 1000) + CHUNK_RETENTION_DAYS * 86_400) });

const headerItem = (header: JournalHeader, keys: string): Item => ({
  ...headerKey(keys),
  treeSize: { N: String(header.treeSize) },
  chunks: { N: String(header.chunks) },
  done: { BOOL: header.done },
  ...(header.parts.length > 0 ? { parts: { S: JSON.stringify(header.parts) } } : {}),
});

/** The items of a batch's writes, in the order the stores write them: entries, geneses, the schema mark, settled events. */
function itemsOf(writes: JournaledWrites): Item[] {
  const records = recordChangeItems(writes.records, 'journal');
  return [...records.entries, ...records.geneses, ...(writes.schema ? [tableMetaItem()] : []), ...writes.settlements.map(settledItem)];
}

/**
 * An item as the journal's JSON: a binary attribute's bytes as base64 (a digest of a settled event:
 * pending-items.ts). Attribute by attribute rather than with a replacer, which JSON.stringify would
 * call for every key of every item (and JSON.parse a reviver): a part writer makes and reads a
 * batch's chunks on its own time.
 */
function journaledText(item: Item): string {
  let binary = false;
  for (const value of Object.values(item)) {
    if (!('S' in value || 'N' in value || 'BOOL' in value || 'B' in value)) throw new TypeError('a journaled item holds only strings, numbers, booleans and binaries');
    binary ||= 'B' in value;
  }
  if (!binary) return JSON.stringify(item);
  return JSON.stringify(Object.fromEntries(Object.entries(item).map(([name, value]) => [name, value.B ? { B: Buffer.from(value.B).toString('base64') } : value])));
}
/** The items of a chunk's JSON, each binary attribute's base64 as bytes again. */
function journaledItems(text: string): Item[] {
  const items = JSON.parse(text) as Array<Record<string, { B?: unknown }>>;
  for (const item of items) for (const value of Object.values(item)) if (typeof value.B === 'string') value.B = Buffer.from(value.B, 'base64');
  return items as Item[];
}

/** `items` as the bytes of chunks: gzip-compressed JSON, at most JOURNAL_CHUNK_BYTES of it each. */
function chunkBytes(items: readonly Item[]): Buffer[] {
  const chunks: Buffer[] = [];
  let current: string[] = [];
  let bytes = 0;
  const flush = () => {
    chunks.push(zlib().gzipSync(`[${current.join(',')}]`));
    current = [];
    bytes = 0;
  };
  for (const item of items) {
    const text = journaledText(item);
    if (bytes + text.length > JOURNAL_CHUNK_BYTES && current.length > 0) flush();
    current.push(text);
    bytes += text.length;
  }
  if (current.length > 0) flush();
  return chunks;
}

const itemsOfChunk = (bytes: Uint8Array): Item[] => journaledItems(zlib().gunzipSync(bytes).toString('utf8'));

/** The items of chunks as the table takes them: each head deflated in its own partition, its evidence given. */
const storedItems = (items: readonly Item[], checkpoint: string | null, placed?: PlacedEvidence): Item[] => items.map((item) => inHeadsPartition(storedHeadItem(item, checkpoint, placed)));

/**
 * Writes a journal's items (as the table takes them: storedItems) as the record and pending
 * stores write them: the new versions' heads, then the entries (a reader never meets an entry
 * whose head is not stored), then the rest (the geneses, the schema mark and the settled events),
 * each step's requests sent together.
 */
async function writeJournaledItems(client: DynamoDBClient, table: string, items: readonly Item[]): Promise<void> {
  const inRecord = (item: Item) => item.pk?.S?.startsWith(RECORD_PK_PREFIX) === true;
  const heads = items.filter((item) => inRecord(item) && itemClass(item) === 'head');
  const entries = items.filter((item) => inRecord(item) && itemClass(item) !== 'head' && itemClass(item) !== 'genesis');
  const rest = items.filter((item) => !inRecord(item) || itemClass(item) === 'genesis');
  for (const step of [heads, entries, rest]) if (step.length > 0) await putItems(client, table, step, undefined, { concurrency: WRITE_CONCURRENCY });
}

/** Reads the chunk items under `keys` (strongly consistent), by partition key; throws naming the batch when one is missing. */
async function readChunkItems(client: DynamoDBClient, table: string, keys: readonly Item[], whose: string): Promise<Map<string, Uint8Array>> {
  const found = new Map((await batchGetItems(client, table, [...keys], WRITER_READ)).map((chunk) => [chunk.pk!.S!, chunk.items?.B] as const));
  for (const key of keys) if (!found.get(key.pk!.S!)) throw new Error(`${whose} is missing its chunk ${key.pk!.S}`);
  return found as Map<string, Uint8Array>;
}

/** What a part planned apart (functions/ledger-writer/parts.ts) is journaled as, and how it is written: no keys of the log's needed. */
export function dynamoJournalChunks(client: DynamoDBClient, table: string): JournalChunks {
  return {
    chunksOf: (writes) => chunkBytes(itemsOf(writes)),
    writeChunks: (chunks, placed) => writeJournaledItems(client, table, storedItems(chunks.flatMap(itemsOfChunk), null, placed)),
    async storeChunks(name, chunks) {
      const stored = { name: checkedChunksName(name), count: chunks.length };
      const expiresAt = chunkExpiry();
      await putItems(client, table, storedChunkKeys(stored).map((key, chunk) => ({ ...key, items: { B: chunks[chunk] }, [TTL_ATTRIBUTE]: expiresAt })), undefined, { concurrency: WRITE_CONCURRENCY });
      return stored;
    },
    async readChunks(stored) {
      const keys = storedChunkKeys(stored);
      const found = await readChunkItems(client, table, keys, `the part's chunks ${stored.name}`);
      return keys.map((key) => found.get(key.pk!.S!)!);
    },
  };
}

export function dynamoJournal(client: DynamoDBClient, table: string, locator: LogLocator = chainLocator(client, table)): LedgerJournal {
  /** The chunks this process last wrote, and those its parts stored (removed when that batch is marked done). */
  let written: Written | null = null;
  const readHeader = async (): Promise<JournalHeader | null> => {
    const out = await client.send(new GetItemCommand({ TableName: table, Key: headerKey(locator.current()), ConsistentRead: true }));
    if (!out.Item) return null;
    const parts = out.Item.parts?.S ? (JSON.parse(out.Item.parts.S) as PartInHeader[]) : [];
    return { treeSize: Number(out.Item.treeSize!.N), chunks: Number(out.Item.chunks!.N), done: out.Item.done?.BOOL === true, parts };
  };
  /** The journal's items, chunk by chunk (its own, then those its parts stored); those of a part placed by `placer` (asked once, for the leaves of every part). */
  const readItems = async (header: JournalHeader, checkpoint: string | null, placer?: LeafPlacer): Promise<Item[]> => {
    const own = Array.from({ length: header.chunks }, (_, chunk) => chunkKey(header.treeSize, chunk, locator.current()));
    const stored = header.parts.map((part) => ({ part, keys: storedChunksOf(part).flatMap(storedChunkKeys) }));
    if (own.length + stored.reduce((n, s) => n + s.keys.length, 0) === 0) return [];
    const [found, placedAt] = await Promise.all([
      readChunkItems(client, table, [...own, ...stored.flatMap((s) => s.keys)], `the journal of the batch publishing ${header.treeSize}`),
      header.parts.length > 0 ? placeParts(header.parts, placer) : undefined,
    ]);
    const itemsOfKey = (key: Item, part: PartInHeader | undefined): Item[] => {
      const items = itemsOfChunk(found.get(key.pk!.S!)!);
      if (!part) return storedItems(items, checkpoint);
      onlyWhatAPartWrites(items, key.pk!.S!);
      return storedItems(items, checkpoint, placedAt && ((ordinal, version) => placedAt(part.start + ordinal, version)));
    };
    return [
      ...own.flatMap((key, chunk) => itemsOfKey(key, header.parts.find((p) => 'from' in p && chunk >= p.from && chunk < p.to))),
      ...stored.flatMap(({ part, keys }) => keys.flatMap((key) => itemsOfKey(key, part))),
    ];
  };
  /** The chunks of the last batch this process marked done (its own, and those its parts stored): removed while the next batch's journal is written (no round trip of their own). */
  let done: Written | null = null;
  const markDone = async (treeSize: number, chunks: Pick<Written, 'chunks' | 'stored'> = written?.treeSize === treeSize ? written : { chunks: 0, stored: [] }) => {
    // Only the header of this size: a writer marking done while it releases the lease must never mark a newer batch's journal.
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: table,
          Key: headerKey(locator.current()),
          UpdateExpression: 'SET done = :done, chunks = :none REMOVE parts',
          ConditionExpression: 'treeSize = :size',
          ExpressionAttributeValues: { ':done': { BOOL: true }, ':none': { N: '0' }, ':size': { N: String(treeSize) } },
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
    if (chunks.chunks + chunks.stored.length > 0) done = { treeSize, chunks: chunks.chunks, stored: chunks.stored };
    if (written?.treeSize === treeSize) written = null;
  };
  const chunks = dynamoJournalChunks(client, table);
  return {
    ...chunks,
    async write(treeSize, writes, parts: readonly JournaledPart[] = []) {
      const keys = locator.current();
      const own = chunkBytes(itemsOf(writes));
      const inHeader: PartInHeader[] = [];
      let next = own.length;
      for (const part of parts) {
        if (part.stored) inHeader.push({ start: part.start, leaves: part.leaves, ...part.stored });
        else {
          inHeader.push({ start: part.start, leaves: part.leaves, from: next, to: next + part.chunks.length });
          next += part.chunks.length;
        }
      }
      const expiresAt = chunkExpiry();
      const items = [...own, ...parts.flatMap((p) => (p.stored ? [] : p.chunks))].map((bytes, chunk): Item => ({ ...chunkKey(treeSize, chunk, keys), items: { B: bytes }, [TTL_ATTRIBUTE]: expiresAt }));
      // The last done batch's chunks: its own unless this batch publishes the same size (a batch that appended nothing), whose keys this one writes again; its parts' always (their names are never reused).
      const old = done ? [...(done.treeSize !== treeSize ? Array.from({ length: done.chunks }, (_, chunk) => chunkKey(done!.treeSize, chunk, keys)) : []), ...done.stored.flatMap(storedChunkKeys)] : [];
      await Promise.all([
        putItems(client, table, [...items, headerItem({ treeSize, chunks: items.length, done: false, parts: inHeader }, keys)], undefined, { concurrency: WRITE_CONCURRENCY }),
        old.length > 0 ? deleteItems(client, table, old, WRITE_CONCURRENCY) : null,
      ]);
      done = null;
      written = { treeSize, chunks: items.length, stored: parts.flatMap((p) => (p.stored ? [p.stored] : [])) };
    },
    async finish(publishedSize, checkpoint, placer) {
      const header = await readHeader();
      if (!header || header.done || header.treeSize !== publishedSize) return false;
      await writeJournaledItems(client, table, await readItems(header, checkpoint, placer));
      await markDone(publishedSize, { chunks: header.chunks, stored: header.parts.flatMap(storedChunksOf) });
      return true;
    },
    markDone: (treeSize) => markDone(treeSize),
    async unfinished() {
      return (await readHeader())?.done === false;
    },
  };
}

/**
 * A part's chunks come from a part writer, whose role may write records and events only (items
 * whose key begins `R#` or `P#`: lib/stack/sequencer-parts.ts), while the writer finishing a
 * journal writes with the sequencer's. So a part's item with any other key (the log's head, a
 * tile, a checkpoint) is refused, never written: the journal stays unfinished and the batch's
 * records wait, where writing it would let a part writer reach what its role is denied.
 */
function onlyWhatAPartWrites(items: readonly Item[], chunk: string): void {
  const outside = items.find((item) => {
    const pk = item.pk?.S ?? '';
    return !pk.startsWith(RECORD_PK_PREFIX) && !pk.startsWith(PENDING_PK_PREFIX);
  });
  if (outside) throw new Error(`the journal's chunk ${chunk} of a part holds an item a part writer may not write (key ${JSON.stringify(outside.pk?.S ?? null)}): not written`);
}

/** The evidence of every leaf of `parts`, from the placer a finishing writer gives (the leaves its batch stored). */
async function placeParts(parts: readonly PartInHeader[], placer: LeafPlacer | undefined): Promise<(leafIndex: number, version: number) => unknown> {
  if (!placer) throw new Error('the journal holds parts whose new versions wait for their place in the log, and no placer was given to finish it');
  const from = Math.min(...parts.map((p) => p.start));
  const to = Math.max(...parts.map((p) => p.start + p.leaves));
  return placer(from, to);
}
