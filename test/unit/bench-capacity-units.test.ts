import {
  indexWrites,
  itemSize,
  keyClass,
  numberSize,
  priceFailedConditionalWrite,
  priceItemRead,
  priceItemsRead,
  priceItemWrite,
  readUnits,
  writeUnits,
  type IndexSchema,
  type Item,
  type TableSchema,
} from '../../bench/lib/capacity/units';
import { batchInParts, classFigures, drainedRow, ingestCeiling, oneLogRow, partsRate, shareOfLimits, spreadCeilingRows, tableQuotaRows } from '../../bench/sections/capacity';
import { partOf } from '../../functions/ledger-writer/parts';
import { EVENTS_PER_PART } from '../../functions/ledger-writer/lambda-parts';
import type { AccountingSnapshot } from '../../bench/lib/capacity/aws-proxy';

/**
 * The capacity bench's calculator against DynamoDB's documentation: the size rules of "DynamoDB
 * item sizes and formats", the worked examples of "DynamoDB read and write operations" (and of the
 * on-demand and provisioned pricing pages), and the index write rules of "Global secondary
 * indexes" (provisioned throughput considerations).
 */
const KB = 1024;
/** An item of exactly `bytes` bytes: a one-letter name and a string value. */
const itemOf = (bytes: number, extra: Item = {}): Item => ({ ...extra, v: { S: 'x'.repeat(bytes - 1 - itemSize(extra)) } });

describe('item sizes', () => {
  test('a string is its name and its UTF-8 bytes; a binary its raw bytes, not its base64 text', () => {
    expect(itemSize({ name: { S: 'value' } })).toBe(4 + 5);
    expect(itemSize({ 'naïve': { S: 'ü€' } })).toBe(6 + 5);
    expect(itemSize({ b: { B: Buffer.from([1, 2, 3, 4, 5]).toString('base64') } })).toBe(1 + 5);
  });

  test('a number: about one byte per two significant digits, plus one; leading and trailing zeroes do not count', () => {
    expect(numberSize('7')).toBe(2);
    expect(numberSize('12')).toBe(2);
    expect(numberSize('123')).toBe(3);
    expect(numberSize('1000')).toBe(2);
    expect(numberSize('0.00123')).toBe(3);
    expect(numberSize('-12345678901234567890')).toBe(11);
    expect(numberSize('0')).toBe(1);
    expect(itemSize({ count: { N: '2099' } })).toBe(5 + 3);
  });

  test('null and Boolean: one byte; List and Map: 3 bytes, one per element, and the elements (a Map element with its name)', () => {
    expect(itemSize({ ok: { BOOL: true }, gone: { NULL: true } })).toBe(2 + 1 + 4 + 1);
    expect(itemSize({ l: { L: [] } })).toBe(1 + 3);
    expect(itemSize({ l: { L: [{ S: 'ab' }, { N: '1' }] } })).toBe(1 + 3 + (1 + 2) + (1 + 2));
    expect(itemSize({ m: { M: { k: { S: 'ab' } } } })).toBe(1 + 3 + (1 + 1 + 2));
    expect(itemSize({ s: { SS: ['a', 'bc'] }, n: { NS: ['10', '123'] } })).toBe(1 + 3 + 1 + (2 + 3));
  });

  test('an item of eight attributes weighs what the published calculators (zaccharles/dynamodb-calculator, ddbitemsizer) say: 141 bytes', () => {
    const item: Item = {
      itemType: { S: 'SLOT' },
      id: { S: 'abc1231' },
      hostName: { S: 'Harry Mason' },
      timeSlot: { S: 'February 23, 1999' },
      slotStatus: { S: 'OPEN' },
      createdAt: { S: 'February 1, 1999' },
      updatedAt: { S: 'February 1, 1999' },
      expiresAt: { N: '2099' },
    };
    expect(itemSize(item)).toBe(141);
  });
});

describe('read units (the developer guide\'s worked examples)', () => {
  const table: TableSchema = { name: 't', partitionKey: 'pk', sortKey: 'sk', indexes: [] };
  const key = { pk: { S: 'P' }, sk: { S: '#' } };

  test('GetItem rounds the item up to 4 KB: 3.5 KB is one unit strongly consistent, 10 KB three; eventually consistent half', () => {
    expect(readUnits(3.5 * KB, 'strong')).toBe(1);
    expect(readUnits(3.5 * KB, 'eventual')).toBe(0.5);
    expect(readUnits(10 * KB, 'strong')).toBe(3);
    expect(priceItemRead(table, key, itemOf(3500, key), 'eventual').readUnits).toBe(0.5);
  });

  test('an 8 KB item: two units strongly consistent, one eventually consistent, four transactional', () => {
    expect(readUnits(8 * KB, 'strong')).toBe(2);
    expect(readUnits(8 * KB, 'eventual')).toBe(1);
    expect(readUnits(8 * KB, 'transactional')).toBe(4);
  });

  test('a read of an item that does not exist still costs one unit (half eventually consistent)', () => {
    expect(priceItemRead(table, key, undefined, 'strong')).toMatchObject({ readUnits: 1, itemsRead: 0, partitionKey: 'P' });
    expect(priceItemRead(table, key, undefined, 'eventual').readUnits).toBe(0.5);
  });

  test('BatchGetItem rounds each item: 1.5 KB and 6.5 KB cost 12 KB (three units), not 8 KB', () => {
    const units = [1.5 * KB, 6.5 * KB].map((bytes, i) => priceItemRead(table, { pk: { S: `P${i}` }, sk: { S: '#' } }, itemOf(bytes), 'strong').readUnits);
    expect(units.reduce((a, b) => a + b)).toBe(3);
  });

  test('Query sums what it read, then rounds: 10 items of 40.8 KB are 44 KB (11 units); 1,500 items of 64 bytes 96 KB (24 units); 80 KB eventually consistent 10 units', () => {
    const tenItems = Array.from({ length: 10 }, () => itemOf(Math.round((40.8 * KB) / 10)));
    expect(priceItemsRead(table, 'P', tenItems, 'strong').readUnits).toBe(11);
    const small = Array.from({ length: 1500 }, () => itemOf(64));
    expect(priceItemsRead(table, 'P', small, 'strong').readUnits).toBe(24);
    expect(readUnits(80 * KB, 'eventual')).toBe(10);
  });

  test('an index query of 8 entries of 2,000 bytes: 16,000 bytes round to 16 KB, eventually consistent: 2 units, on the index\'s partition', () => {
    const entries = Array.from({ length: 8 }, () => itemOf(2000));
    expect(priceItemsRead(table, 'PENDING', entries, 'eventual', 'pending')).toMatchObject({ readUnits: 2, index: 'pending', partitionKey: 'PENDING' });
  });
});

describe('write units', () => {
  const table: TableSchema = { name: 't', partitionKey: 'pk', sortKey: 'sk', indexes: [] };
  const key = { pk: { S: 'R#a' }, sk: { S: 'T#1' } };

  test('an item rounds up to 1 KB: 500 bytes one unit, 1.6 KB two; BatchWriteItem of 500 bytes and 3.5 KB five units, not four', () => {
    expect(writeUnits(500)).toBe(1);
    expect(writeUnits(1.6 * KB)).toBe(2);
    expect(writeUnits(500) + writeUnits(3.5 * KB)).toBe(5);
  });

  test('a transactional write costs twice: a 3 KB item six units (provisioned pricing example)', () => {
    expect(writeUnits(3 * KB, true)).toBe(6);
    expect(writeUnits(1 * KB)).toBe(1);
  });

  test('PutItem and UpdateItem on the larger of the item before and after; DeleteItem on the deleted item', () => {
    const big = itemOf(3 * KB, key);
    const small = itemOf(200, key);
    expect(priceItemWrite(table, big, small)[0].writeUnits).toBe(3);
    expect(priceItemWrite(table, small, big)[0].writeUnits).toBe(3);
    expect(priceItemWrite(table, undefined, small)[0].writeUnits).toBe(1);
    expect(priceItemWrite(table, big, undefined)[0]).toMatchObject({ writeUnits: 3, partitionKey: 'R#a', sortKey: 'T#1' });
  });

  test('a failed conditional write: the new item\'s units when an item exists (a 2 KB item: two), one unit when none does', () => {
    expect(priceFailedConditionalWrite(table, key, itemOf(100, key), itemOf(2 * KB, key)).writeUnits).toBe(2);
    expect(priceFailedConditionalWrite(table, key, undefined, itemOf(2 * KB, key)).writeUnits).toBe(1);
  });
});

describe('index writes', () => {
  const pending: IndexSchema = { name: 'pending', partitionKey: 'queue', sortKey: 'receivedAt', projection: { type: 'KEYS_ONLY' } };
  const table: TableSchema = { name: 't', partitionKey: 'pk', sortKey: 'sk', indexes: [pending] };
  const base: Item = { pk: { S: 'P#a' }, sk: { S: '#' }, receivedAt: { S: '2026-01-01T00:00:00.000Z' }, body: { S: 'x'.repeat(1500) } };
  const waiting: Item = { ...base, queue: { S: 'PENDING' } };

  test('a new item that defines the index key: one write, by the projected entry\'s size (keys only: not the 1.5 KB body)', () => {
    expect(indexWrites(undefined, waiting, pending, table)).toEqual([{ table: 't', index: 'pending', partitionKey: 'PENDING', readUnits: 0, writeUnits: 1, indexWrite: 'insert' }]);
  });

  test('an item that leaves the index (its key attribute removed): one delete; one that never was in it: nothing', () => {
    expect(indexWrites(waiting, base, pending, table)).toMatchObject([{ indexWrite: 'delete', writeUnits: 1, partitionKey: 'PENDING' }]);
    expect(indexWrites(base, { ...base, body: { S: 'y' } }, pending, table)).toEqual([]);
  });

  test('a changed index key: a delete and a put (two writes), each on its partition', () => {
    const moved = { ...waiting, queue: { S: 'LATER' } };
    expect(indexWrites(waiting, moved, pending, table).map((c) => [c.indexWrite, c.partitionKey])).toEqual([
      ['delete', 'PENDING'],
      ['insert', 'LATER'],
    ]);
  });

  test('a change of a projected attribute only: one write; of an attribute the index does not hold: none', () => {
    const include: IndexSchema = { ...pending, projection: { type: 'INCLUDE', attributes: ['status'] } };
    const withStatus = { ...waiting, status: { S: 'A' } };
    expect(indexWrites(withStatus, { ...withStatus, status: { S: 'B' } }, include, table)).toMatchObject([{ indexWrite: 'update', writeUnits: 1 }]);
    expect(indexWrites(withStatus, { ...withStatus, body: { S: 'other' } }, include, table)).toEqual([]);
  });

  test('an index that projects everything pays for the whole entry; a table write lists its index writes after its own', () => {
    const all: IndexSchema = { ...pending, projection: { type: 'ALL' } };
    const charges = priceItemWrite({ ...table, indexes: [all] }, undefined, waiting);
    expect(charges.map((c) => [c.index ?? 'table', c.writeUnits])).toEqual([
      ['table', 2],
      ['pending', 2],
    ]);
  });
});

describe('key classes and ceilings', () => {
  test('a key\'s class is its leading characters up to the first #', () => {
    expect([keyClass('R#ORD-1'), keyClass('P#src#event:ab'), keyClass('L#LOG'), keyClass('PENDING'), keyClass('#')]).toEqual(['R#', 'P#', 'L#', 'PENDING', '#']);
  });

  test('per class: the sum of its partitions and its hottest key; the ceiling is the event rate at which that key reaches 1,000 WU/s or 3,000 RU/s', () => {
    const snapshot = {
      partitions: [
        { table: 't', partitionKey: 'R#a', readUnits: 30, writeUnits: 10, requests: 1 },
        { table: 't', partitionKey: 'R#b', readUnits: 3, writeUnits: 40, requests: 1 },
        { table: 't', index: 'pending', partitionKey: 'PENDING', readUnits: 1, writeUnits: 200, requests: 1 },
      ],
    } as unknown as AccountingSnapshot;
    const [pendingClass, records] = classFigures(snapshot);
    expect(records).toMatchObject({ name: 'R#', read: 33, write: 50, keys: 2, hottestWrite: { key: 'R#b', units: 40 }, hottestRead: { key: 'R#a', units: 30 } });
    expect(pendingClass.name).toBe('index pending');
    // 100 events: the pending partition takes 2 WU per event, so 500 events/s fill its 1,000 WU/s.
    expect(ingestCeiling(pendingClass, 100)).toEqual({ eventsPerSecond: 500, bound: 'write' });
    // R#b: 0.4 WU per event -> 2,500/s; R#a: 0.3 RU per event -> 10,000/s: writes bind.
    expect(ingestCeiling(records, 100)).toEqual({ eventsPerSecond: 2500, bound: 'write' });
    expect(ingestCeiling({ hottestRead: { key: 'x', units: 60 }, hottestWrite: { key: 'x', units: 1 } }, 100)).toEqual({ eventsPerSecond: 5000, bound: 'read' });
    // At 10,000 events/s: 64 shards taking 2 WU an event in all, the hottest 0.056 of them -> 56% and 31%.
    const shards = { read: 0, write: 2000, hottestRead: { key: '', units: 0 }, hottestWrite: { key: 'PENDING#0', units: 56 }, keys: 64 };
    const share = shareOfLimits(shards, 1000);
    expect(share.hottest).toBeCloseTo(0.56, 9);
    expect(share.even).toBeCloseTo(0.3125, 9);
    // Reads weigh against 3,000 a second: 0.9 RU an event on one key is 3,000 at 3,333 events/s.
    expect(shareOfLimits({ read: 90, write: 0, hottestRead: { key: 'x', units: 90 }, hottestWrite: { key: '', units: 0 }, keys: 1 }, 100, 3000).hottest).toBeCloseTo(0.9, 9);
  });

  test("beside the lowest ceiling: the one of the keys every event shares (a record's own aside), and one reference's own partitions in events sent to it", () => {
    const snapshot = {
      partitions: [
        { table: 't', partitionKey: 'R#hot', readUnits: 6, writeUnits: 12, requests: 1 },
        { table: 't', partitionKey: 'R#hot#V', readUnits: 3, writeUnits: 20, requests: 1 },
        { table: 't', partitionKey: 'R#cold', readUnits: 1, writeUnits: 3, requests: 1 },
        { table: 't', partitionKey: 'L#log', readUnits: 0, writeUnits: 5, requests: 1 },
        { table: 't', index: 'pending', partitionKey: 'PENDING#1', readUnits: 0, writeUnits: 2, requests: 1 },
      ],
      sortClasses: [
        { table: 't', partitionKey: 'R#hot', sortClass: 'T#', readUnits: 0, writeUnits: 10 },
        { table: 't', partitionKey: 'R#hot', sortClass: '#', readUnits: 0, writeUnits: 2 },
        { table: 't', partitionKey: 'R#hot#V', sortClass: 'V#', readUnits: 0, writeUnits: 20 },
      ],
    } as unknown as AccountingSnapshot;
    // 100 events, 10 of them to "hot": its heads' partition would cap the mix at 1,000 / 0.2 = 5,000/s.
    const deliveries = [...Array.from({ length: 10 }, () => ({ reference: 'hot' })), ...Array.from({ length: 90 }, (_, i) => ({ reference: `cold${i}` }))];
    const rows = spreadCeilingRows(snapshot, deliveries);
    // Spread: L#log's 0.05 WU per event binds at 20,000/s (the index shard's 0.02 at 50,000/s).
    expect(rows[0]).toMatchObject({ value: 20000, unit: 'events/s', note: expect.stringContaining('set by L#') });
    // R#hot#V: 2 WU per event sent to it -> 500 events/s to that one reference; R#hot: 1.2 -> 833.
    expect(rows[1]).toMatchObject({ value: 500, unit: 'events/s' });
    expect(rows[1].note).toContain('hot (10 of the mix');
    expect(rows[1].note).toContain('R#hot 1.2 WU (T# 1, # 0.2) and 0.6 RU, 833 events/s');
    expect(rows[1].note).toContain('R#hot#V 2 WU (V# 2) and 0.3 RU, 500 events/s to 1000 WU/s');
  });

  test("the table's quotas: the table's own units and each index's against 40,000 a second, a provisioned table and its indexes together against the account's 80,000", () => {
    const snapshot = {
      partitions: [
        { table: 't', partitionKey: 'R#a', readUnits: 300, writeUnits: 400, requests: 1 },
        { table: 't', partitionKey: 'P#b', readUnits: 276, writeUnits: 200, requests: 1 },
        { table: 't', index: 'pending', partitionKey: 'PENDING#1', readUnits: 10, writeUnits: 200, requests: 1 },
      ],
    } as unknown as AccountingSnapshot;
    const rows = tableQuotaRows(snapshot, 100);
    // The table: 6 WU and 5.76 RU an event -> writes bind at 40,000 / 6 = 6,667 events/s.
    expect(rows[0]).toMatchObject({ metric: 'table: ingest ceiling at the default table quota', value: 6667, unit: 'events/s' });
    expect(rows[0].note).toContain('6 WU and 5.76 RU an event; its write units reach 40,000');
    // The index: 2 WU an event -> 20,000 events/s.
    expect(rows[1]).toMatchObject({ metric: 'index pending: ingest ceiling at the default table quota', value: 20000 });
    // Together, provisioned: 8 WU an event against 80,000 -> 10,000 events/s.
    expect(rows[2]).toMatchObject({ value: 10000, note: expect.stringContaining('8 WU and 5.86 RU an event') });
    expect(rows[3]).toMatchObject({ metric: 'lowest ingest ceiling at the default quotas, on demand', value: 6667, note: expect.stringContaining('set by table; provisioned, the account\'s quota too: 6667') });
  });

  test('one log takes events as fast as its one sequencer: from its CPU time per event, and with its calls one after another waiting', () => {
    // 400 events in 8 batches, 2,000 ms of CPU: 5 ms an event, 200 events/s on one core.
    const row = oneLogRow(
      ', warm',
      { sequencerCpuMs: 800, events: 200, batches: 4, sequencerCalls: 300, callsByOperation: { Query: 200, BatchWriteItem: 100 } },
      { sequencerCpuMs: 1200, events: 200, batches: 4, sequencerCalls: 500, callsByOperation: { Query: 400, BatchGetItem: 100 } },
      12,
    );
    expect(row).toMatchObject({ metric: 'one log, warm: events a second its sequencer takes, from its CPU time', value: 200, unit: 'events/s' });
    // The calls by operation, the most first, per event.
    expect(row.note).toContain('(batches of 50; 2 AWS calls per event: Query 1.5, BatchWriteItem 0.25, BatchGetItem 0.25)');
    // A batch of 50: 250 ms of CPU and 12 waits of 5 ms, 310 ms: 161 events/s.
    expect(row.note).toContain('5 ms of CPU per event');
    expect(row.note).toContain('161 events/s with 12 waits of 5 ms a batch');
    expect(row.note).toContain('MB give it a whole vCPU (one at 1769 MB)');
    expect(row.note).not.toContain('main thread');
  });

  test("beside the process's CPU time, its main thread's when known: the rest is V8's helper threads", () => {
    const figures = { events: 200, batches: 4, sequencerCalls: 0, callsByOperation: {} };
    // 2,000 ms of CPU, 1,200 of them on the main thread: 3 ms an event, 60%.
    const row = oneLogRow('', { ...figures, sequencerCpuMs: 800, sequencerMainThreadCpuMs: 500 }, { ...figures, sequencerCpuMs: 1200, sequencerMainThreadCpuMs: 700 }, 8);
    expect(row.note).toContain("its main thread 3 ms an event (60% of its CPU time; the rest V8's helper threads)");
    // Not known for one of them (not Linux): not said.
    expect(oneLogRow('', { ...figures, sequencerCpuMs: 800, sequencerMainThreadCpuMs: null }, { ...figures, sequencerCpuMs: 1200, sequencerMainThreadCpuMs: 700 }, 8).note).not.toContain('main thread');
  });

  test('one log in parts: a full batch takes the sequencer\'s CPU for all its events, one part\'s CPU for its own (the parts at once), and its waits', () => {
    const figures = { sequencerMsPerEvent: 0.05, partMsPerEvent: 0.8, waitsPerBatch: 12 };
    // Four parts of 500: 2,000 events in 100 + 400 + 60 ms = 560 ms: 3,571 events/s.
    expect(EVENTS_PER_PART).toBe(500);
    expect(Math.round(partsRate(figures, 4))).toBe(3571);
    // Sixteen: 8,000 in 400 + 400 + 60 = 860 ms; no waits: 800 ms.
    expect(Math.round(partsRate(figures, 16))).toBe(9302);
    expect(partsRate(figures, 16, 0)).toBe(10000);
    // However many parts, never above what the sequencer's CPU allows: 1 / 0.05 ms.
    expect(partsRate(figures, 10_000)).toBeLessThan(20_000);
    // A stream invocation holding 4,000 records at most: sixteen parts of 250, 4,000 in 200 + 200 + 60 ms.
    expect(Math.round(partsRate({ ...figures, streamBatch: 4000 }, 16))).toBe(8696);
  });

  test('one log in parts, the sequencer behind: a drained round\'s own CPU times and waits, in full batches no stream invocation cuts', () => {
    // Two batches of 1,800 in up to 6 parts: 0.06 ms an event for the sequencer, 0.8 for the part writers, 12 calls one after another and 3 rounds of 6 invocations a batch.
    const drained = { events: 3600, batches: 2, sequencerCpuMs: 216, sequencerMainThreadCpuMs: null, partCpuMs: 2880, partMainThreadCpuMs: null, partInvocations: 36, sequentialTrips: 24, invocations: 36, imageBytes: 0, references: [] };
    const row = drainedRow(drained, { sequencerMsPerEvent: 0.05, partMsPerEvent: 0.8, waitsPerBatch: 12, streamBatch: 4000 }, 16);
    // Sixteen parts of 500 (no stream's 6 MB): 8,000 in 480 + 400 + 15 waits of 5 ms = 955 ms.
    expect(row.value).toBe(Math.round(8_000_000 / 955));
    expect(row.value).toBe(Math.round(partsRate({ sequencerMsPerEvent: 0.06, partMsPerEvent: 0.8, waitsPerBatch: 15 }, 16)));
    expect(row.note).toContain('a batch of 8000 in 16 parts of 500');
    expect(row.note).toContain("0.06 ms of CPU an event (16667 events/s on one core; a stream run's 0.05");
  });

  test('a batch waits for its largest part: the parts are cut by reference, as the sequencer cuts them', () => {
    const figures = { sequencerMsPerEvent: 0.05, partMsPerEvent: 0.8, waitsPerBatch: 12 };
    // Two references only, each in a part of its own among four: two parts of 1,000, two empty.
    const [a, b] = ['A', 'B', 'C', 'D', 'E', 'F'].filter((r, i, all) => all.findIndex((o) => partOf(o, 4) === partOf(r, 4)) === i);
    expect(partOf(a, 4)).not.toBe(partOf(b, 4));
    const two = Array.from({ length: 2000 }, (_, i) => (i % 2 ? a : b));
    expect(batchInParts(4, Number.POSITIVE_INFINITY, two)).toEqual({ batch: 2000, parts: 4, perPart: 500, largest: 1000 });
    // 2,000 events in 100 + 800 + 60 ms, where even parts would take 100 + 400 + 60.
    expect(Math.round(partsRate({ ...figures, references: two }, 4))).toBe(2083);
    // One reference: the whole batch in one part.
    expect(batchInParts(4, Number.POSITIVE_INFINITY, Array(2000).fill(a)).largest).toBe(2000);
    // The mean of each whole batch's largest part; what is left over after the last whole batch is not read.
    expect(batchInParts(4, Number.POSITIVE_INFINITY, [...two, ...Array(2000).fill(a), ...two.slice(0, 10)]).largest).toBe(1500);
    // Many references spread over the parts: the largest is above the mean, never below it.
    const many = Array.from({ length: 8000 }, (_, i) => `CAP-${String(i % 1000).padStart(6, '0')}`);
    const { perPart, largest } = batchInParts(16, Number.POSITIVE_INFINITY, many);
    expect(largest).toBeGreaterThanOrEqual(perPart);
    expect(largest).toBeLessThan(2 * perPart);
    // Fewer references than a batch: the parts taken as even.
    expect(batchInParts(4, Number.POSITIVE_INFINITY, two.slice(0, 1999)).largest).toBe(500);
  });
});
