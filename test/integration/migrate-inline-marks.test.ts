import { createHash } from 'node:crypto';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { itemSize, type Item as PricedItem } from '../../bench/lib/capacity/units';
import { tableStores } from '../../functions/store/dynamodb';
import { eventKeyAttribute, eventKeyOf } from '../../functions/store/dynamodb/record-items';
import { putItems } from '../../functions/store/dynamodb/put-items';
import { eventPk } from '../../functions/store/layout';
import type { RecordChange } from '../../functions/store/ports/records';
import { ensureTable } from '../../functions/store/write';
import { inlineMarks } from '../../lib/migrate/steps/inline-marks';
import { embeddedStoreForFile, scanTable } from '../support/embedded-table';
import { objectChange } from '../support/record-changes';

/**
 * An event's identity on the entry it made (lib/migrate/steps/inline-marks.ts): the writers keep
 * it on the entry's item (or its new head's); a table whose marks are items of their own (`W#`,
 * the layout before) is folded to exactly what the writers write now, reads the same, and a
 * second run changes nothing.
 */
type Item = Record<string, AttributeValue>;
const embedded = embeddedStoreForFile();
const minute = (n: number) => new Date(Date.UTC(2026, 10, 20, 10, n)).toISOString();
const digest = (text: string) => createHash('sha256').update(text).digest('hex');
const key = (n: number) => eventPk('service-platform', digest(`event-${n}`));

/** An object placed, then observed twice by events (no version), then changed by one (a version). */
const record = (reference: string): RecordChange =>
  objectChange(
    reference,
    [
      { type: 'STATE_CHANGED', state: 'PLACED', eventKey: null },
      { type: 'AUTHORITY_OBSERVED', state: 'PLACED', eventKey: key(1) },
      { type: 'AUTHORITY_OBSERVED', state: 'PLACED', eventKey: 'P#service-platform#an-older-form' },
      { type: 'STATE_CHANGED', state: 'SHIPPED', eventKey: key(3) },
    ],
    minute,
  );

/** The same items as the layout before kept them: an identity on an entry's item moved to a mark item of its own at the entry's position. */
function layoutBefore(items: readonly Item[]): Item[] {
  return items.flatMap((item) => {
    if (!item.sk.S!.startsWith('T#') || !item.k) return [item];
    const { k, ...entry } = item;
    return [entry, { pk: item.pk, sk: { S: `W#${item.sk.S!.slice(2)}` }, eventKey: { S: eventKeyOf(k) } }];
  });
}

const sorted = (items: readonly Item[]) => [...items].sort((a, b) => (`${a.pk.S}|${a.sk.S}` < `${b.pk.S}|${b.sk.S}` ? -1 : 1));

test('an event\'s key is kept on an entry in about 50 bytes, and read back as it was', () => {
  const eventKey = key(1);
  const attribute = eventKeyAttribute(eventKey);
  expect(eventKeyOf(attribute)).toBe(eventKey);
  expect(itemSize({ k: attribute } as PricedItem)).toBe(1 + 'service-platform'.length + 1 + 32);
  expect(eventKeyOf(eventKeyAttribute('P#service-platform#an-older-form'))).toBe('P#service-platform#an-older-form');
});

test('marks of the layout before are folded into their entries, exactly as the writers write now; reads answer the same; a second run changes nothing', async () => {
  const client = embedded.client();
  await ensureTable(client, 'written-now');
  await tableStores(client, 'written-now').records.write([record('ORD-1'), record('ORD-2')]);
  const now = sorted(await scanTable(client, 'written-now'));
  // Two entries each carry their event's key; the version's beginning carries it on its head.
  expect(now.filter((i) => i.k).length).toBe(4);
  expect(now.filter((i) => i.sk.S!.startsWith('V#') && i.eventKey).length).toBe(2);

  await ensureTable(client, 'before');
  const before = layoutBefore(now);
  expect(before.filter((i) => i.sk.S!.startsWith('W#')).length).toBe(4);
  await putItems(client, 'before', before);
  const records = tableStores(client, 'before').records;
  const whole = (await records.readTimelines([{ reference: 'ORD-1', from: null }, { reference: 'ORD-2', from: null }]));
  const expected = JSON.stringify([...(await tableStores(client, 'written-now').records.readTimelines([{ reference: 'ORD-1', from: null }, { reference: 'ORD-2', from: null }]))]);
  expect(JSON.stringify([...whole])).toBe(expected);

  expect(await inlineMarks({ client, table: 'before', log: () => undefined })).toBe(4);
  expect(sorted(await scanTable(client, 'before'))).toEqual(now);
  // Read from an instant (the sequencer's read): each identity with its entry.
  const part = (await records.readTimelines([{ reference: 'ORD-1', from: minute(1) }])).get('ORD-1')!;
  expect(part.entries.map((e) => e.eventKey)).toEqual([key(1), 'P#service-platform#an-older-form', key(3)]);
  expect(await inlineMarks({ client, table: 'before', log: () => undefined })).toBe(0);
  expect(sorted(await scanTable(client, 'before'))).toEqual(now);
});

test('a mark whose entry is not there, or already names another event, is kept (nothing is lost)', async () => {
  const client = embedded.client();
  await ensureTable(client, 'odd');
  await tableStores(client, 'odd').records.write([record('ORD-3')]);
  const items = await scanTable(client, 'odd');
  const observed = items.find((i) => i.sk.S!.startsWith('T#') && i.k)!;
  const orphan: Item = { pk: { S: 'R#ORD-3' }, sk: { S: 'W#2026-11-20T09:00:00.000Z#0000009' }, eventKey: { S: key(9) } };
  const other: Item = { pk: observed.pk, sk: { S: `W#${observed.sk.S!.slice(2)}` }, eventKey: { S: key(8) } };
  await putItems(client, 'odd', [orphan, other]);
  expect(await inlineMarks({ client, table: 'odd', log: () => undefined })).toBe(0);
  const after = await scanTable(client, 'odd');
  expect(after.filter((i) => i.sk.S!.startsWith('W#')).length).toBe(2);
  expect(after.find((i) => i.sk.S === observed.sk.S)!.k).toEqual(observed.k);
});

test('stopped part-way (an identity set on its entry, its mark not yet deleted), the record reads the same, and a run again finishes it', async () => {
  const client = embedded.client();
  await ensureTable(client, 'partway-now');
  await tableStores(client, 'partway-now').records.write([record('ORD-4')]);
  const now = sorted(await scanTable(client, 'partway-now'));
  await ensureTable(client, 'partway');
  // The step's first write done for every mark, its second (the mark's deletion) for none.
  const marks = layoutBefore(now).filter((i) => i.sk.S!.startsWith('W#'));
  await putItems(client, 'partway', [...now, ...marks]);
  // Whole, and from an instant (the sequencer's read).
  const read = async (table: string) => JSON.stringify(await Promise.all([null, minute(1)].map(async (from) => (await tableStores(client, table).records.readTimelines([{ reference: 'ORD-4', from }])).get('ORD-4'))));
  expect(await read('partway')).toBe(await read('partway-now'));
  expect(await inlineMarks({ client, table: 'partway', log: () => undefined })).toBe(marks.length);
  expect(sorted(await scanTable(client, 'partway'))).toEqual(now);
});
