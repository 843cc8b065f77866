import fc from 'fast-check';
import { namedOfStream, waitingKeysOfStream, type StreamRecord } from '../../functions/store/dynamodb/pending';
import { LOOK_AT_LEAST_EVERY_MS, PendingLooks } from '../../functions/ledger-writer/pending-age';

/**
 * What the sequencer reads of a stream batch (functions/store/dynamodb/pending.ts): the keys of the
 * new waiting events, and the records their images name (a hint for reading their geneses with the
 * events). Whatever a batch carries, neither throws: an image that is not an event's names nothing.
 * Real images of stored events: test/integration/sequencer-lambda.test.ts.
 */
const SEED = 20261127;

const attributeValue = fc.oneof(
  fc.record({ S: fc.string() }),
  fc.record({ N: fc.string() }),
  fc.record({ B: fc.uint8Array() }),
  fc.record({ BOOL: fc.boolean() }),
  fc.constant({ NULL: true }),
  fc.anything(),
);
const image = fc.dictionary(fc.constantFrom('pk', 'sk', 'event', 'sourceId', 'webhookId', 'bodySha256', 'receivedAt', 'contentSha256', 'effect', 'sequencing', 'queue', 'fields', 'x'), attributeValue);
const streamRecord: fc.Arbitrary<StreamRecord> = fc.record(
  {
    eventName: fc.constantFrom('INSERT', 'MODIFY', 'REMOVE', 'x'),
    dynamodb: fc.record({ Keys: fc.record({ pk: fc.record({ S: fc.oneof(fc.string(), fc.string().map((s) => `P#${s}`)) }) }), NewImage: image }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

test('any stream batch: keys of INSERTs that begin P#, and named references that are non-empty strings, never a throw (seeded)', () => {
  fc.assert(
    fc.property(fc.array(streamRecord, { maxLength: 20 }), (records) => {
      for (const key of waitingKeysOfStream(records)) expect(key.startsWith('P#')).toBe(true);
      for (const reference of namedOfStream(records)) expect(typeof reference === 'string' && reference.length > 0).toBe(true);
    }),
    { seed: SEED, numRuns: 500 },
  );
});

test('a run the stream wakes looks at the index when none was made for LOOK_AT_LEAST_EVERY_MS', () => {
  let now = 1_000_000;
  const looks = new PendingLooks(() => now);
  expect(looks.due).toBe(true);
  looks.looked();
  now += LOOK_AT_LEAST_EVERY_MS - 1;
  expect(looks.due).toBe(false);
  now += 1;
  expect(looks.due).toBe(true);
});
