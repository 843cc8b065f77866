import { RecordTails } from '../../functions/store/dynamodb/record-tails';

/** What a warm writer remembers of its records (functions/store/dynamodb/record-tails.ts), by itself. */
const entry = (pk: string, at: string) => ({ pk: { S: pk }, sk: { S: `T#${at}#0000001` } });
const head = (pk: string, at: string) => ({ pk: { S: `${pk}#V` }, sk: { S: `V#${at}#0000001` } });

test('an item is known newest only when read as newest or written over a known one; a boundary at or before it asks the table', () => {
  const tails = new RecordTails();
  tails.leaseTaken(1);
  expect(tails.before('R#A', 'T#', 'T#2026-01-02')).toBeUndefined();
  tails.learned('R#A', 'T#', entry('R#A', '2026-01-01'));
  expect(tails.before('R#A', 'T#', 'T#2026-01-02')).toEqual({ prior: entry('R#A', '2026-01-01') });
  expect(tails.before('R#A', 'T#', 'T#2026-01-01')).toBeUndefined();
  // Written: an older entry changes nothing, a newer one is the newest; a record not remembered stays unknown.
  tails.wrote([entry('R#A', '2025-12-31'), entry('R#B', '2026-01-05'), { pk: { S: 'R#A' }, sk: { S: '#' } }]);
  expect(tails.before('R#A', 'T#', 'T#2026-01-02')).toEqual({ prior: entry('R#A', '2026-01-01') });
  expect(tails.before('R#B', 'T#', 'T#2026-01-09')).toBeUndefined();
  tails.wrote([entry('R#A', '2026-01-03')]);
  expect(tails.before('R#A', 'T#', 'T#2026-01-02')).toBeUndefined();
  expect(tails.before('R#A', 'T#', 'T#2026-01-04')).toEqual({ prior: entry('R#A', '2026-01-03') });
  // A partition known empty: nothing before any boundary, until something is written.
  tails.learned('R#A#V', 'V#', null);
  expect(tails.before('R#A#V', 'V#', 'V#2026-01-04')).toEqual({ prior: null });
  tails.wrote([head('R#A', '2026-01-03')]);
  expect(tails.before('R#A#V', 'V#', 'V#2026-01-04')).toEqual({ prior: head('R#A', '2026-01-03') });
});

test('kept across leases only when each is the one after this writer\'s last whole batch', () => {
  const tails = new RecordTails();
  const remember = () => tails.learned('R#A', 'T#', entry('R#A', '2026-01-01'));
  tails.leaseTaken(5);
  remember();
  tails.batchDone();
  tails.leaseTaken(6);
  expect(tails.size).toBe(1);
  tails.batchDone();
  // Another writer took the seventh.
  tails.leaseTaken(8);
  expect(tails.size).toBe(0);
  remember();
  // A batch that did not finish: the next lease starts afresh even if it is the next one.
  tails.leaseTaken(9);
  expect(tails.size).toBe(0);
  remember();
  tails.batchDone();
  // A head from before leases were counted.
  tails.leaseTaken(undefined);
  expect(tails.size).toBe(0);
  remember();
  tails.batchDone();
  tails.leaseTaken(undefined);
  expect(tails.size).toBe(0);
  remember();
  tails.forget();
  expect(tails.size).toBe(0);
});

test('bounded: past its capacity the least recently used partition is forgotten', () => {
  const tails = new RecordTails(2);
  tails.leaseTaken(1);
  tails.learned('R#A', 'T#', entry('R#A', '2026-01-01'));
  tails.learned('R#B', 'T#', entry('R#B', '2026-01-01'));
  expect(tails.before('R#A', 'T#', 'T#2026-02')).toBeDefined();
  tails.learned('R#C', 'T#', null);
  expect(tails.size).toBe(2);
  expect(tails.before('R#B', 'T#', 'T#2026-02')).toBeUndefined();
  expect(tails.before('R#A', 'T#', 'T#2026-02')).toBeDefined();
  expect(tails.before('R#C', 'T#', 'T#2026-02')).toEqual({ prior: null });
});
