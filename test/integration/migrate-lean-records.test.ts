import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { demoDocument } from '../../fixtures/demo';
import { tableStores } from '../../functions/store/dynamodb';
import type { RecordStore, TimelineRequest } from '../../functions/store/ports/records';
import { ensureTable } from '../../functions/store/write';
import { putItems } from '../../functions/store/dynamodb/put-items';
import { loadDocument } from '../../lib/loader/load';
import { leanRecords } from '../../lib/migrate/steps/lean-records';
import { embeddedStoreForFile, scanTable } from '../support/embedded-table';
import { headTextOf } from '../../functions/store/dynamodb/head-text';
import { eventKeyOf } from '../../functions/store/dynamodb/record-items';

/**
 * The migration of record items to the lean layout (lib/migrate/steps/lean-records.ts): a table
 * written in the layout before (every entry item carrying its version's head and evidence, and the
 * event that made it) is rewritten to exactly what the writers write today, and every read answers
 * the same before, after, and with the migration stopped part-way.
 */
type Item = Record<string, AttributeValue>;
const ANCHOR = new Date('2026-11-01T12:00:00Z');
const embedded = embeddedStoreForFile();
let client: DynamoDBClient;
let tables = 0;
beforeAll(() => {
  client = embedded.client();
});

const scanAll = async (table: string) => (await scanTable(client, table)).sort((a, b) => (`${a.pk.S}\u0000${a.sk.S}` < `${b.pk.S}\u0000${b.sk.S}` ? -1 : 1));

const putAll = (table: string, items: readonly Item[]) => putItems(client, table, [...items]);

/**
 * The same table in the layout before, written independently of the stores' code: each entry item
 * self-sufficient (`at`, and the entry, view and head as JSON text, and the event that made it),
 * no head or event items. Every other item as it is.
 */
function layoutBefore(items: readonly Item[]): Item[] {
  const heads = new Map<string, string>();
  const marks = new Map<string, string>();
  // A record's heads are in a partition of their own (R#<reference>#V), its entries in R#<reference> ('#' is never in a reference).
  const entriesPk = (item: Item) => item.pk.S!.replace(/^(R#[^#]+)#V$/, '$1');
  for (const item of items) {
    // The event that made an entry: on its version's head's item (an entry beginning a version), else on its own item.
    if (item.sk.S!.startsWith('V#')) heads.set(`${entriesPk(item)}|${item.version.N}`, headTextOf(item)!);
    if (item.sk.S!.startsWith('V#') && item.eventKey) marks.set(`${entriesPk(item)}|${item.sk.S!.slice(2)}`, item.eventKey.S!);
    if (item.sk.S!.startsWith('T#') && item.k) marks.set(`${item.pk.S}|${item.sk.S!.slice(2)}`, eventKeyOf(item.k));
  }
  return items.flatMap((item): Item[] => {
    const sk = item.sk.S!;
    if (!item.pk.S!.startsWith('R#') || sk.startsWith('V#') || sk.startsWith('W#')) return sk.startsWith('V#') || sk.startsWith('W#') ? [] : [item];
    if (!sk.startsWith('T#')) return [item];
    const at = sk.slice(2, sk.lastIndexOf('#'));
    const whole = (text: string) => text.replaceAll('\u0001', JSON.stringify(at));
    const before: Item = { pk: item.pk, sk: item.sk, at: { S: at }, entry: { S: whole(item.e.S!) }, view: { S: whole(item.w.S!) }, head: { S: heads.get(`${item.pk.S}|${item.v.N}`)! } };
    const eventKey = marks.get(`${item.pk.S}|${sk.slice(2)}`);
    if (eventKey) before.eventKey = { S: eventKey };
    return [before];
  });
}

/**
 * Everything a reader and a writer reads of every record: the windows at now and at an instant of
 * each entry, and the whole timelines. Not a timeline's `tail`: where the newest items are is the
 * store's own, and the layouts keep heads in different places.
 */
async function answers(records: RecordStore, references: readonly string[]): Promise<string> {
  const out: unknown[] = [];
  const timeline = async (request: TimelineRequest) => {
    const read = (await records.readTimelines([request])).get(request.reference);
    if (!read) return read;
    const { tail: _whereNewest, ...answer } = read;
    return answer;
  };
  for (const reference of references) {
    const whole = await timeline({ reference, from: null });
    const window = await records.readWindow(reference, ANCHOR.toISOString(), 50);
    const newest = window.entries[0];
    out.push({ reference, whole, window: { ...window, entries: window.entries.map((e) => e.entry) }, newest: newest && { view: newest.view, head: newest.headText } });
    const all = whole?.entries ?? [];
    // The first, the middle and the newest two entries' instants (the long history read whole once is enough).
    for (const e of [...new Set([all[0], all[all.length >> 1], all[all.length - 2], all[all.length - 1]])].filter((x) => x !== undefined)) {
      const part = await timeline({ reference, from: e.at });
      const then = await records.readWindow(reference, e.at, 3);
      out.push({ reference, at: e.at, part, then: { ...then, entries: then.entries.map((x) => [x.entry, x.view]) }, head: then.entries[0]?.headText });
    }
  }
  return JSON.stringify(out);
}

const demoReferences = () => (demoDocument(ANCHOR).records as { reference: string }[]).map((r) => r.reference);
/** Every record of a table's items (the demo's, and those derived from them: the status lists). */
const recordsIn = (items: readonly Item[]) => [...new Set(items.filter((item) => /^R#[^#]+$/.test(item.pk.S!)).map((item) => item.pk.S!.slice(2)))];

/** The demo loaded by today's loader, with two entries an event made (they carry its identity), in a new table. */
async function demoTable(): Promise<{ table: string; records: RecordStore }> {
  const table = `lean-${tables++}`;
  await ensureTable(client, table);
  await loadDocument(demoDocument(ANCHOR), { client, table });
  const records = tableStores(client, table).records;
  const [reference] = demoReferences();
  const part = (await records.readTimelines([{ reference, from: ANCHOR.toISOString() }])).get(reference)!;
  const newest = part.before!;
  await records.write([
    {
      reference,
      kind: 'OBJECT',
      after: part.after,
      entries: [
        { id: null, at: ANCHOR.toISOString(), entry: { ...newest.entry, at: ANCHOR.toISOString() }, view: newest.view, head: newest.head, eventKey: 'P#service-platform#event:one' },
        { id: null, at: ANCHOR.toISOString(), entry: { ...newest.entry, at: ANCHOR.toISOString(), note: 'two' }, view: newest.view, head: newest.head, eventKey: 'P#service-platform#event:two' },
      ],
    },
  ]);
  return { table, records };
}

test('a table in the layout before is rewritten to exactly what the writers write now, and every read answers the same before and after; run again, nothing changes', async () => {
  const now = await demoTable();
  const expected = await scanAll(now.table);
  expect(expected.some((item) => item.sk.S!.startsWith('T#') && item.k !== undefined)).toBe(true);
  const references = recordsIn(expected);
  expect(references.length).toBeGreaterThan(demoReferences().length);
  const expectedAnswers = await answers(now.records, references);

  const table = `lean-${tables++}`;
  await ensureTable(client, table);
  await putAll(table, layoutBefore(expected));
  const records = tableStores(client, table).records;
  expect((await scanAll(table)).some((item) => item.head !== undefined && item.sk.S!.startsWith('T#'))).toBe(true);
  expect(await answers(records, references)).toBe(expectedAnswers);

  const summary = await leanRecords(client, table);
  expect(summary).toMatchObject({ records: references.length, eventKeys: 2, kept: [] });
  expect(summary.heads).toBe(expected.filter((item) => item.sk.S!.startsWith('V#')).length);
  expect(await scanAll(table)).toEqual(expected);
  expect(await answers(records, references)).toBe(expectedAnswers);

  expect(await leanRecords(client, table)).toEqual({ records: 0, entries: 0, heads: 0, eventKeys: 0, kept: [] });
  expect(await scanAll(table)).toEqual(expected);
}, 120_000);

test('stopped part-way (some records, and half of one record\'s entries, rewritten) the table still answers the same, and a second run finishes it', async () => {
  const now = await demoTable();
  const expected = await scanAll(now.table);
  const references = recordsIn(expected);
  const expectedAnswers = await answers(now.records, references);
  const table = `lean-${tables++}`;
  await ensureTable(client, table);
  const before = layoutBefore(expected);
  // Half the records as the migration leaves them, and half of another's entries with its heads.
  const [first, second] = demoReferences();
  const isOf = (reference: string) => (item: Item) => item.pk.S === `R#${reference}` || item.pk.S === `R#${reference}#V`;
  const half = expected.filter(isOf(second)).filter((item) => !item.sk.S!.startsWith('T#') || Number(item.sk.S!.slice(-7)) % 2 === 0);
  await putAll(table, [...before.filter((item) => !isOf(first)(item) && !isOf(second)(item)), ...expected.filter(isOf(first)), ...before.filter(isOf(second))]);
  await putAll(table, half);
  expect(await answers(tableStores(client, table).records, references)).toBe(expectedAnswers);

  const summary = await leanRecords(client, table);
  expect(summary.records).toBe(references.length - 1);
  expect(await scanAll(table)).toEqual(expected);
  expect(await answers(tableStores(client, table).records, references)).toBe(expectedAnswers);
}, 120_000);

test('a record whose entries give one version two different heads is kept as it is, named in the summary, and still read as before', async () => {
  const now = await demoTable();
  const expected = await scanAll(now.table);
  const table = `lean-${tables++}`;
  await ensureTable(client, table);
  const before = layoutBefore(expected);
  const [reference] = demoReferences();
  // The newest entry: the two an event made share its version.
  const entries = before.filter((item) => item.pk.S === `R#${reference}` && item.sk.S!.startsWith('T#'));
  const last = entries.sort((a, b) => (a.sk.S! < b.sk.S! ? -1 : 1))[entries.length - 1];
  const head = JSON.parse(last.head.S!) as Record<string, unknown>;
  last.head = { S: JSON.stringify({ ...head, evidence: null }) };
  expect(JSON.stringify(head.evidence)).not.toBe('null');
  await putAll(table, before);
  const records = tableStores(client, table).records;
  const readBefore = await answers(records, [reference]);

  const summary = await leanRecords(client, table);
  expect(summary.kept).toEqual([{ reference, reason: expect.stringContaining('more than one head') }]);
  expect((await scanAll(table)).filter((item) => item.pk.S === `R#${reference}`)).toEqual(before.filter((item) => item.pk.S === `R#${reference}`));
  expect(await answers(records, [reference])).toBe(readBefore);
}, 120_000);
