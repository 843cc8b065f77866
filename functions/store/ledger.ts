import {
  ConditionalCheckFailedException,
  GetItemCommand,
  paginateQuery,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { StoreNotConfigured, StoreUnavailable } from './errors';
import { storeClient, tableName } from './client';
import { BATCH_GET_KEYS, batchGetItems, WRITER_READ } from './batch-get';

/**
 * The integrity log's items, in the records table under their own partition (see layout.ts for
 * the record partitions):
 *   pk = "L#LOG", sk = "#"                 head: origin, treeSize, the latest signed checkpoint,
 *                                          and, while a writer runs, its lease (lockId, lockedAt,
 *                                          lockUntil: after that instant another writer may take it)
 *   pk = "L#LOG", sk = "E#" + index(12)    one leaf: its hash, and the reference and version it logs
 *   pk = "L#LOG", sk = "C#" + size(12)     every checkpoint published, by tree size
 * The head's treeSize is the truth: leaves at or beyond it belong to no published tree (a load
 * that stopped part-way) and are overwritten by the next load. Readers never touch the leaves:
 * each record version carries its own inclusion proof and checkpoint.
 */
export const LEDGER_PK = 'L#LOG';
export const LEDGER_HEAD_SK = '#';
const pad = (n: number): string => String(n).padStart(12, '0');
export const ledgerLeafSk = (index: number): string => `E#${pad(index)}`;
export const ledgerCheckpointSk = (treeSize: number): string => `C#${pad(treeSize)}`;
/** A hash tile of the log (C2SP tlog-tiles, the same bytes as tile/<level>/<index>): its hashes, grown in place while partial. */
export const ledgerTileSk = (level: number, index: number): string => `T#${String(level).padStart(2, '0')}#${pad(index)}`;

type Item = Record<string, AttributeValue>;

export interface LedgerHead {
  origin: string | null;
  treeSize: number;
  checkpoint: string | null;
  updatedAt: string | null;
  lock: { id: string; since: string; until: string | null } | null;
}

function headFrom(item: Item | undefined): LedgerHead | null {
  if (!item) return null;
  return {
    origin: item.origin?.S ?? null,
    treeSize: item.treeSize?.N ? Number(item.treeSize.N) : 0,
    checkpoint: item.checkpoint?.S ?? null,
    updatedAt: item.updatedAt?.S ?? null,
    lock: item.lockId?.S ? { id: item.lockId.S, since: item.lockedAt?.S ?? 'unknown', until: item.lockUntil?.S ?? null } : null,
  };
}

const headKey = (): Item => ({ pk: { S: LEDGER_PK }, sk: { S: LEDGER_HEAD_SK } });

/** The published head for the read path: one GetItem; null when nothing was ever published. */
export async function readLedgerHead(): Promise<LedgerHead | null> {
  const table = tableName();
  if (!table) throw new StoreNotConfigured();
  let item: Item | undefined;
  try {
    item = (await storeClient().send(new GetItemCommand({ TableName: table, Key: headKey() }))).Item;
  } catch (error) {
    throw new StoreUnavailable('GetItem ledger head', { cause: error });
  }
  const head = headFrom(item);
  return head && head.checkpoint ? head : null;
}

/** The head as a writer reads it (strongly consistent, through its own client); null when the table holds none. */
export async function readLedgerHeadOf(client: DynamoDBClient, table: string): Promise<LedgerHead | null> {
  return headFrom((await client.send(new GetItemCommand({ TableName: table, Key: headKey(), ConsistentRead: true }))).Item);
}

export class LedgerLockedError extends Error {
  override name = 'LedgerLockedError';
  constructor(
    readonly since: string,
    readonly until: string | null,
    /** The lease holder's lock id (a load names its host and process in it: lib/loader/lease.ts). */
    readonly holder: string | null = null,
  ) {
    super(
      `another writer (a load or the sequencer) holds the ledger since ${since}` +
        (until ? `, its lease ends ${until}` : ', with no end to its lease') +
        '; if none is running, one stopped part-way: wait for its lease to end, or run the load again with --unlock-ledger',
    );
  }
}

export interface LedgerLease {
  /** When the lease is taken (UTC ISO-8601 with milliseconds): lockedAt. */
  at: string;
  /** How long it holds: a writer that dies holding it blocks others this long at most. */
  leaseMs: number;
  /** Take it even if another writer holds it (an operator's --unlock-ledger). */
  force?: boolean;
  /**
   * Take it over from exactly this holder (a writer known to be gone, e.g. a killed load on this
   * machine): conditional on that lock id still being the one held, so of two writers taking over
   * the same lease only one succeeds.
   */
  replacing?: string;
}

/**
 * Takes the single-writer lease on the log and returns the head as it stands. Conditional on no
 * lease being held, or the one held having run out (unless `force`), so two writers never append
 * at the same indexes, and a writer that died part-way (a killed load or sequencer) stops no one
 * for longer than its lease. A lease without an end (from a version that had none) needs `force`.
 */
export async function acquireLedgerLock(client: DynamoDBClient, table: string, lockId: string, lease: LedgerLease): Promise<LedgerHead> {
  const until = new Date(Date.parse(lease.at) + lease.leaseMs).toISOString();
  try {
    const out = await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: headKey(),
        UpdateExpression: 'SET lockId = :id, lockedAt = :at, lockUntil = :until',
        ...(lease.force
          ? {}
          : { ConditionExpression: `attribute_not_exists(lockId) OR lockUntil < :at${lease.replacing ? ' OR lockId = :replacing' : ''}` }),
        ExpressionAttributeValues: {
          ':id': { S: lockId },
          ':at': { S: lease.at },
          ':until': { S: until },
          ...(lease.replacing && !lease.force ? { ':replacing': { S: lease.replacing } } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return headFrom(out.Attributes)!;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException') {
      const current = await readLedgerHeadOf(client, table);
      throw new LedgerLockedError(current?.lock?.since ?? 'an unknown time', current?.lock?.until ?? null, current?.lock?.id ?? null);
    }
    throw error;
  }
}

/** Releases the lock without publishing (a load that failed); a lock taken over by another load is left alone. */
export async function releaseLedgerLock(client: DynamoDBClient, table: string, lockId: string): Promise<void> {
  try {
    await client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: headKey(),
        UpdateExpression: 'REMOVE lockId, lockedAt, lockUntil',
        ConditionExpression: 'lockId = :id',
        ExpressionAttributeValues: { ':id': { S: lockId } },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/** Reads the hashes of leaves from..treeSize-1 in order (a few hundred per page), for a writer to rebuild (or continue) the tree. */
export async function readLedgerLeaves(
  client: DynamoDBClient,
  table: string,
  treeSize: number,
  onProgress?: (read: number, total: number) => void,
  from = 0,
): Promise<Buffer[]> {
  const leaves: Buffer[] = [];
  await forEachLedgerLeaf(client, table, treeSize, (leaf) => void leaves.push(leaf), onProgress, from);
  return leaves;
}

/**
 * Passes the hashes of leaves from..treeSize-1 to `onLeaf`, in order, a page at a time and
 * without keeping them: what a writer needs to check a log of any size in bounded memory.
 */
export async function forEachLedgerLeaf(
  client: DynamoDBClient,
  table: string,
  treeSize: number,
  onLeaf: (leaf: Buffer, index: number) => void,
  onProgress?: (read: number, total: number) => void,
  from = 0,
): Promise<void> {
  if (treeSize <= from) return;
  const pages = paginateQuery(
    { client },
    {
      TableName: table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':pk': { S: LEDGER_PK }, ':first': { S: ledgerLeafSk(from) }, ':last': { S: ledgerLeafSk(treeSize - 1) } },
      ProjectionExpression: 'sk, leafHash',
      ConsistentRead: true,
    },
  );
  let next = from;
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      if (item.sk?.S !== ledgerLeafSk(next) || !item.leafHash?.B) throw new Error(`the ledger is missing leaf ${next} (found ${item.sk?.S ?? 'nothing'})`);
      onLeaf(Buffer.from(item.leafHash.B), next++);
    }
    onProgress?.(next, treeSize);
  }
  if (next !== treeSize) throw new Error(`the ledger head says ${treeSize} leaves but ${next} are stored`);
}

export interface LeafToStore {
  index: number;
  leafHash: Uint8Array;
  reference: string;
  version: number;
}

export function ledgerLeafItems(leaves: readonly LeafToStore[]): Item[] {
  return leaves.map((leaf) => ({
    pk: { S: LEDGER_PK },
    sk: { S: ledgerLeafSk(leaf.index) },
    leafHash: { B: leaf.leafHash },
    reference: { S: leaf.reference },
    version: { N: String(leaf.version) },
  }));
}

/**
 * Records the checkpoint in the history, then publishes the new head (tree size and signed
 * checkpoint) in one write conditional on still holding the lease; fails if it was lost. The
 * writer keeps the lease (it still has records to write) and releases it when done.
 */
export async function publishLedgerHead(
  client: DynamoDBClient,
  table: string,
  lockId: string,
  head: { origin: string; treeSize: number; checkpoint: string; at: string },
): Promise<void> {
  await client.send(new PutItemCommand({ TableName: table, Item: ledgerCheckpointItem(head) }));
  await client.send(
    new UpdateItemCommand({
      TableName: table,
      Key: headKey(),
      UpdateExpression: 'SET origin = :origin, treeSize = :size, checkpoint = :checkpoint, updatedAt = :at',
      ConditionExpression: 'lockId = :id',
      ExpressionAttributeValues: {
        ':origin': { S: head.origin },
        ':size': { N: String(head.treeSize) },
        ':checkpoint': { S: head.checkpoint },
        ':at': { S: head.at },
        ':id': { S: lockId },
      },
    }),
  );
}

/** The checkpoint history's item for one published size. */
export function ledgerCheckpointItem(head: { treeSize: number; checkpoint: string; at: string }): Item {
  return { pk: { S: LEDGER_PK }, sk: { S: ledgerCheckpointSk(head.treeSize) }, checkpoint: { S: head.checkpoint }, at: { S: head.at } };
}

/** The head item as a writer leaves it once it has published and released its lease (for a table made from an export). */
export function ledgerHeadItem(head: { origin: string; treeSize: number; checkpoint: string; at: string }): Item {
  return { ...headKey(), origin: { S: head.origin }, treeSize: { N: String(head.treeSize) }, checkpoint: { S: head.checkpoint }, updatedAt: { S: head.at } };
}

export interface HashTileToStore {
  level: number;
  index: number;
  /** The tile's hashes, concatenated (width · 32 bytes). */
  hashes: Uint8Array;
}

export function ledgerTileItems(tiles: readonly HashTileToStore[]): Item[] {
  return tiles.map((tile) => ({ pk: { S: LEDGER_PK }, sk: { S: ledgerTileSk(tile.level, tile.index) }, hashes: { B: tile.hashes } }));
}

/**
 * The read path's view of the log for a consistency proof: the published head and the hash tiles
 * the proof is built from, in one BatchGetItem (the keys follow from the two sizes asked, so the
 * head need not be read first). Keys DynamoDB leaves unprocessed are asked again.
 */
export async function readLedgerTiles(
  tiles: ReadonlyArray<{ level: number; index: number }>,
): Promise<{ head: LedgerHead | null; tiles: Map<string, Uint8Array> }> {
  const table = tableName();
  if (!table) throw new StoreNotConfigured();
  if (tiles.length + 1 > BATCH_GET_KEYS) throw new StoreUnavailable(`${tiles.length} tiles are more than one request reads`);
  const keys: Item[] = [headKey(), ...tiles.map((t) => ({ pk: { S: LEDGER_PK }, sk: { S: ledgerTileSk(t.level, t.index) } }))];
  let items: Item[];
  try {
    // The read path asks again at once, three times at most: it answers a person, not a batch.
    items = await batchGetItems(storeClient(), table, keys, { consistentRead: false, maxAttempts: 3, backoffMs: 0 });
  } catch (error) {
    if (error instanceof StoreUnavailable) throw error;
    throw new StoreUnavailable('BatchGetItem ledger tiles', { cause: error });
  }
  const byKey = new Map<string, Uint8Array>();
  let head: LedgerHead | null = null;
  for (const item of items) {
    if (item.sk?.S === LEDGER_HEAD_SK) head = headFrom(item);
    else if (item.sk?.S && item.hashes?.B) byKey.set(item.sk.S, item.hashes.B);
  }
  return { head, tiles: byKey };
}

/**
 * The batch journal: a batch's record writes, stored before its head is published.
 *   pk = "L#LOG", sk = "J#" + chunk(6)   the items to write, a few hundred per chunk, as
 *                                        gzip-compressed JSON (binary): the items repeat their
 *                                        evidence and checkpoint text, so a chunk is a fraction
 *                                        of its items' size to write, store and read
 *   pk = "L#LOG", sk = "J#"              the header, written after every chunk: the tree size the
 *                                        batch publishes, the number of chunks, and whether all
 *                                        its items are written
 * A batch stopped after publishing its head but before writing all its items leaves a header
 * whose treeSize is the head's and that is not done; the next writer, holding the lease, writes
 * the journal's items before anything else, so every version the published log holds reaches
 * its record. Overwritten by the next journaled batch.
 */
const JOURNAL_SK = 'J#';
/** node:zlib when a journal is first written or read (process.getBuiltinModule: not at a function's start, which reads never pay for). */
const zlib = (): typeof import('node:zlib') => process.getBuiltinModule('node:zlib');
const journalChunkSk = (chunk: number): string => `J#${String(chunk).padStart(6, '0')}`;
/** Uncompressed JSON per chunk: below DynamoDB's 400 KB item limit even if gzip could not shrink it at all. */
const JOURNAL_CHUNK_BYTES = 300_000;

export interface JournalHeader {
  treeSize: number;
  chunks: number;
  done: boolean;
}

/** The journal of `items` for a batch publishing `treeSize`: chunk items, then the header (write them in this order). */
export function journalItems(treeSize: number, items: readonly Item[]): Item[] {
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
  return [...chunks, journalHeaderItem({ treeSize, chunks: chunks.length, done: false })];
}

export function journalHeaderItem(header: JournalHeader): Item {
  return { pk: { S: LEDGER_PK }, sk: { S: JOURNAL_SK }, treeSize: { N: String(header.treeSize) }, chunks: { N: String(header.chunks) }, done: { BOOL: header.done } };
}

/** The journal's header (strongly consistent); null when no batch was ever journaled. */
export async function readJournalHeader(client: DynamoDBClient, table: string): Promise<JournalHeader | null> {
  const out = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: LEDGER_PK }, sk: { S: JOURNAL_SK } }, ConsistentRead: true }));
  if (!out.Item) return null;
  return { treeSize: Number(out.Item.treeSize!.N), chunks: Number(out.Item.chunks!.N), done: out.Item.done?.BOOL === true };
}

/** The items the journal under `header` holds, in order (strongly consistent Queries of its chunks). */
export async function readJournalItems(client: DynamoDBClient, table: string, header: JournalHeader): Promise<Item[]> {
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
  for await (const page of pages) {
    for (const chunk of page.Items ?? []) items.push(...(JSON.parse(chunk.items!.B ? zlib().gunzipSync(chunk.items!.B).toString('utf8') : chunk.items!.S!) as Item[]));
  }
  return items;
}

/**
 * The writer's read of the hash tiles a log of `treeSize` leaves is opened from (its partial tile
 * at each level): one strongly consistent BatchGetItem, by level. A tile stored wider than the
 * published size (grown by a batch that stopped before publishing) is returned as stored; the
 * caller takes the hashes the size covers, which that batch could not have changed.
 */
export async function readLedgerEdgeTiles(client: DynamoDBClient, table: string, tiles: ReadonlyArray<{ level: number; index: number }>): Promise<Map<number, Uint8Array>> {
  const levelOf = new Map(tiles.map((t) => [ledgerTileSk(t.level, t.index), t.level]));
  const items = await batchGetItems(client, table, tiles.map((t) => ({ pk: { S: LEDGER_PK }, sk: { S: ledgerTileSk(t.level, t.index) } })), WRITER_READ);
  return new Map(items.flatMap((item) => (item.sk?.S && item.hashes?.B ? [[levelOf.get(item.sk.S)!, item.hashes.B] as const] : [])));
}
