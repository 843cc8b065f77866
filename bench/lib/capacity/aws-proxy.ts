/**
 * An HTTP proxy in front of the local AWS stand-ins (dynalite for DynamoDB, s3rver for S3, the KMS
 * stand-in), through which the bench points every process it starts (AWS_ENDPOINT_URL_DYNAMODB,
 * AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL_KMS): the functions' bundles, the loader, the sequencer. It
 *   - adds a fixed delay to every call (what a network round trip to AWS adds on this machine, where
 *     the stand-ins answer in about a millisecond);
 *   - counts the S3 and KMS calls by operation, and Lambda invocations (the sequencer's of its part
 *     writers) by function: an invocation is delayed like any call but is no round trip of its
 *     caller's own in `trips` (the part writers' calls, made while it runs, are: they are what it waits on);
 *   - prices every DynamoDB request with DynamoDB's documented sizing rules (units.ts), by the items
 *     the request really read and wrote: it reads an item's old image before a write (to price an
 *     update on the larger of before and after, and the index entries a write removes), the new
 *     image after an UpdateItem, and the whole items behind a projected or filtered read (a
 *     projection or a filter reduces nothing); those side requests are its own, neither delayed
 *     nor counted. Units are attributed to the partition that pays them: the table's partition key,
 *     or an index's partition key for a Query on the index and for the index writes a table write
 *     causes.
 *   - compares its figure for each request with the ConsumedCapacity dynalite reports for it (a
 *     second implementation of the same rules; it prices no index writes), keeping the disagreements;
 *   - keeps, when told a filter (settings.stream), the table's stream as an event source mapping
 *     with that filter hands it to a function: the INSERTs (a put of an item that was not there)
 *     the filter admits, with their keys and new image, until taken (/__bench/stream), so the bench
 *     wakes the sequencer with the stream batch AWS would give it.
 * It speaks the DynamoDB JSON protocol (X-Amz-Target, JSON bodies), so it sees what any SDK in any
 * process sends, and it knows no table of this project: key schemas and indexes come from
 * DescribeTable. Settings and figures are read and reset over HTTP under /__bench/ on the DynamoDB
 * port (proxyControl below).
 *
 * Run alone: `tsx bench/lib/capacity/aws-proxy.ts --dynamodb URL [--s3 URL] [--kms URL]` prints
 * one JSON line with its endpoints and serves until stopped.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { INVOKE_PATH } from '../../../lib/local/lambda-stand-in';
import { keepingIdleConnections, listenOnLoopback } from '../../../lib/local/listen';
import {
  keyClass,
  keyValue,
  priceFailedConditionalWrite,
  priceItemRead,
  priceItemWrite,
  priceItemsRead,
  type Charge,
  type IndexSchema,
  type Item,
  type ReadConsistency,
  type TableSchema,
} from './units';

export interface ProxySettings {
  /** Price DynamoDB requests (off: forward only, as fast as the proxy goes). */
  accounting: boolean;
  /** Milliseconds added to every call before it is forwarded. */
  delayMs: number;
  /** The stream records to keep (none when null). */
  stream: StreamFilter | null;
}

/** An event source mapping's filter on the table's stream: INSERTs whose partition key, and one attribute of the new image, begin so. */
export interface StreamFilter {
  partitionKeyPrefix: string;
  attribute: string;
  attributePrefix: string;
}

/** A stream record as Lambda hands it over (NEW_IMAGE). */
export interface StreamRecord {
  eventName: 'INSERT';
  eventSource: 'aws:dynamodb';
  dynamodb: { Keys: Item; NewImage: Item; StreamViewType: 'NEW_IMAGE' };
}

export interface PartitionUsage {
  table: string;
  index?: string;
  partitionKey: string;
  readUnits: number;
  writeUnits: number;
  /** Requests that charged this partition. */
  requests: number;
}

/** Units by the class of the item's sort key inside one partition (the ledger's leaves, tiles, checkpoints, journal and head share L#LOG). */
export interface SortClassUsage {
  table: string;
  partitionKey: string;
  sortClass: string;
  readUnits: number;
  writeUnits: number;
}

export interface Disagreement {
  operation: string;
  ours: number;
  dynalite: number;
  detail: string;
}

export interface AccountingSnapshot {
  settings: ProxySettings;
  totals: { requests: number; readUnits: number; writeUnits: number; indexWriteUnits: number };
  operations: Record<string, { requests: number; readUnits: number; writeUnits: number }>;
  partitions: PartitionUsage[];
  sortClasses: SortClassUsage[];
  /** S3 and KMS calls by operation (S3: method and whether the path names an object), Lambda invocations by function. */
  calls: { s3: Record<string, number>; kms: Record<string, number>; lambda: Record<string, number> };
  /**
   * Calls to any of the three services, and how many of them started while none was in flight:
   * with one caller, the round trips it made one after another (calls sent together count once).
   */
  trips: { calls: number; sequential: number; sequentialByService: Record<'dynamodb' | 's3' | 'kms', number>; byOperation: Record<string, number> };
  /**
   * Our figures against dynalite's: requests compared, agreeing, differing for a reason known and
   * documented (docs/capacity.md), and the first unexplained differences.
   */
  dynalite: {
    compared: number;
    agreed: number;
    explained: Record<string, number>;
    byOperation: Record<string, { compared: number; agreed: number }>;
    disagreements: Disagreement[];
  };
}

/** A read that found nothing: DynamoDB charges the minimum (as for an item that does not exist), dynalite nothing. */
export const EMPTY_READ = 'a read that found no item: the minimum here, nothing in dynalite';

const PRICED = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactGetItems', 'TransactWriteItems']);
const SCHEMA_CHANGES = new Set(['CreateTable', 'UpdateTable', 'DeleteTable']);
/** The writes that may insert an item the stream hands on. */
const STREAMED = new Set(['PutItem', 'BatchWriteItem', 'TransactWriteItems']);
const KEPT_DISAGREEMENTS = 25;

interface Upstream {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function send(base: string, method: string, path: string, headers: http.OutgoingHttpHeaders, body: Buffer | undefined, again = true): Promise<Upstream> {
  const url = new URL(path, base);
  // The caller's Host stays: S3 signs it, and the stand-ins serve any host.
  const forwarded: Record<string, unknown> = { host: url.host, ...headers };
  // The body is sent whole, with its own length.
  for (const name of ['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'expect']) delete forwarded[name];
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...(forwarded as http.OutgoingHttpHeaders), ...(body ? { 'content-length': body.length } : {}) }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 500, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive connection its server closed (s3rver's, idle 5 s) as this request went out on
      // it: sent once more, on a new connection (Node's documented case for request.reusedSocket).
      if (again && req.reusedSocket && error.code === 'ECONNRESET') resolve(send(base, method, path, headers, body, false));
      else reject(error);
    });
    req.end(body);
  });
}

const readBody = (req: http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

function reply(res: http.ServerResponse, upstream: Upstream, body = upstream.body, method = 'POST'): void {
  const headers = { ...upstream.headers };
  // A HEAD answer's length is the object's, not its (empty) body's.
  if (method === 'HEAD') {
    res.writeHead(upstream.status, headers);
    res.end();
    return;
  }
  delete headers['content-length'];
  delete headers['transfer-encoding'];
  delete headers.connection;
  delete headers['keep-alive'];
  // DynamoDB's checksum of the body: the SDK checks it, so a rewritten body carries its own.
  if (headers['x-amz-crc32'] !== undefined) headers['x-amz-crc32'] = String(crc32(body));
  res.writeHead(upstream.status, { ...headers, 'content-length': body.length });
  res.end(body);
}

/** The names (#n) and values (:v) an expression uses. */
function tokensOf(expression: string | undefined): Set<string> {
  return new Set((expression ?? '').match(/[#:][A-Za-z0-9_]+/g) ?? []);
}

function pick<T>(map: Record<string, T> | undefined, keep: Set<string>): Record<string, T> | undefined {
  if (!map) return undefined;
  const out = Object.fromEntries(Object.entries(map).filter(([k]) => keep.has(k)));
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The partition key value a Query's key condition names (`#pk = :v`, `pk = :v`). */
function queryPartitionKey(request: any, partitionKeyName: string): string {
  const expression: string = request.KeyConditionExpression ?? '';
  for (const match of expression.matchAll(/([#A-Za-z0-9_]+)\s*=\s*(:[A-Za-z0-9_]+)/g)) {
    const name = match[1].startsWith('#') ? request.ExpressionAttributeNames?.[match[1]] : match[1];
    if (name === partitionKeyName) return keyValue(request.ExpressionAttributeValues?.[match[2]]) ?? '?';
  }
  const legacy = request.KeyConditions?.[partitionKeyName]?.AttributeValueList?.[0];
  return keyValue(legacy) ?? '?';
}

function schemaOf(description: any): TableSchema {
  const key = (schema: any[], type: string) => schema.find((k) => k.KeyType === type)?.AttributeName as string | undefined;
  return {
    name: description.TableName,
    partitionKey: key(description.KeySchema, 'HASH')!,
    sortKey: key(description.KeySchema, 'RANGE'),
    indexes: (description.GlobalSecondaryIndexes ?? []).map(
      (index: any): IndexSchema => ({
        name: index.IndexName,
        partitionKey: key(index.KeySchema, 'HASH')!,
        sortKey: key(index.KeySchema, 'RANGE'),
        projection:
          index.Projection?.ProjectionType === 'INCLUDE'
            ? { type: 'INCLUDE', attributes: index.Projection.NonKeyAttributes ?? [] }
            : { type: index.Projection?.ProjectionType === 'ALL' ? 'ALL' : 'KEYS_ONLY' },
      }),
    ),
  };
}

export interface AwsProxy {
  dynamodb: string;
  s3?: string;
  kms?: string;
  lambda?: string;
  settings: ProxySettings;
  snapshot(): AccountingSnapshot;
  reset(): void;
  close(): Promise<void>;
}

export async function startAwsProxy(options: { dynamodb: string; s3?: string; kms?: string; lambda?: string; settings?: Partial<ProxySettings> }): Promise<AwsProxy> {
  const settings: ProxySettings = { accounting: true, delayMs: 0, stream: null, ...options.settings };
  /** The stream records kept since they were last taken (settings.stream). */
  let streamRecords: StreamRecord[] = [];
  const schemas = new Map<string, Promise<TableSchema>>();
  let state = emptyState();

  function emptyState() {
    return {
      totals: { requests: 0, readUnits: 0, writeUnits: 0, indexWriteUnits: 0 },
      operations: new Map<string, { requests: number; readUnits: number; writeUnits: number }>(),
      partitions: new Map<string, PartitionUsage>(),
      sortClasses: new Map<string, SortClassUsage>(),
      s3: new Map<string, number>(),
      kms: new Map<string, number>(),
      lambda: new Map<string, number>(),
      trips: { calls: 0, sequential: 0, sequentialByService: { dynamodb: 0, s3: 0, kms: 0 }, byOperation: {} as Record<string, number> },
      dynalite: { compared: 0, agreed: 0, explained: new Map<string, number>(), byOperation: new Map<string, { compared: number; agreed: number }>(), disagreements: [] as Disagreement[] },
    };
  }

  let inFlight = 0;
  /** Counts a caller's call while it runs (from its arrival to its answer). */
  const trip = async <T>(service: 'dynamodb' | 's3' | 'kms', work: () => Promise<T>, operation: string = service): Promise<T> => {
    state.trips.calls++;
    state.trips.byOperation[operation] = (state.trips.byOperation[operation] ?? 0) + 1;
    if (inFlight++ === 0) {
      state.trips.sequential++;
      state.trips.sequentialByService[service]++;
    }
    try {
      return await work();
    } finally {
      inFlight--;
    }
  };

  const side = async (operation: string, request: unknown): Promise<any> => {
    const body = Buffer.from(JSON.stringify(request));
    const out = await send(options.dynamodb, 'POST', '/', {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `DynamoDB_20120810.${operation}`,
      'x-amz-date': '20260101T000000Z',
      authorization: 'AWS4-HMAC-SHA256 Credential=bench/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=bench',
    }, body);
    const parsed = JSON.parse(out.body.toString('utf8'));
    if (out.status !== 200) throw new Error(`accounting ${operation}: ${parsed.__type ?? out.status} ${parsed.message ?? ''}`);
    return parsed;
  };

  const schema = (table: string): Promise<TableSchema> => {
    let known = schemas.get(table);
    if (!known) {
      known = side('DescribeTable', { TableName: table }).then((out) => schemaOf(out.Table));
      known.catch(() => schemas.delete(table));
      schemas.set(table, known);
    }
    return known;
  };

  const keyOf = (s: TableSchema, item: Item): Item => ({ [s.partitionKey]: item[s.partitionKey], ...(s.sortKey ? { [s.sortKey]: item[s.sortKey] } : {}) });
  const keyString = (s: TableSchema, item: Item) => JSON.stringify([item[s.partitionKey], s.sortKey ? item[s.sortKey] : null]);

  const getWhole = async (table: string, key: Item, consistent = true): Promise<Item | undefined> => (await side('GetItem', { TableName: table, Key: key, ConsistentRead: consistent })).Item;

  /** Whole items by key (BatchGetItem, 100 keys a call, retried until none is left unprocessed). */
  const getMany = async (table: string, keys: Item[], consistent = true): Promise<Map<string, Item>> => {
    const s = await schema(table);
    const out = new Map<string, Item>();
    for (let start = 0; start < keys.length; start += 100) {
      let pending = keys.slice(start, start + 100);
      while (pending.length > 0) {
        const res = await side('BatchGetItem', { RequestItems: { [table]: { Keys: pending, ConsistentRead: consistent } } });
        for (const item of (res.Responses?.[table] ?? []) as Item[]) out.set(keyString(s, item), item);
        pending = res.UnprocessedKeys?.[table]?.Keys ?? [];
      }
    }
    return out;
  };

  const consistencyOf = (request: any): ReadConsistency => (request.ConsistentRead ? 'strong' : 'eventual');

  /** Old images the write needs, by table and key. */
  async function before(operation: string, request: any): Promise<Map<string, Map<string, Item>>> {
    const wanted = new Map<string, Item[]>();
    const add = async (table: string, itemOrKey: Item) => {
      const s = await schema(table);
      wanted.set(table, [...(wanted.get(table) ?? []), keyOf(s, itemOrKey)]);
    };
    if (operation === 'PutItem') await add(request.TableName, request.Item);
    if (operation === 'UpdateItem' || operation === 'DeleteItem') await add(request.TableName, request.Key);
    if (operation === 'BatchWriteItem') {
      for (const [table, writes] of Object.entries(request.RequestItems ?? {}) as [string, any[]][]) {
        for (const w of writes) await add(table, w.PutRequest?.Item ?? w.DeleteRequest?.Key);
      }
    }
    if (operation === 'TransactWriteItems') {
      for (const action of request.TransactItems ?? []) {
        const a = action.Put ?? action.Update ?? action.Delete ?? action.ConditionCheck;
        await add(a.TableName, a.Item ?? a.Key);
      }
    }
    const images = new Map<string, Map<string, Item>>();
    for (const [table, keys] of wanted) images.set(table, await getMany(table, keys));
    return images;
  }

  async function price(operation: string, request: any, status: number, response: any, images: Map<string, Map<string, Item>>): Promise<Charge[]> {
    const old = async (table: string, item: Item) => images.get(table)?.get(keyString(await schema(table), item));
    const conditionFailed = status === 400 && String(response.__type ?? '').endsWith('ConditionalCheckFailedException');
    if (status !== 200 && !conditionFailed) return [];
    switch (operation) {
      case 'GetItem': {
        const s = await schema(request.TableName);
        const projected = request.ProjectionExpression || request.AttributesToGet;
        const item = projected ? await getWhole(request.TableName, request.Key, Boolean(request.ConsistentRead)) : response.Item;
        return [priceItemRead(s, request.Key, item, consistencyOf(request))];
      }
      case 'BatchGetItem': {
        const charges: Charge[] = [];
        for (const [table, spec] of Object.entries(request.RequestItems ?? {}) as [string, any][]) {
          const s = await schema(table);
          const unprocessed = new Set(((response.UnprocessedKeys?.[table]?.Keys ?? []) as Item[]).map((k) => keyString(s, k)));
          const keys = (spec.Keys as Item[]).filter((k) => !unprocessed.has(keyString(s, k)));
          const projected = spec.ProjectionExpression || spec.AttributesToGet;
          const items = projected ? await getMany(table, keys, Boolean(spec.ConsistentRead)) : new Map(((response.Responses?.[table] ?? []) as Item[]).map((i) => [keyString(s, i), i]));
          for (const key of keys) charges.push(priceItemRead(s, key, items.get(keyString(s, key)), spec.ConsistentRead ? 'strong' : 'eventual'));
        }
        return charges;
      }
      case 'Query':
      case 'Scan': {
        const s = await schema(request.TableName);
        const index = request.IndexName ? s.indexes.find((i) => i.name === request.IndexName) : undefined;
        const reduced = request.ProjectionExpression || request.AttributesToGet || request.FilterExpression || request.QueryFilter || request.ScanFilter || (request.Select && request.Select !== 'ALL_ATTRIBUTES' && request.Select !== 'ALL_PROJECTED_ATTRIBUTES');
        let items: Item[] = response.Items ?? [];
        if (reduced) {
          // The same read without what narrows the answer: the items DynamoDB evaluated, whole.
          const used = tokensOf(request.KeyConditionExpression);
          const whole = { ...request, ExpressionAttributeNames: pick(request.ExpressionAttributeNames, used), ExpressionAttributeValues: pick(request.ExpressionAttributeValues, used) };
          for (const name of ['ProjectionExpression', 'AttributesToGet', 'FilterExpression', 'QueryFilter', 'ScanFilter', 'ConditionalOperator', 'Select', 'ReturnConsumedCapacity']) delete whole[name];
          items = (await side(operation, whole)).Items ?? [];
        }
        const partitionKey = operation === 'Query' ? queryPartitionKey(request, index ? index.partitionKey : s.partitionKey) : '(scan)';
        return [priceItemsRead(s, partitionKey, items, consistencyOf(request), index?.name)];
      }
      case 'PutItem': {
        const s = await schema(request.TableName);
        const existing = await old(request.TableName, request.Item);
        if (conditionFailed) return [priceFailedConditionalWrite(s, keyOf(s, request.Item), existing, request.Item)];
        return priceItemWrite(s, existing, request.Item);
      }
      case 'UpdateItem': {
        const s = await schema(request.TableName);
        const existing = await old(request.TableName, request.Key);
        if (conditionFailed) return [priceFailedConditionalWrite(s, request.Key, existing, undefined)];
        return priceItemWrite(s, existing, await getWhole(request.TableName, request.Key));
      }
      case 'DeleteItem': {
        const s = await schema(request.TableName);
        const existing = await old(request.TableName, request.Key);
        if (conditionFailed) return [priceFailedConditionalWrite(s, request.Key, existing, undefined)];
        // Deleting nothing still costs a write unit, like a write of an empty item.
        return existing ? priceItemWrite(s, existing, undefined) : [priceFailedConditionalWrite(s, request.Key, undefined, undefined)];
      }
      case 'BatchWriteItem': {
        const charges: Charge[] = [];
        for (const [table, writes] of Object.entries(request.RequestItems ?? {}) as [string, any[]][]) {
          const s = await schema(table);
          const unprocessed = new Set(((response.UnprocessedItems?.[table] ?? []) as any[]).map((w) => keyString(s, w.PutRequest?.Item ?? w.DeleteRequest?.Key)));
          for (const w of writes) {
            const item: Item = w.PutRequest?.Item ?? w.DeleteRequest.Key;
            if (unprocessed.has(keyString(s, item))) continue;
            const existing = await old(table, item);
            if (w.PutRequest) charges.push(...priceItemWrite(s, existing, w.PutRequest.Item));
            else charges.push(...(existing ? priceItemWrite(s, existing, undefined) : [priceFailedConditionalWrite(s, item, undefined, undefined)]));
          }
        }
        return charges;
      }
      case 'TransactGetItems': {
        const charges: Charge[] = [];
        for (const { Get } of request.TransactItems ?? []) charges.push(priceItemRead(await schema(Get.TableName), Get.Key, await getWhole(Get.TableName, Get.Key), 'transactional'));
        return charges;
      }
      case 'TransactWriteItems': {
        if (status !== 200) return [];
        const charges: Charge[] = [];
        for (const action of request.TransactItems ?? []) {
          const a = action.Put ?? action.Update ?? action.Delete ?? action.ConditionCheck;
          const s = await schema(a.TableName);
          const existing = await old(a.TableName, a.Item ?? a.Key);
          if (action.Put) charges.push(...priceItemWrite(s, existing, a.Item, true));
          else if (action.Update) charges.push(...priceItemWrite(s, existing, await getWhole(a.TableName, a.Key), true));
          else if (action.Delete) charges.push(...(existing ? priceItemWrite(s, existing, undefined, true) : []));
          // A condition check writes nothing; it is charged as a transactional write of the item it reads (an assumption: docs/capacity.md).
          else charges.push(priceFailedConditionalWrite(s, a.Key, existing, undefined, true));
        }
        return charges;
      }
      default:
        return [];
    }
  }

  function record(operation: string, charges: Charge[]): void {
    const op = state.operations.get(operation) ?? { requests: 0, readUnits: 0, writeUnits: 0 };
    op.requests++;
    state.totals.requests++;
    for (const c of charges) {
      op.readUnits += c.readUnits;
      op.writeUnits += c.writeUnits;
      state.totals.readUnits += c.readUnits;
      state.totals.writeUnits += c.writeUnits;
      if (c.index) state.totals.indexWriteUnits += c.writeUnits;
      const id = JSON.stringify([c.table, c.index ?? null, c.partitionKey]);
      const p = state.partitions.get(id) ?? { table: c.table, ...(c.index ? { index: c.index } : {}), partitionKey: c.partitionKey, readUnits: 0, writeUnits: 0, requests: 0 };
      p.readUnits += c.readUnits;
      p.writeUnits += c.writeUnits;
      p.requests++;
      state.partitions.set(id, p);
      if (!c.index) {
        const sortClass = c.sortKey === undefined ? '(several items)' : keyClass(c.sortKey);
        const sid = JSON.stringify([c.table, c.partitionKey, sortClass]);
        const sc = state.sortClasses.get(sid) ?? { table: c.table, partitionKey: c.partitionKey, sortClass, readUnits: 0, writeUnits: 0 };
        sc.readUnits += c.readUnits;
        sc.writeUnits += c.writeUnits;
        state.sortClasses.set(sid, sc);
      }
    }
    state.operations.set(operation, op);
  }

  /** Our table and index figures for the request against the ConsumedCapacity dynalite reports (table units; it prices no index writes). */
  function compare(operation: string, charges: Charge[], consumed: any): void {
    if (!consumed) return;
    const reported = (Array.isArray(consumed) ? consumed : [consumed]).reduce(
      (n: number, c: any) => n + (c.Table?.CapacityUnits ?? 0) + Object.values((c.GlobalSecondaryIndexes ?? {}) as Record<string, { CapacityUnits: number }>).reduce((m, i) => m + i.CapacityUnits, 0),
      0,
    );
    const ours = charges.reduce((n, c) => n + (c.indexWrite ? 0 : c.readUnits + c.writeUnits), 0);
    const d = state.dynalite;
    const byOp = d.byOperation.get(operation) ?? { compared: 0, agreed: 0 };
    d.compared++;
    byOp.compared++;
    const reads = charges.filter((c) => c.itemsRead !== undefined);
    if (Math.abs(reported - ours) < 1e-9) {
      d.agreed++;
      byOp.agreed++;
    } else if (reported === 0 && reads.length === charges.length && reads.every((c) => c.itemsRead === 0)) {
      d.explained.set(EMPTY_READ, (d.explained.get(EMPTY_READ) ?? 0) + 1);
    } else if (d.disagreements.length < KEPT_DISAGREEMENTS) {
      d.disagreements.push({ operation, ours, dynalite: reported, detail: charges.map((c) => `${c.index ?? c.table} ${c.partitionKey}: ${c.readUnits} RU ${c.writeUnits} WU`).join('; ') });
    }
    d.byOperation.set(operation, byOp);
  }

  async function dynamodb(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.url?.startsWith('/__bench/')) return control(req, res);
    return trip('dynamodb', () => priced(req, res), String(req.headers['x-amz-target'] ?? '').split('.')[1] || 'dynamodb');
  }

  async function priced(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (settings.delayMs > 0) await sleep(settings.delayMs);
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    if (SCHEMA_CHANGES.has(operation)) schemas.clear();
    const streamed = settings.stream && STREAMED.has(operation) ? await streamCandidates(operation, JSON.parse(body.toString('utf8')), settings.stream) : null;
    if (!settings.accounting || !PRICED.has(operation)) {
      const upstream = await send(options.dynamodb, 'POST', req.url ?? '/', req.headers, body);
      if (streamed && upstream.status === 200) await keepInserts(streamed, JSON.parse(upstream.body.toString('utf8')));
      return reply(res, upstream);
    }

    const request = JSON.parse(body.toString('utf8'));
    const images = await before(operation, request);
    const asked = request.ReturnConsumedCapacity === 'TOTAL' || request.ReturnConsumedCapacity === 'INDEXES';
    const upstream = await send(options.dynamodb, 'POST', req.url ?? '/', req.headers, Buffer.from(JSON.stringify({ ...request, ReturnConsumedCapacity: 'INDEXES' })));
    const response = JSON.parse(upstream.body.toString('utf8'));
    if (streamed && upstream.status === 200) await keepInserts(streamed, response);
    const charges = await price(operation, request, upstream.status, response, images);
    if (upstream.status === 200 || charges.length > 0) record(operation, charges);
    if (upstream.status === 200) compare(operation, charges, response.ConsumedCapacity);
    if (!asked) delete response.ConsumedCapacity;
    reply(res, upstream, upstream.status === 200 ? Buffer.from(JSON.stringify(response)) : upstream.body);
  }

  /** The puts of a write request the stream filter admits, each with whether its item was there before (read aside, as the old images are). */
  async function streamCandidates(operation: string, request: any, filter: StreamFilter): Promise<Array<{ table: string; item: Item; existed: boolean }>> {
    const puts: Array<{ table: string; item: Item }> = [];
    if (operation === 'PutItem') puts.push({ table: request.TableName, item: request.Item });
    if (operation === 'BatchWriteItem') for (const [table, writes] of Object.entries(request.RequestItems ?? {}) as [string, any[]][]) for (const w of writes) if (w.PutRequest) puts.push({ table, item: w.PutRequest.Item });
    if (operation === 'TransactWriteItems') for (const action of request.TransactItems ?? []) if (action.Put) puts.push({ table: action.Put.TableName, item: action.Put.Item });
    const admitted: Array<{ table: string; item: Item }> = [];
    for (const put of puts) {
      const s = await schema(put.table);
      const pk = put.item[s.partitionKey]?.S;
      const attribute = put.item[filter.attribute]?.S;
      if (pk?.startsWith(filter.partitionKeyPrefix) && attribute?.startsWith(filter.attributePrefix)) admitted.push(put);
    }
    return Promise.all(admitted.map(async (put) => ({ ...put, existed: (await getWhole(put.table, keyOf(await schema(put.table), put.item))) !== undefined })));
  }

  /** Keeps the candidates written (not left unprocessed) that were not there before: the stream's INSERTs. */
  async function keepInserts(candidates: Array<{ table: string; item: Item; existed: boolean }>, response: any): Promise<void> {
    for (const { table, item, existed } of candidates) {
      const s = await schema(table);
      const unprocessed = ((response.UnprocessedItems?.[table] ?? []) as any[]).some((w) => w.PutRequest && keyString(s, w.PutRequest.Item) === keyString(s, item));
      if (existed || unprocessed) continue;
      streamRecords.push({ eventName: 'INSERT', eventSource: 'aws:dynamodb', dynamodb: { Keys: keyOf(s, item), NewImage: item, StreamViewType: 'NEW_IMAGE' } });
    }
  }

  async function control(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readBody(req);
    const json = (value: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.url === '/__bench/snapshot') return json(proxy.snapshot());
    if (req.url === '/__bench/reset' && req.method === 'POST') {
      proxy.reset();
      return json({ ok: true });
    }
    if (req.url === '/__bench/stream' && req.method === 'POST') {
      const taken = streamRecords;
      streamRecords = [];
      return json(taken);
    }
    if (req.url === '/__bench/settings' && req.method === 'POST') {
      Object.assign(settings, JSON.parse(body.toString('utf8') || '{}'));
      return json(settings);
    }
    res.writeHead(404).end();
  }

  /** S3 and KMS: delayed, counted, forwarded as they are. */
  const passThrough = (service: 's3' | 'kms', base: string, count: (req: http.IncomingMessage) => [Map<string, number>, string]) => (req: http.IncomingMessage, res: http.ServerResponse) => trip(service, async () => {
    const body = await readBody(req);
    if (settings.delayMs > 0) await sleep(settings.delayMs);
    const [counter, name] = count(req);
    counter.set(name, (counter.get(name) ?? 0) + 1);
    const method = req.method ?? 'GET';
    reply(res, await send(base, method, req.url ?? '/', req.headers, method === 'GET' || method === 'HEAD' ? undefined : body), undefined, method);
  });

  const serve = (handler: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>) =>
    keepingIdleConnections(
      http.createServer((req, res) => {
        handler(req, res).catch((error: Error) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
          res.end(JSON.stringify({ __type: 'com.amazonaws.bench#ProxyFailure', message: error.message }));
        });
      }),
    );

  const listeners = [await listenOnLoopback(serve(dynamodb))];
  const s3 = options.s3
    ? await listenOnLoopback(
        serve(
          passThrough('s3', options.s3, (req) => {
            // Path-style: /bucket (a listing) or /bucket/key (an object).
            const isObject = (req.url ?? '/').split('?')[0].split('/').filter(Boolean).length > 1;
            return [state.s3, `${req.method} ${isObject ? 'object' : 'bucket'}`];
          }),
        ),
      )
    : undefined;
  const kms = options.kms ? await listenOnLoopback(serve(passThrough('kms', options.kms, (req) => [state.kms, String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '?']))) : undefined;
  /** Lambda's Invoke: delayed and counted by function, not a trip (what the invoked function does while it runs is). */
  const invoke = (base: string) => async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = await readBody(req);
    if (settings.delayMs > 0) await sleep(settings.delayMs);
    const name = decodeURIComponent(INVOKE_PATH.exec((req.url ?? '').split('?')[0])?.[1] ?? '?');
    state.lambda.set(name, (state.lambda.get(name) ?? 0) + 1);
    reply(res, await send(base, 'POST', req.url ?? '/', req.headers, body), undefined, 'POST');
  };
  const lambda = options.lambda ? await listenOnLoopback(serve(invoke(options.lambda))) : undefined;
  if (s3) listeners.push(s3);
  if (kms) listeners.push(kms);
  if (lambda) listeners.push(lambda);

  const proxy: AwsProxy = {
    dynamodb: listeners[0].url,
    s3: s3?.url,
    kms: kms?.url,
    lambda: lambda?.url,
    settings,
    snapshot: () => ({
      settings: { ...settings },
      totals: { ...state.totals },
      operations: Object.fromEntries(state.operations),
      partitions: [...state.partitions.values()],
      sortClasses: [...state.sortClasses.values()],
      calls: { s3: Object.fromEntries(state.s3), kms: Object.fromEntries(state.kms), lambda: Object.fromEntries(state.lambda) },
      trips: { ...state.trips, sequentialByService: { ...state.trips.sequentialByService }, byOperation: { ...state.trips.byOperation } },
      dynalite: {
        compared: state.dynalite.compared,
        agreed: state.dynalite.agreed,
        explained: Object.fromEntries(state.dynalite.explained),
        byOperation: Object.fromEntries(state.dynalite.byOperation),
        disagreements: [...state.dynalite.disagreements],
      },
    }),
    reset: () => {
      state = emptyState();
    },
    close: async () => {
      await Promise.all(listeners.map((l) => l.close()));
    },
  };
  return proxy;
}

/** The proxy's settings and figures, over HTTP (the proxy may run in another process). */
export function proxyControl(dynamodbEndpoint: string) {
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(`${dynamodbEndpoint}/__bench/${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`proxy ${path}: ${res.status}`);
    return res.json();
  };
  return {
    snapshot: () => call('snapshot') as Promise<AccountingSnapshot>,
    reset: () => call('reset', {}) as Promise<unknown>,
    configure: (settings: Partial<ProxySettings>) => call('settings', settings) as Promise<ProxySettings>,
    /** The stream records kept since the last call (settings.stream), oldest first. */
    takeStream: () => call('stream', {}) as Promise<StreamRecord[]>,
  };
}

if (require.main === module) {
  const { values } = parseArgs({ options: { dynamodb: { type: 'string' }, s3: { type: 'string' }, kms: { type: 'string' } } });
  if (!values.dynamodb) {
    console.error('usage: tsx bench/lib/capacity/aws-proxy.ts --dynamodb URL [--s3 URL] [--kms URL]');
    process.exit(2);
  }
  void startAwsProxy({ dynamodb: values.dynamodb, s3: values.s3, kms: values.kms }).then((proxy) => {
    process.stdout.write(`${JSON.stringify({ dynamodb: proxy.dynamodb, s3: proxy.s3, kms: proxy.kms })}\n`);
  });
}
