import { isJournalChunk, itemStorage, itemClass, ITEM_STORAGE_OVERHEAD_BYTES, NOTHING_STORED, storedSince, tally } from '../../bench/lib/cost/storage';
import type { Item } from '../../bench/lib/capacity/units';

/**
 * The cost bench's storage tally (bench/lib/cost/storage.ts): an item's billed size is its size by
 * DynamoDB's rules plus 100 bytes; what carries the TTL attribute is counted apart, weighted by the
 * seconds it has left; a batch journal's chunk is neither kept nor expiring; an index entry is billed too.
 */
const NOW = 1_800_000_000;

describe('what the service keeps, by how long', () => {
  test('an item kept for good: its attribute names and values, and the overhead DynamoDB bills each item', () => {
    // pk: 2 + 10, sk: 2 + 1, body: 4 + 20 -> 39 bytes.
    const item: Item = { pk: { S: 'R#ORD-0001' }, sk: { S: '#' }, body: { S: 'x'.repeat(20) } };
    expect(itemStorage(item, NOW)).toEqual({ bytes: 39 + ITEM_STORAGE_OVERHEAD_BYTES, expiresInSeconds: null, indexBytes: 0 });
    expect(tally(NOTHING_STORED, item, NOW)).toMatchObject({ forGood: 139, forGoodByClass: { 'R# #': 139 }, expiring: 0, expiringByteSeconds: 0, items: 1 });
  });

  test('an item with a TTL expires: its bytes weighted by the seconds it has left (none once past)', () => {
    const delivery: Item = { pk: { S: 'P#s#w' }, sk: { S: '#' }, expiresAt: { N: String(NOW + 7 * 86_400) } };
    const { bytes, expiresInSeconds } = itemStorage(delivery, NOW);
    expect(expiresInSeconds).toBe(7 * 86_400);
    expect(tally(NOTHING_STORED, delivery, NOW)).toMatchObject({ forGood: 0, expiring: bytes, expiringByteSeconds: bytes * 7 * 86_400 });
    expect(itemStorage(delivery, NOW + 8 * 86_400).expiresInSeconds).toBe(0);
  });

  test('an event waiting has an entry in the keys-only pending index: its keys and the table keys, billed with the same overhead', () => {
    const waiting: Item = { pk: { S: 'P#s#event:abc' }, sk: { S: '#' }, queue: { S: 'PENDING#7' }, receivedAt: { S: '2026-11-27T00:00:00Z' }, raw: { S: '{}' } };
    // pk 2+13, sk 2+1, queue 5+9, receivedAt 10+20 -> 62 bytes; raw is not projected.
    expect(itemStorage(waiting, NOW).indexBytes).toBe(62 + ITEM_STORAGE_OVERHEAD_BYTES);
  });

  test('a batch journal chunk, of the first log or a successor, is counted apart: the next batch deletes it', () => {
    const chunk = (pk: string): Item => ({ pk: { S: pk }, sk: { S: '#' }, expiresAt: { N: String(NOW + 14 * 86_400) } });
    for (const pk of ['L#J#000000002406#000008', 'L@0123456789abcdef#J#000000000001#000000']) {
      expect(isJournalChunk(chunk(pk))).toBe(true);
      expect(tally(NOTHING_STORED, chunk(pk), NOW)).toMatchObject({ journal: itemStorage(chunk(pk), NOW).bytes, forGood: 0, expiring: 0, expiringByteSeconds: 0 });
    }
    // The journal's header and a tile are the log's, kept.
    for (const pk of ['L#J', 'L#T#00#000000000007']) expect(isJournalChunk(chunk(pk))).toBe(false);
  });

  test('an item\'s class is its keys\' leading characters: entries, heads, claims and the log\'s items apart', () => {
    const of = (pk: string, sk: string) => itemClass({ pk: { S: pk }, sk: { S: sk } });
    expect(of('R#ORD-1', 'T#2026-11-27T00:00:00Z#e1')).toBe('R# T#');
    expect(of('R#ORD-1#V', 'V#000003')).toBe('R#…#V V#');
    expect(of('P#service-platform#event:abc', '#')).toBe('P# #');
    expect(of('L#T#00#000000000007', '#')).toBe('L# #');
  });

  test('what a run left is the tally after less the tally before, class by class', () => {
    const before = { ...NOTHING_STORED, forGood: 1000, forGoodByClass: { 'R# T#': 1000 }, items: 10, log: 64, logObjects: 1 };
    const after = { ...NOTHING_STORED, forGood: 4000, forGoodByClass: { 'R# T#': 1500, 'P# #': 2500 }, items: 14, log: 192, logObjects: 3, expiring: 50 };
    expect(storedSince(after, before)).toEqual({ ...NOTHING_STORED, forGood: 3000, forGoodByClass: { 'R# T#': 500, 'P# #': 2500 }, items: 4, log: 128, logObjects: 2, expiring: 50 });
  });
});
