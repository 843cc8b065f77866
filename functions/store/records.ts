import { GetItemCommand, paginateQuery, QueryCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { batchGetItems, WRITER_READ } from './batch-get';
import { StoreNotConfigured, StoreUnavailable } from './errors';
import { logger } from '../logging/logger';
import { storeClient, tableName } from './client';
import { canonicalInstant, cutSk, GENESIS_SK, recordPk } from './layout';

/** One stored timeline entry with what was in force at its instant (see layout.ts). */
export interface StoredEntry<Entry = Record<string, unknown>, View = Record<string, unknown>, Head = Record<string, unknown>> {
  at: string;
  entry: Entry;
  view: View;
  head: Head;
  /**
   * The head exactly as the table holds it, when it was read from the table: equal texts are equal
   * heads, so what depends on the head alone can be remembered by it (functions/domain/evidence.ts).
   */
  headText?: string;
}

export interface RecordWindow<E = Record<string, unknown>, V = Record<string, unknown>, H = Record<string, unknown>> {
  /** False when the reference has no items at all. */
  exists: boolean;
  /** The record's kind (from the genesis item or the newest entry), null when it does not exist. */
  kind: string | null;
  /** Entries at or before the cut, newest first, at most `limit`. */
  entries: StoredEntry<E, V, H>[];
  /** True when older entries exist below the window. */
  more: boolean;
}

/**
 * A stored entry whose view and head (its state and its evidence, the larger part) are parsed
 * when first read. Every entry's timeline part is shown, but only the newest entry's view and head
 * are read: parsing the others was most of a 50-entry read's CPU time and garbage.
 */
class StoredItemEntry<E, V, H> implements StoredEntry<E, V, H> {
  #view: V | undefined;
  #head: H | undefined;

  constructor(
    readonly at: string,
    readonly entry: E,
    private readonly viewText: string,
    readonly headText: string,
  ) {}

  get view(): V {
    return (this.#view ??= JSON.parse(this.viewText) as V);
  }

  get head(): H {
    return (this.#head ??= JSON.parse(this.headText) as H);
  }

  /** Serialises as the plain entry it stands for. */
  toJSON(): StoredEntry<E, V, H> {
    return { at: this.at, entry: this.entry, view: this.view, head: this.head };
  }
}

/**
 * Reads the record as it stood at `at`: one Query, descending, `sk <= cut`, Limit window + 2
 * (the window, one to tell whether more exist, and room for the genesis item).
 */
export async function readRecordWindow<E, V, H>(reference: string, at: string, limit: number): Promise<RecordWindow<E, V, H>> {
  const table = tableName();
  if (!table) throw new StoreNotConfigured();
  let items;
  const started = performance.now();
  try {
    const out = await storeClient().send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND sk <= :cut',
        ExpressionAttributeValues: { ':pk': { S: recordPk(reference) }, ':cut': { S: cutSk(at) } },
        ScanIndexForward: false,
        Limit: limit + 2,
      }),
    );
    items = out.Items ?? [];
  } catch (error) {
    throw new StoreUnavailable('Query record window', { cause: error });
  }
  logger.debug('store read', { operation: 'Query record window', items: items.length, ms: Math.round(performance.now() - started) });
  const entries: StoredEntry<E, V, H>[] = [];
  let kind: string | null = null;
  for (const item of items) {
    if (item.sk?.S === GENESIS_SK) {
      kind = item.kind?.S ?? null;
      continue;
    }
    entries.push(new StoredItemEntry<E, V, H>(item.at!.S!, JSON.parse(item.entry!.S!), item.view!.S!, item.head!.S!));
  }
  const more = entries.length > limit;
  if (more) entries.length = limit;
  kind ??= entries.length > 0 ? ((entries[0].head as { kind?: string }).kind ?? null) : null;
  return { exists: items.length > 0, kind, entries, more };
}

/** A stored entry with its sort key, as the sequencer reads a whole record back. */
export interface StoredEntryItem {
  /** The entry's sort key: its identity in the store, handed back when the entry is written again. */
  id: string;
  at: string;
  entry: Record<string, unknown>;
  view: Record<string, unknown>;
  head: { kind: string; reference: string; version: number; content: Record<string, unknown>; evidence: { version: number; [field: string]: unknown } | null; restricted?: Record<string, unknown> };
  /** The pending delivery that produced this entry, when one did (never shown: not part of the entry). */
  eventKey: string | null;
}

/**
 * Every entry of a record, oldest first, strongly consistent (the writer's read, under the ledger
 * lease): the sequencer integrates events into the whole timeline. Null when the record does not exist.
 */
export async function readWholeRecord(client: DynamoDBClient, table: string, reference: string): Promise<WholeRecord | null> {
  const entries: StoredEntryItem[] = [];
  let kind: string | null = null;
  let setAside: string[] = [];
  let exists = false;
  const pages = paginateQuery({ client }, { TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: recordPk(reference) } }, ConsistentRead: true });
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      exists = true;
      if (item.sk?.S === GENESIS_SK) {
        const genesis = genesisOf(item);
        kind = genesis.kind;
        setAside = genesis.setAside;
        continue;
      }
      entries.push(entryOf(item));
    }
  }
  return exists ? { kind: kind ?? entries[0]?.head.kind ?? null, entries, setAside } : null;
}

export interface WholeRecord {
  kind: string | null;
  entries: StoredEntryItem[];
  /** Deliveries set aside for this record, tried again with its next events (docs/ingress.md#rules-of-order). */
  setAside: string[];
}

const entryOf = (item: Record<string, AttributeValue>): StoredEntryItem => ({
  id: item.sk!.S!,
  at: item.at!.S!,
  entry: JSON.parse(item.entry!.S!),
  view: JSON.parse(item.view!.S!),
  head: JSON.parse(item.head!.S!),
  eventKey: item.eventKey?.S ?? null,
});

export interface RecordGenesis {
  kind: string | null;
  setAside: string[];
  /** The record's highest version (written by loads and the sequencer; null on a record stored before it was kept). */
  highestVersion: number | null;
}

const genesisOf = (item: Record<string, AttributeValue>): RecordGenesis => ({
  kind: item.kind?.S ?? null,
  setAside: item.setAside?.S ? (JSON.parse(item.setAside.S) as string[]) : [],
  highestVersion: item.highestVersion?.N ? Number(item.highestVersion.N) : null,
});

/** The record's genesis item (strongly consistent); null when the record does not exist. */
export async function readRecordGenesis(client: DynamoDBClient, table: string, reference: string): Promise<RecordGenesis | null> {
  const out = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: recordPk(reference) }, sk: { S: GENESIS_SK } }, ConsistentRead: true }));
  return out.Item ? genesisOf(out.Item) : null;
}

/**
 * The part of a record's timeline the sequencer needs for events stating `from` or later: every
 * entry at or after that instant, and the entry just before it (the view and version in force
 * then), in two strongly consistent Queries, however long the history before it.
 */
export async function readRecordFrom(client: DynamoDBClient, table: string, reference: string, from: string): Promise<{ before: StoredEntryItem | null; entries: StoredEntryItem[] }> {
  const pk = { S: recordPk(reference) };
  const boundary = `T#${canonicalInstant(from)}#`;
  const prior = await client.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :boundary',
      ExpressionAttributeValues: { ':pk': pk, ':first': { S: 'T#' }, ':boundary': { S: boundary } },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const entries: StoredEntryItem[] = [];
  const pages = paginateQuery({ client }, { TableName: table, KeyConditionExpression: 'pk = :pk AND sk > :boundary', ExpressionAttributeValues: { ':pk': pk, ':boundary': { S: boundary } }, ConsistentRead: true });
  for await (const page of pages) entries.push(...(page.Items ?? []).map(entryOf));
  return { before: prior.Items?.[0] ? entryOf(prior.Items[0]) : null, entries };
}

/** What a load needs to know of a stored record before writing it again. */
export interface LoadState {
  /** The sequencer has changed it: a load keeps it as the events made it. */
  changedByEvents: boolean;
  /** The digest of what a load last wrote completely (write.ts loadedGenesisItem), or null. */
  loadDigest: string | null;
}

/** The load state of each of `references` that exists (their genesis items): strongly consistent, 100 per request. */
export async function readLoadStates(client: DynamoDBClient, table: string, references: readonly string[]): Promise<Map<string, LoadState>> {
  const items = await batchGetItems(client, table, references.map((r) => ({ pk: { S: recordPk(r) }, sk: { S: GENESIS_SK } })), {
    ...WRITER_READ,
    projection: { expression: '#reference, changedByEvents, loadDigest', names: { '#reference': 'reference' } },
  });
  return new Map(
    items.flatMap((item) => (item.reference?.S ? [[item.reference.S, { changedByEvents: item.changedByEvents?.BOOL === true, loadDigest: item.loadDigest?.S ?? null }] as const] : [])),
  );
}
