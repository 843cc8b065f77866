import fc from 'fast-check';
import { REFERENCE_PATTERN } from '../../functions/contract/schemas/common';
import { inHeadsPartition, newestOf, tailOf } from '../../functions/store/dynamodb/record-items';
import { isRecordHeadsPk, recordHeadsPk, recordPk, referenceOfRecordPk } from '../../functions/store/layout';

/**
 * A record's two partition keys (layout.ts): its entries' and its heads'. No reference's heads key
 * is another reference's entries key, or the other way round, and each gives its reference back
 * (seeded: the same cases every run).
 */
const reference = fc.stringMatching(new RegExp(REFERENCE_PATTERN)).filter((r) => r.length <= 120);

test("a reference's two keys give it back, and never meet another reference's keys", () => {
  fc.assert(
    fc.property(reference, reference, (a, b) => {
      expect(referenceOfRecordPk(recordPk(a))).toBe(a);
      expect(referenceOfRecordPk(recordHeadsPk(a))).toBe(a);
      expect([isRecordHeadsPk(recordPk(a)), isRecordHeadsPk(recordHeadsPk(a))]).toEqual([false, true]);
      expect(recordHeadsPk(a)).not.toBe(recordPk(b));
      if (a !== b) expect(new Set([recordPk(a), recordHeadsPk(a), recordPk(b), recordHeadsPk(b)]).size).toBe(4);
    }),
    { seed: 2026, numRuns: 1000 },
  );
});

test("a head under its record's entries' key (the layout before) is moved to the heads' key; any other item is left as it is", () => {
  const head = { pk: { S: 'R#ORD-1' }, sk: { S: 'V#2026-11-20T10:00:00.000Z#0000000' }, version: { N: '1' } };
  expect(inHeadsPartition(head)).toEqual({ ...head, pk: { S: 'R#ORD-1#V' } });
  // The reference "V": its entries' key ends as a heads key does, and is not one.
  expect(inHeadsPartition({ ...head, pk: { S: 'R#V' } })).toEqual({ ...head, pk: { S: 'R#V#V' } });
  const moved = inHeadsPartition(head);
  expect(inHeadsPartition(moved)).toBe(moved);
  for (const item of [
    { pk: { S: 'R#ORD-1' }, sk: { S: 'T#2026-11-20T10:00:00.000Z#0000000' } },
    { pk: { S: 'R#ORD-1' }, sk: { S: '#' } },
    { pk: { S: 'L#LOG' }, sk: { S: '#' } },
    { pk: { S: 'P#service-platform#event:x' }, sk: { S: '#' } },
  ]) expect(inHeadsPartition(item)).toBe(item);
});

/**
 * Where a genesis says its record's newest entry and head are (`newest`, records.ts): written as a
 * pair and read back; anything else (a genesis damaged by hand) reads as not said, so the record is
 * searched instead, and never throws (seeded).
 */
test("a genesis's newest items read back as written; anything else reads as not said, and never throws", () => {
  const sk = (prefix: string) => fc.tuple(fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }), fc.nat(9_999_999)).map(([at, seq]) => `${prefix}${at.toISOString()}#${String(seq).padStart(7, '0')}`);
  fc.assert(
    fc.property(sk('T#'), fc.option(sk('V#'), { nil: null }), (entry, head) => {
      expect(newestOf(tailOf({ entry, head }))).toEqual({ entry, head });
    }),
    { seed: 2026, numRuns: 500 },
  );
  const anything = fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify(v)), fc.tuple(fc.jsonValue(), fc.jsonValue()).map((v) => JSON.stringify(v)));
  fc.assert(
    fc.property(anything, (text) => {
      const read = newestOf(text);
      if (read) expect([read.entry.startsWith('T#'), read.head === null || read.head.startsWith('V#')]).toEqual([true, true]);
    }),
    { seed: 2027, numRuns: 2000 },
  );
  for (const damaged of ['', 'null', '[]', '["T#x"]', '["V#x","V#y"]', '["T#x","T#y"]', '["T#x",1]', '{"entry":"T#x"}', '[1,null]']) expect(newestOf(damaged)).toBeUndefined();
  expect(newestOf(undefined)).toBeUndefined();
});
