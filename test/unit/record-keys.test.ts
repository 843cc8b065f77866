import fc from 'fast-check';
import { REFERENCE_PATTERN } from '../../functions/contract/schemas/common';
import { inHeadsPartition } from '../../functions/store/dynamodb/record-items';
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
