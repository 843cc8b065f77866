import fc from 'fast-check';
import { filterCriteriaMatch, patternMatches } from '../../lib/assembly/filter-pattern';

/**
 * The Lambda developer guide's filter rule syntax ("Control which events Lambda sends to your
 * function"), one documented example per comparison operator, each with records that must and
 * must not pass; then the DynamoDB example of the guide and the stack's own stream filter.
 */
const documented: Array<{ operator: string; pattern: Record<string, any>; passes: unknown[]; fails: unknown[] }> = [
  { operator: 'Null', pattern: { UserID: [null] }, passes: [{ UserID: null }], fails: [{ UserID: 'u-1' }, {}, { UserID: '' }] },
  { operator: 'Empty', pattern: { LastName: [''] }, passes: [{ LastName: '' }], fails: [{ LastName: 'Doe' }, {}, { LastName: null }] },
  { operator: 'Equals', pattern: { Name: ['Alice'] }, passes: [{ Name: 'Alice' }], fails: [{ Name: 'alice' }, { Name: 'Bob' }, {}] },
  { operator: 'Equals (ignore case)', pattern: { Name: [{ 'equals-ignore-case': 'alice' }] }, passes: [{ Name: 'Alice' }, { Name: 'ALICE' }], fails: [{ Name: 'Alicia' }, {}] },
  {
    operator: 'And',
    pattern: { Location: ['New York'], Day: ['Monday'] },
    passes: [{ Location: 'New York', Day: 'Monday' }],
    fails: [{ Location: 'New York', Day: 'Tuesday' }, { Location: 'Boston', Day: 'Monday' }, { Location: 'New York' }],
  },
  { operator: 'Or', pattern: { PaymentType: ['Credit', 'Debit'] }, passes: [{ PaymentType: 'Credit' }, { PaymentType: 'Debit' }], fails: [{ PaymentType: 'Cash' }, {}] },
  {
    operator: 'Or (multiple fields)',
    pattern: { $or: [{ Location: ['New York'] }, { Day: ['Monday'] }] },
    passes: [{ Location: 'New York', Day: 'Friday' }, { Location: 'Boston', Day: 'Monday' }],
    fails: [{ Location: 'Boston', Day: 'Friday' }, {}],
  },
  { operator: 'Not', pattern: { Weather: [{ 'anything-but': ['Raining'] }] }, passes: [{ Weather: 'Sunny' }], fails: [{ Weather: 'Raining' }] },
  { operator: 'Numeric (equals)', pattern: { Price: [{ numeric: ['=', 100] }] }, passes: [{ Price: 100 }], fails: [{ Price: 101 }, { Price: '100' }, {}] },
  {
    operator: 'Numeric (range)',
    pattern: { Price: [{ numeric: ['>', 10, '<=', 20] }] },
    passes: [{ Price: 20 }, { Price: 10.5 }],
    fails: [{ Price: 10 }, { Price: 20.01 }, {}],
  },
  { operator: 'Exists', pattern: { ProductName: [{ exists: true }] }, passes: [{ ProductName: 'x' }, { ProductName: '' }], fails: [{}] },
  { operator: 'Does not exist', pattern: { ProductName: [{ exists: false }] }, passes: [{}, { Other: 1 }], fails: [{ ProductName: 'x' }] },
  { operator: 'Begins with', pattern: { Region: [{ prefix: 'us-' }] }, passes: [{ Region: 'us-east-1' }], fails: [{ Region: 'eu-west-1' }, { Region: 'US-east-1' }, {}] },
  { operator: 'Ends with', pattern: { FileName: [{ suffix: '.png' }] }, passes: [{ FileName: 'image.png' }], fails: [{ FileName: 'image.jpg' }, {}] },
];

describe.each(documented)('$operator', ({ pattern, passes, fails }) => {
  test.each(passes.map((record) => [JSON.stringify(record), record]))('passes %s', (_label, record) => {
    expect(patternMatches(pattern, record as never)).toBe(true);
  });
  test.each(fails.map((record) => [JSON.stringify(record), record]))('refuses %s', (_label, record) => {
    expect(patternMatches(pattern, record as never)).toBe(false);
  });
});

test('a leaf holding an array matches when any element does (the guide: arrays in records)', () => {
  expect(patternMatches({ Tags: ['red'] }, { Tags: ['blue', 'red'] })).toBe(true);
  expect(patternMatches({ Tags: ['red'] }, { Tags: ['blue'] })).toBe(false);
});

test("the guide's DynamoDB example: a record filtered on its key and on its new image", () => {
  const record = {
    eventID: '1',
    eventVersion: '1.0',
    dynamodb: {
      ApproximateCreationDateTime: '1678831218.0',
      Keys: { CustomerName: { S: 'AnyCompany Industries' } },
      NewImage: { AccountManager: { S: 'Pat Candella' }, PaymentTerms: { S: '60 days' }, CustomerName: { S: 'AnyCompany Industries' } },
      SequenceNumber: '111',
      SizeBytes: 26,
      StreamViewType: 'NEW_IMAGE',
    },
  };
  expect(filterCriteriaMatch([JSON.stringify({ dynamodb: { Keys: { CustomerName: { S: ['AnyCompany Industries'] } } } })], record)).toBe(true);
  expect(filterCriteriaMatch([JSON.stringify({ dynamodb: { NewImage: { AccountManager: { S: ['Pat Candella'] } } } })], record)).toBe(true);
  expect(filterCriteriaMatch([JSON.stringify({ dynamodb: { NewImage: { AccountManager: { S: ['Someone Else'] } } } })], record)).toBe(false);
});

test('several filters are ORed, and no filters pass every record', () => {
  const a = JSON.stringify({ Name: ['Alice'] });
  const b = JSON.stringify({ Name: ['Bob'] });
  expect(filterCriteriaMatch([a, b], { Name: 'Bob' })).toBe(true);
  expect(filterCriteriaMatch([a, b], { Name: 'Carol' })).toBe(false);
  expect(filterCriteriaMatch([], { Name: 'Carol' })).toBe(true);
});

test("the stack's stream filter (new pending deliveries) passes only INSERTs of P# partitions", () => {
  const filter = JSON.stringify({ eventName: ['INSERT'], dynamodb: { Keys: { pk: { S: [{ prefix: 'P#' }] } } } });
  const record = (eventName: string, pk: string) => ({ eventName, dynamodb: { Keys: { pk: { S: pk }, sk: { S: '#' } } } });
  fc.assert(
    fc.property(fc.constantFrom('INSERT', 'MODIFY', 'REMOVE'), fc.string(), (eventName, pk) => {
      expect(filterCriteriaMatch([filter], record(eventName, pk))).toBe(eventName === 'INSERT' && pk.startsWith('P#'));
    }),
    { seed: 22, numRuns: 300 },
  );
  expect(filterCriteriaMatch([filter], record('INSERT', 'P#service-platform#msg_1'))).toBe(true);
  expect(filterCriteriaMatch([filter], record('INSERT', 'R#ORD-2026-0001'))).toBe(false);
});

test('an unknown rule is an error, never a silent match', () => {
  expect(() => patternMatches({ Name: [{ 'no-such-rule': 1 }] }, { Name: 'x' })).toThrow(/unknown filter rule/);
});
