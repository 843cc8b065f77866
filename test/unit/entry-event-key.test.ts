import fc from 'fast-check';
import { eventKeyAttribute, eventKeyOf } from '../../functions/store/dynamodb/record-items';
import { eventPk } from '../../functions/store/layout';

/**
 * An event's identity as an entry item keeps it (record-items.ts eventKeyAttribute): an event's key
 * (layout.ts eventPk) in its sender's name and the digest's 32 bytes, any other key as its text;
 * read back as it was, whatever the sender's name (seeded: the same cases every run).
 */
const digest = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString('hex'));
const sender = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }).filter((s) => !s.includes('\u0000'));

test('an event\'s key is kept in its sender\'s bytes, a zero byte and 32 bytes, and read back as it was', () => {
  fc.assert(
    fc.property(sender, digest, (sourceId, hex) => {
      const key = eventPk(sourceId, hex);
      const attribute = eventKeyAttribute(key);
      expect(attribute.B).toHaveLength(Buffer.byteLength(sourceId) + 33);
      expect(eventKeyOf(attribute)).toBe(key);
    }),
    { seed: 2026, numRuns: 500 },
  );
});

test('any other key is kept as its text', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 120 }), (key) => {
      fc.pre(!/^P#[^\u0000]+#event:[0-9a-f]{64}$/.test(key));
      expect(eventKeyAttribute(key)).toEqual({ S: key });
      expect(eventKeyOf(eventKeyAttribute(key))).toBe(key);
    }),
    { seed: 2026, numRuns: 500 },
  );
});
