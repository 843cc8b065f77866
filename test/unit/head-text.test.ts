import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { itemSize, writeUnits, type Item as PricedItem } from '../../bench/lib/capacity/units';
import { HEAD_DEFLATED_V1, HEAD_TEXT, headAttribute, headDictionaryV1, headTextOf, storedHeadItem } from '../../functions/store/dynamodb/head-text';
import { headItem, headPartsOf, type Item } from '../../functions/store/dynamodb/record-items';
import { CHECKPOINT_TO_COME } from '../../functions/store/checkpoint-to-come';

/**
 * A version's head is kept deflated with a preset dictionary (functions/store/dynamodb/head-text.ts):
 * read back exactly, whatever its text; an item of the layout before (the text itself) read as it
 * is; and a state change's head item within one write unit on a young log, two on a log of 2^30
 * entries, where its text took two and three.
 */
const ORIGIN = 'trust.example.com/public-trust-verification-service/ledger';
/** Base64 of a SHA-256: what a hash or a signature looks like to a compressor (nothing to gain). */
const hash = (seed: string) => createHash('sha256').update(seed).digest('base64');
const signature = (seed: string) => Buffer.concat([createHash('sha256').update(`${seed}a`).digest().subarray(0, 4), createHash('sha512').update(seed).digest()]).toString('base64');

/** A state change's head as the sequencer writes it: an order's content, its evidence with `proofLength` hashes, what it restricts. */
function orderHead(proofLength: number): string {
  const treeSize = 2 ** proofLength;
  return JSON.stringify({
    kind: 'OBJECT',
    reference: 'ORD-2026-000123',
    version: 3,
    content: { reference: 'ORD-2026-000123', objectType: 'ORDER', businessReference: 'Order 2026-000123', title: 'Order 2026-000123', authority: 'Service platform', state: 'SHIPPED', stateSince: '2026-11-26T09:59:58.123Z', version: 3, freshnessSeconds: 86400 },
    evidence: {
      format: 'svc.ledger-evidence.v1',
      version: 3,
      origin: ORIGIN,
      leafIndex: treeSize - 7,
      treeSize,
      leafHash: hash('leaf'),
      inclusionProof: Array.from({ length: proofLength }, (_, i) => hash(`proof ${i}`)),
      checkpoint: `${ORIGIN}\n${treeSize}\n${hash('root')}\n\n— ${ORIGIN} ${signature('checkpoint')}\n`,
    },
    restricted: {
      customer: { name: 'Erika Musterfrau (fictitious)', email: 'erika.demo@example.invalid', phone: '+49 30 0000000', shippingAddress: 'Musterstrasse 1, 10115 Berlin' },
      payment: { cardNumber: '4111 1111 1111 1111', iban: 'DE02 1203 0000 0000 2020 51', cardholder: 'E. Musterfrau' },
    },
  });
}

const EVENT_KEY = `P#service-platform#event:${createHash('sha256').update('event').digest('hex')}`;
const priced = (item: Item) => ({ bytes: itemSize(item as PricedItem), units: writeUnits(itemSize(item as PricedItem)) });

test('the dictionary is frozen: every head written with it is read with it (a new one needs an attribute of its own)', () => {
  expect(createHash('sha256').update(headDictionaryV1()).digest('hex')).toBe('3552a377406a3e179867e2cd0c22e4c33c82e4e51d56f760f5ecf1509f990a92');
});

test('any text is read back exactly, deflated or (where that saves nothing) as it is', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 3000 }), fc.json({ maxDepth: 4 }), fc.nat({ max: 40 }).map(orderHead)), (text) => {
      const attribute = headAttribute(text);
      expect(Object.keys(attribute)).toHaveLength(1);
      expect(headTextOf(attribute)).toBe(text);
    }),
    { seed: 1126, numRuns: 300 },
  );
});

test('a head item of the layout before, its text in `head`, reads as it is; an item that keeps no head reads as none', () => {
  const text = orderHead(6);
  const before: Item = { pk: { S: 'R#ORD-2026-000123' }, sk: { S: 'V#2026-11-26T09:59:58.123Z#0000004' }, version: { N: '3' }, [HEAD_TEXT]: { S: text } };
  expect(headPartsOf(before)).toEqual({ sk: 'V#2026-11-26T09:59:58.123Z#0000004', version: 3, headText: text });
  expect(headTextOf({ pk: { S: 'R#ORD-2026-000123' } })).toBeNull();
  expect(() => headPartsOf({ pk: { S: 'R#x' }, sk: { S: 'V#x' }, version: { N: '1' } })).toThrow('a head item keeps its head');
});

test("a state change's head item, its event's identity on it: one write unit on a young log, two on a log of 2^30 entries (its text: two and three)", () => {
  const sizes = [6, 30].map((proofLength) => {
    const text = orderHead(proofLength);
    const item = headItem('ORD-2026-000123', 'T#2026-11-26T09:59:58.123Z#0000004', 3, text, EVENT_KEY);
    expect(Object.keys(item)).toContain(HEAD_DEFLATED_V1);
    expect(headPartsOf(item).headText).toBe(text);
    const asText: Item = { ...item, [HEAD_TEXT]: { S: text } };
    delete asText[HEAD_DEFLATED_V1];
    return { proofLength, deflated: priced(item), text: priced(asText) };
  });
  expect(sizes.map((s) => [s.proofLength, s.deflated.units, s.text.units])).toEqual([
    [6, 1, 2],
    [30, 2, 3],
  ]);
});

test("a batch's journal keeps a head as its text (its chunks compress heads together) and gives back the very item the store writes", () => {
  const item = headItem('ORD-2026-000123', 'T#2026-11-26T09:59:58.123Z#0000004', 3, orderHead(12), EVENT_KEY);
  const journaled = headItem('ORD-2026-000123', 'T#2026-11-26T09:59:58.123Z#0000004', 3, orderHead(12), EVENT_KEY, 'journal');
  expect(journaled[HEAD_DEFLATED_V1]).toBeUndefined();
  expect(JSON.parse(journaled.headJ.S!)).toEqual(JSON.parse(orderHead(12)));
  expect(storedHeadItem(journaled, null)).toEqual(item);
  // Every other item passes as it is, and so does a head that was kept as its text.
  const entry: Item = { pk: { S: 'R#ORD-2026-000123' }, sk: { S: 'T#2026-11-26T09:59:58.123Z#0000004' }, e: { S: '{}' }, w: { S: '{}' }, v: { N: '3' } };
  const plain: Item = { ...entry, sk: { S: 'V#x' }, [HEAD_TEXT]: { S: 'x' } };
  for (const other of [entry, plain]) expect(storedHeadItem(other, null)).toEqual(other);
});

test("a journaled head whose evidence waits for its batch's checkpoint is stored with the checkpoint its batch published; never without it", () => {
  const signed = orderHead(12);
  const { evidence } = JSON.parse(signed) as { evidence: { checkpoint: string } };
  const waiting = signed.replace(JSON.stringify(evidence.checkpoint), JSON.stringify(CHECKPOINT_TO_COME));
  expect(waiting).not.toBe(signed);
  const journaled = headItem('ORD-2026-000123', 'T#2026-11-26T09:59:58.123Z#0000004', 3, waiting, EVENT_KEY, 'journal');
  expect(storedHeadItem(journaled, evidence.checkpoint)).toEqual(headItem('ORD-2026-000123', 'T#2026-11-26T09:59:58.123Z#0000004', 3, signed, EVENT_KEY));
  expect(() => storedHeadItem(journaled, null)).toThrow(/waits for its checkpoint/);
  expect(() => headAttribute(waiting)).toThrow(/waits for its checkpoint/);
});
