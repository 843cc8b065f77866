import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEMO_OBJECTS, demoDocument, LONG_HISTORY_OBSERVATIONS } from '../../fixtures/demo';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';
import { InvalidRecordsError, loadDocument, validateRecords } from '../../lib/loader/load';
import { environmentRecords } from '../../functions/store/environment';
import { storeClient } from '../../functions/store/client';

const ANCHOR = new Date('2026-11-01T12:00:00Z');
let store: EmbeddedStore;
let client: DynamoDBClient;

async function scanAll(table: string): Promise<string[]> {
  const items: string[] = [];
  let ExclusiveStartKey: Record<string, import("@aws-sdk/client-dynamodb").AttributeValue> | undefined;
  do {
    const out = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey }));
    for (const item of out.Items ?? []) items.push(JSON.stringify(item, Object.keys(item).sort()));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.sort();
}

beforeAll(async () => {
  store = await startEmbeddedStore();
  configureLocalEnvironment(store.endpoint, 'loader-test');
  client = localClient(store.endpoint);
  await loadDocument(demoDocument(ANCHOR), { client, table: 'loader-test', createTable: true });
});

afterAll(async () => {
  client.destroy();
  storeClient().destroy();
  await store.close();
});

describe('loader validation', () => {
  const good = (demoDocument(ANCHOR).records as Record<string, unknown>[]).find((r) => r.reference === DEMO_OBJECTS.stale)!;

  it('reports every bad record by record and field', () => {
    const bad = [
      { ...good, reference: 'x' },
      { ...good, reference: 'OK-REF-2', freshnessSeconds: -1, history: [{ type: 'STATE_CHANGED', at: 'yesterday', state: 'ACTIVE' }] },
      { ...good, reference: 'OK-REF-3', kind: 'SPACESHIP' },
      { ...good, reference: 'OK-REF-4', history: [{ type: 'STATE_CHANGED', at: '2026-01-01T00:00:00Z', state: 'TELEPORTED' }] },
      { ...good, reference: 'OK-REF-5', history: [{ type: 'STATE_CHANGED', at: '2026-01-02T00:00:00Z', state: 'ACTIVE' }, { type: 'AUTHORITY_OBSERVED', at: '2026-01-01T00:00:00Z', source: 'S' }] },
      { ...good, reference: 'OK-REF-6', nickname: 'unexpected field' },
    ];
    try {
      validateRecords({ records: [good, ...bad] });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidRecordsError);
      const where = (error as InvalidRecordsError).problems.map((p) => `${p.index}:${p.field}`);
      expect(where).toEqual(expect.arrayContaining(['1:reference', '2:freshnessSeconds', '2:history.0.at', '3:kind', '4:history.0.state', '5:history.1.at', '6:(record)']));
      expect(where.some((w) => w.startsWith('0:'))).toBe(false);
    }
  });

  it('refuses duplicate references and a document without records', () => {
    expect(() => validateRecords({ records: [good, good] })).toThrow(InvalidRecordsError);
    expect(() => validateRecords([good])).toThrow(InvalidRecordsError);
  });

  it('writes nothing when any record is bad', async () => {
    const before = await scanAll('loader-test');
    await expect(
      loadDocument({ records: [{ ...good, reference: 'NEW-REF-1' }, { ...good, reference: '!' }] }, { client, table: 'loader-test' }),
    ).rejects.toThrow(InvalidRecordsError);
    expect(await scanAll('loader-test')).toEqual(before);
  });

  it('is idempotent: a second run of the same document changes nothing', async () => {
    const before = await scanAll('loader-test');
    await loadDocument(demoDocument(ANCHOR), { client, table: 'loader-test' });
    expect(await scanAll('loader-test')).toEqual(before);
  });
});

describe('store reads', () => {
  let requests: { name: string; input: Record<string, unknown> }[] = [];
  /** When each request was sent and answered, in order: what tells requests sent together from requests one after another. */
  let events: string[] = [];
  beforeAll(() => {
    storeClient().middlewareStack.add(
      (next, context) => async (args) => {
        requests.push({ name: String(context.commandName), input: args.input as Record<string, unknown> });
        events.push('sent');
        const out = await next(args);
        events.push('answered');
        return out;
      },
      { step: 'initialize', name: 'countRequests' },
    );
  });
  beforeEach(() => {
    requests = [];
    events = [];
  });

  /** One round trip: every request sent before the first answer came, each a Query with key conditions only. */
  const expectOneRoundTrip = () => {
    expect(events.indexOf('answered')).toBe(requests.length);
    expect(requests.map((r) => r.name)).toEqual(['QueryCommand', 'QueryCommand']);
    for (const r of requests) expect(r.input.FilterExpression).toBeUndefined();
  };

  it('reads a long history in one round trip (the entries and the head in force, sent together), asOf as a key condition, never a filter', async () => {
    const asOf = new Date(ANCHOR.getTime() - 1000 * 3600 * 1000).toISOString();
    const window = await environmentRecords().readWindow(DEMO_OBJECTS.longHistory, asOf, 50);
    // The entries and the head in force, two Queries sent together.
    expectOneRoundTrip();
    expect(requests.map((r) => r.input.KeyConditionExpression)).toEqual(['pk = :pk AND sk <= :cut', 'pk = :pk AND sk BETWEEN :from AND :to']);
    expect(window.entries).toHaveLength(50);
    expect(window.more).toBe(true);
    expect(window.entries.every((e) => e.at <= asOf)).toBe(true);
    // newest first, and the newest is the last entry at or before asOf
    const ats = window.entries.map((e) => e.at);
    expect([...ats].sort().reverse()).toEqual(ats);
  });

  it('returns the whole short history with the genesis item and no more flag', async () => {
    const window = await environmentRecords().readWindow(DEMO_OBJECTS.current, ANCHOR.toISOString(), 50);
    expectOneRoundTrip();
    expect(window).toMatchObject({ exists: true, kind: 'OBJECT', more: false });
    expect(window.entries).toHaveLength(6);
  });

  it('knows a record exists even before its first entry, and tells an unknown reference apart', async () => {
    const early = await environmentRecords().readWindow(DEMO_OBJECTS.current, '2000-01-01T00:00:00Z', 50);
    expect(early).toMatchObject({ exists: true, kind: 'OBJECT', entries: [], more: false });
    expectOneRoundTrip();
    const missing = await environmentRecords().readWindow('NO-SUCH-REF', ANCHOR.toISOString(), 50);
    expect(missing).toMatchObject({ exists: false, kind: null, entries: [] });
    expect(requests).toHaveLength(4);
  });

  it('stores the long-history object with all its entries', async () => {
    const window = await environmentRecords().readWindow(DEMO_OBJECTS.longHistory, ANCHOR.toISOString(), 200);
    expect(window.entries).toHaveLength(200);
    expect(LONG_HISTORY_OBSERVATIONS).toBeGreaterThanOrEqual(1000);
  });
});
