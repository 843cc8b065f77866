import { randomBytes } from 'node:crypto';
import { jsonBody, type Forward, type Outbound } from './endpoints/iam-endpoint';

/**
 * DynamoDB Streams for the tables whose template enables them. The embedded store has no
 * streams, so the local DynamoDB endpoint captures every write it lets through: it reads the items'
 * old images from the store before the write and the new ones after (one write at a time, so the two
 * reads and the write are not interleaved with another writer's), and emits the records
 * DynamoDB Streams would (INSERT, MODIFY or REMOVE; keys and the images the view type keeps), in
 * order, to the stream's subscribers (the event source mappings).
 */

type Item = Record<string, Record<string, unknown>>;

/** The operations that write items (and so may add stream records). */
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

export interface StreamRecord {
  eventID: string;
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  eventVersion: '1.1';
  eventSource: 'aws:dynamodb';
  awsRegion: string;
  dynamodb: {
    ApproximateCreationDateTime: number;
    Keys: Item;
    NewImage?: Item;
    OldImage?: Item;
    SequenceNumber: string;
    SizeBytes: number;
    StreamViewType: string;
  };
  eventSourceARN: string;
}

export interface StreamedTable {
  name: string;
  streamArn: string;
  viewType: 'KEYS_ONLY' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES';
  /** The key attributes (partition, then sort). */
  keyAttributes: string[];
}

/** A JSON-protocol call straight to the store (no IAM: this is DynamoDB itself reading its own items). */
export type StoreCall = (operation: string, body: Record<string, unknown>) => Promise<Record<string, any>>;

export class TableStreams {
  private sequence = 4_000_000_000_000_000_000n;
  private readonly subscribers = new Map<string, Array<(records: StreamRecord[]) => void>>();
  /** Writes to streamed tables, one at a time (their reads of the old and new images included). */
  private lock: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly tables: ReadonlyMap<string, StreamedTable>,
    private readonly store: StoreCall,
    private readonly region: string,
  ) {}

  subscribe(streamArn: string, listener: (records: StreamRecord[]) => void): void {
    const list = this.subscribers.get(streamArn) ?? [];
    list.push(listener);
    this.subscribers.set(streamArn, list);
  }

  /** The DynamoDB endpoint's forwarding, with the writes to streamed tables captured. */
  capturing(forward: Forward): Forward {
    return async (request, caller) => {
      const operation = String(request.headers['x-amz-target'] ?? '').replace('DynamoDB_20120810.', '');
      if (!WRITES.has(operation)) return forward(request, caller);
      // Parsed once per request: the endpoint's rules have read the same body.
      const body = jsonBody(request);
      const tableNames = operation === 'BatchWriteItem' ? Object.keys(body.RequestItems ?? {}) : [String(body.TableName)];
      const streamed = tableNames.map((name) => this.tables.get(name)).filter((t): t is StreamedTable => t !== undefined);
      if (streamed.length === 0) return forward(request, caller);
      const run = this.lock.then(() => this.captureWrite(operation, body, streamed, () => forward(request, caller)));
      this.lock = run.catch(() => undefined);
      return run;
    };
  }

  private keyOf(table: StreamedTable, item: Item): Item {
    return Object.fromEntries(table.keyAttributes.filter((a) => item[a] !== undefined).map((a) => [a, item[a]]));
  }

  private async imagesOf(table: StreamedTable, keys: Item[]): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    const unique = [...new Map(keys.map((k) => [JSON.stringify(k), k])).values()];
    for (let i = 0; i < unique.length; i += 100) {
      let request: Record<string, unknown> | undefined = { [table.name]: { Keys: unique.slice(i, i + 100), ConsistentRead: true } };
      while (request && Object.keys(request).length > 0) {
        const out = await this.store('BatchGetItem', { RequestItems: request });
        for (const item of (out.Responses?.[table.name] ?? []) as Item[]) found.set(JSON.stringify(this.keyOf(table, item)), item);
        request = out.UnprocessedKeys;
      }
    }
    return found;
  }

  private async captureWrite(operation: string, body: Record<string, any>, tables: StreamedTable[], write: () => Promise<Outbound>): Promise<Outbound> {
    const writes: Array<{ table: StreamedTable; key: Item; put?: Item; kind: 'put' | 'update' | 'delete' }> = [];
    for (const table of tables) {
      if (operation === 'BatchWriteItem') {
        for (const r of (body.RequestItems[table.name] ?? []) as any[]) {
          if (r.PutRequest) writes.push({ table, key: this.keyOf(table, r.PutRequest.Item), put: r.PutRequest.Item, kind: 'put' });
          else if (r.DeleteRequest) writes.push({ table, key: r.DeleteRequest.Key, kind: 'delete' });
        }
      } else if (operation === 'PutItem') writes.push({ table, key: this.keyOf(table, body.Item), put: body.Item, kind: 'put' });
      else writes.push({ table, key: body.Key, kind: operation === 'UpdateItem' ? 'update' : 'delete' });
    }
    const before = new Map<StreamedTable, Map<string, Item>>();
    for (const table of tables) before.set(table, await this.imagesOf(table, writes.filter((w) => w.table === table).map((w) => w.key)));
    const out = await write();
    if (out.status !== 200) return out;
    const unprocessed = new Set<string>();
    if (operation === 'BatchWriteItem') {
      const left = (JSON.parse(out.body.toString('utf8') || '{}').UnprocessedItems ?? {}) as Record<string, any[]>;
      for (const [name, requests] of Object.entries(left)) {
        const table = this.tables.get(name);
        if (table) for (const r of requests) unprocessed.add(`${name}\n${JSON.stringify(this.keyOf(table, r.PutRequest?.Item ?? r.DeleteRequest?.Key ?? {}))}`);
      }
    }
    const updated = new Map<StreamedTable, Map<string, Item>>();
    for (const table of tables) {
      const keys = writes.filter((w) => w.table === table && w.kind === 'update').map((w) => w.key);
      if (keys.length > 0) updated.set(table, await this.imagesOf(table, keys));
    }
    const byStream = new Map<string, StreamRecord[]>();
    for (const w of writes) {
      const id = JSON.stringify(this.keyOf(w.table, w.key));
      if (unprocessed.has(`${w.table.name}\n${id}`)) continue;
      const old = before.get(w.table)!.get(id);
      const image = w.kind === 'put' ? w.put : w.kind === 'update' ? updated.get(w.table)?.get(id) : undefined;
      if (w.kind === 'delete' && !old) continue;
      const eventName = w.kind === 'delete' ? 'REMOVE' : old ? 'MODIFY' : 'INSERT';
      const record = this.record(w.table, eventName, this.keyOf(w.table, w.key), image, old);
      byStream.set(w.table.streamArn, [...(byStream.get(w.table.streamArn) ?? []), record]);
    }
    for (const [streamArn, records] of byStream) for (const listener of this.subscribers.get(streamArn) ?? []) listener(records);
    return out;
  }

  private record(table: StreamedTable, eventName: StreamRecord['eventName'], keys: Item, newImage: Item | undefined, oldImage: Item | undefined): StreamRecord {
    this.sequence += 100n;
    const withNew = table.viewType === 'NEW_IMAGE' || table.viewType === 'NEW_AND_OLD_IMAGES';
    const withOld = table.viewType === 'OLD_IMAGE' || table.viewType === 'NEW_AND_OLD_IMAGES';
    const dynamodb: StreamRecord['dynamodb'] = {
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
      Keys: keys,
      ...(withNew && newImage && eventName !== 'REMOVE' ? { NewImage: newImage } : {}),
      ...(withOld && oldImage ? { OldImage: oldImage } : {}),
      SequenceNumber: String(this.sequence),
      SizeBytes: 0,
      StreamViewType: table.viewType,
    };
    dynamodb.SizeBytes = Buffer.byteLength(JSON.stringify([dynamodb.Keys, dynamodb.NewImage ?? null, dynamodb.OldImage ?? null]));
    return {
      eventID: randomBytes(16).toString('hex'),
      eventName,
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: this.region,
      dynamodb,
      eventSourceARN: table.streamArn,
    };
  }
}
