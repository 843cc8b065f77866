import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { GetItemCommand, QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import S3rver from 's3rver';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { KMSClient } from '@aws-sdk/client-kms';
import { verifyNote, parseVerifierKey } from '../../functions/domain/ledger/node-crypto';
import { kmsCheckpointSigner } from '../../functions/ledger-writer/kms-signer';
import { formatSignerKey, signerFromKey, type CheckpointSigner } from '../../functions/ledger-writer/signer';
import { bucketTileStore, directoryTileStore, memoryTileStore, type TileStore } from '../../functions/ledger-writer/tile-store';
import { tableStores } from '../../functions/store/dynamodb';
import { LeaseLostError, LedgerLockedError } from '../../functions/store/errors';
import { tileName } from '../../functions/store/ports/ledger';
import type { RecordChange } from '../../functions/store/ports/records';
import { eventPk, pendingQueue } from '../../functions/store/layout';
import { ensureTable } from '../../functions/store/write';
import { startKmsStandIn, type KmsStandIn } from '../../lib/local/kms-stand-in';
import { scanTable, storeImplementations } from '../support/embedded-table';
import { minute, newEvent, wholeRecord, type Stores } from '../support/store-contracts';
import { headTextOf } from '../../functions/store/dynamodb/head-text';
import { dynamoJournal } from '../../functions/store/dynamodb/journal';
import { CHECKPOINT_TO_COME, evidenceToCome } from '../../functions/store/checkpoint-to-come';

/**
 * One suite of each storage port's promises (functions/store/ports/, docs/ledger.md#storage-ports),
 * run against the DynamoDB implementation on dynalite and the in-memory one: the stores the domain
 * and sequencer tests run on keep exactly the table's promises. The tile store runs on memory, a
 * folder and S3 (s3rver); the signer as a key file and as an AWS KMS key (the KMS stand-in).
 */
const ports = storeImplementations('ports');
const IMPLEMENTATIONS = ports.implementations;

describe.each(IMPLEMENTATIONS)('the record store, %s', (_name, make) => {
  let stores: Stores;
  beforeEach(async () => (stores = await make()));

  test('the read path\'s window: the newest entries at or before an instant, newest first, at most the limit, and whether more exist', async () => {
    await stores.records.write([wholeRecord('ORD-1')]);
    const now = await stores.records.readWindow('ORD-1', minute(59), 2);
    expect(now).toMatchObject({ exists: true, kind: 'OBJECT', more: true });
    expect(now.entries.map((e) => [e.at, (e.entry as { type: string }).type])).toEqual([[minute(20), 'STATE_CHANGED'], [minute(10), 'AUTHORITY_OBSERVED']]);
    expect(now.entries[0].head).toEqual(wholeRecord('ORD-1').entries[2].head);
    expect((await stores.records.readWindow('ORD-1', minute(15), 5)).entries.map((e) => e.at)).toEqual([minute(10), minute(0)]);
    expect(await stores.records.readWindow('ORD-1', minute(0).replace('Z', '+00:00'), 5)).toMatchObject({ exists: true, more: false, entries: [{ at: minute(0) }] });
    expect(await stores.records.readWindow('ORD-1', '2026-01-01T00:00:00Z', 5)).toEqual({ exists: true, kind: 'OBJECT', entries: [], more: false });
    expect(await stores.records.readWindow('NOTHING-1', minute(59), 5)).toEqual({ exists: false, kind: null, entries: [], more: false });
  });

  test('the writers\' reads: geneses and timelines of many records in one call, whole or from an instant with the entry in force then', async () => {
    await stores.records.write([wholeRecord('ORD-1'), wholeRecord('ORD-2')]);
    const geneses = await stores.records.readGeneses(['ORD-1', 'ORD-2', 'NOTHING-1']);
    expect([...geneses.keys()].sort()).toEqual(['ORD-1', 'ORD-2']);
    expect(geneses.get('ORD-1')).toMatchObject({ kind: 'OBJECT', highestVersion: 2, setAside: [], changedByEvents: false, loadDigest: 'digest-1' });
    const timelines = await stores.records.readTimelines([
      { reference: 'ORD-1', from: null },
      { reference: 'ORD-2', from: minute(10) },
      { reference: 'NOTHING-1', from: null },
    ]);
    expect([...timelines.keys()].sort()).toEqual(['ORD-1', 'ORD-2']);
    expect(timelines.get('ORD-1')!.before).toBeNull();
    expect(timelines.get('ORD-1')!.entries.map((e) => e.at)).toEqual([minute(0), minute(10), minute(20)]);
    const part = timelines.get('ORD-2')!;
    expect([part.before?.at, part.entries.map((e) => e.at)]).toEqual([minute(0), [minute(10), minute(20)]]);
    expect(part.entries[0]).toEqual({ id: expect.any(String), at: minute(10), entry: wholeRecord('ORD-2').entries[1].entry, view: { state: 'PLACED' }, head: wholeRecord('ORD-2').entries[1].head, eventKey: null });
    // From an instant with more entries after it than one page of the table's reads, and none before.
    const all = (await stores.records.readTimelines([{ reference: 'ORD-1', from: minute(0) }])).get('ORD-1')!;
    expect(all.before).toBeNull();
    expect(all.entries).toEqual(timelines.get('ORD-1')!.entries);
    expect(all.after).toBe(timelines.get('ORD-1')!.after);
  });

  test('a change: stored entries written again under their ids, new ones after the part they were derived from (after those of the same instant), the genesis as the events left it; twice is once', async () => {
    await stores.records.write([wholeRecord('ORD-1')]);
    const part = (await stores.records.readTimelines([{ reference: 'ORD-1', from: minute(10) }])).get('ORD-1')!;
    const v3 = { kind: 'OBJECT', reference: 'ORD-1', version: 3, content: { reference: 'ORD-1', state: 'DELIVERED', version: 3 }, evidence: null };
    const change: RecordChange = {
      reference: 'ORD-1',
      kind: 'OBJECT',
      after: part.after,
      entries: [
        { ...part.entries[1], view: { state: 'SHIPPED', note: 're-derived' } },
        { id: null, at: minute(20), entry: { type: 'AUTHORITY_OBSERVED', state: 'SHIPPED' }, view: { state: 'SHIPPED' }, head: part.entries[1].head, eventKey: 'event-a' },
        { id: null, at: minute(30), entry: { type: 'STATE_CHANGED', state: 'DELIVERED' }, view: { state: 'DELIVERED' }, head: v3, eventKey: 'event-b' },
      ],
      genesis: { highestVersion: 3, events: { setAside: ['event-c'] } },
    };
    await stores.records.write([change]);
    await stores.records.write([change]);
    const whole = (await stores.records.readTimelines([{ reference: 'ORD-1', from: null }])).get('ORD-1')!;
    expect(whole.entries.map((e) => [e.at, e.entry.type, e.eventKey])).toEqual([
      [minute(0), 'STATE_CHANGED', null],
      [minute(10), 'AUTHORITY_OBSERVED', null],
      [minute(20), 'STATE_CHANGED', null],
      [minute(20), 'AUTHORITY_OBSERVED', 'event-a'],
      [minute(30), 'STATE_CHANGED', 'event-b'],
    ]);
    expect(whole.entries[2].view).toEqual({ state: 'SHIPPED', note: 're-derived' });
    expect(new Set(whole.entries.map((e) => e.id)).size).toBe(5);
    expect((await stores.records.readGeneses(['ORD-1'])).get('ORD-1')).toEqual({ kind: 'OBJECT', highestVersion: 3, setAside: ['event-c'], changedByEvents: true, loadDigest: null });
  });

  test('a change written in two calls, its timeline then its genesis (`part`), is what one call writes; a genesis the sequencer wrote gives a `tail` that answers a read from after the newest entry as the search does', async () => {
    const change = async (reference: string): Promise<RecordChange> => {
      const part = (await stores.records.readTimelines([{ reference, from: minute(30) }])).get(reference)!;
      const observed = { id: null, at: minute(40), entry: { type: 'AUTHORITY_OBSERVED', state: 'SHIPPED' }, view: { state: 'SHIPPED' }, head: part.before!.head, eventKey: `event-${reference}` };
      return { reference, kind: 'OBJECT', after: part.after, tail: part.tail, entries: [observed], genesis: { highestVersion: 2, events: { setAside: [] } } };
    };
    await stores.records.write([wholeRecord('ORD-1'), wholeRecord('ORD-2')]);
    // A record written whole says where its newest items are too (the table keeps it; the memory store searches its records anyway).
    expect((await stores.records.readGeneses(['ORD-1'])).get('ORD-1')!.tail === undefined).toBe(_name === 'in memory');
    const [one, two] = [await change('ORD-1'), await change('ORD-2')];
    await stores.records.write([one]);
    // Apart: the timeline alone leaves the genesis as it was; the genesis follows.
    await stores.records.write([two], { part: 'timelines' });
    expect((await stores.records.readGeneses(['ORD-2'])).get('ORD-2')).toMatchObject({ changedByEvents: false, loadDigest: 'digest-1' });
    await stores.records.write([two], { part: 'geneses' });
    const [genesisOne, genesisTwo] = ['ORD-1', 'ORD-2'].map(async (r) => (await stores.records.readGeneses([r])).get(r)!);
    expect(await genesisTwo).toEqual(await genesisOne.then((g) => ({ ...g, tail: g.tail?.replaceAll('ORD-1', 'ORD-2') })));
    const readsOf = async (reference: string, tail?: string) =>
      Promise.all([minute(41), minute(35), minute(40), null].map(async (from) => (await stores.records.readTimelines([{ reference, from, tail }])).get(reference)));
    for (const reference of ['ORD-1', 'ORD-2']) {
      const { tail } = (await stores.records.readGeneses([reference])).get(reference)!;
      // The table keeps it (records.ts); the memory store searches its records anyway and gives none.
      expect(tail === undefined).toBe(_name === 'in memory');
      expect(await readsOf(reference, tail)).toEqual(await readsOf(reference));
    }
  });

  test('a record written whole again over entries stored before (a load of a changed file): its genesis says where the newest stored items are, its own or those it left', async () => {
    await stores.records.write([wholeRecord('ORD-3')]);
    const wholeTail = async () => (await stores.records.readTimelines([{ reference: 'ORD-3', from: null }])).get('ORD-3')!.tail;
    const genesisTail = async () => (await stores.records.readGeneses(['ORD-3'])).get('ORD-3')!.tail;
    expect(await genesisTail()).toBe(await wholeTail());
    // Shorter now: the entry at minute 20 and its version's head stay stored, and stay the newest.
    const shorter = wholeRecord('ORD-3');
    shorter.entries = shorter.entries.slice(0, 2);
    shorter.genesis = { highestVersion: 1, loadDigest: 'digest-2' };
    const stored = await wholeTail();
    await stores.records.write([{ ...shorter, ...(stored === undefined ? {} : { tail: stored }) }]);
    expect(await genesisTail()).toBe(await wholeTail());
    // Every read from an instant answers alike where the genesis says the newest items are and by search.
    const readsOf = async (tail?: string) => Promise.all([minute(25), minute(15), null].map(async (from) => (await stores.records.readTimelines([{ reference: 'ORD-3', from, tail }])).get('ORD-3')));
    expect(await readsOf(await genesisTail())).toEqual(await readsOf());
  });

  test('a window reads one head, the newest entry\'s version\'s: its entries of that version share it, an older one of another version has none to give', async () => {
    await stores.records.write([wholeRecord('ORD-1')]);
    const window = await stores.records.readWindow('ORD-1', minute(59), 5);
    expect(window.entries.map((e) => e.at)).toEqual([minute(20), minute(10), minute(0)]);
    expect(window.entries[0].head).toEqual(wholeRecord('ORD-1').entries[2].head);
    expect(window.entries[1].view).toEqual({ state: 'PLACED' });
    expect(() => window.entries[1].head).toThrow(/another version/);
    const earlier = await stores.records.readWindow('ORD-1', minute(15), 5);
    expect(earlier.entries.map((e) => e.head)).toEqual([wholeRecord('ORD-1').entries[0].head, wholeRecord('ORD-1').entries[0].head]);
    expect(JSON.parse(JSON.stringify(window.entries))).toEqual([
      { at: minute(20), entry: wholeRecord('ORD-1').entries[2].entry, view: { state: 'SHIPPED' }, head: wholeRecord('ORD-1').entries[2].head },
      { at: minute(10), entry: wholeRecord('ORD-1').entries[1].entry, view: { state: 'PLACED' } },
      { at: minute(0), entry: wholeRecord('ORD-1').entries[0].entry, view: { state: 'PLACED' } },
    ]);
  });

  test('a version has one head: a change giving one version two different heads is refused, and nothing of it is written', async () => {
    const record = wholeRecord('ORD-1');
    record.entries[1].head = { ...(record.entries[0].head as object), evidence: { different: true } };
    await expect(stores.records.write([record])).rejects.toThrow(/version 1 is given two different heads/);
    expect((await stores.records.readWindow('ORD-1', minute(59), 5)).exists).toBe(false);
  });

  test('a version in force again after another (its head stored before the other\'s) is read with its own head, by the window and the writers', async () => {
    await stores.records.write([wholeRecord('ORD-1')]);
    const part = (await stores.records.readTimelines([{ reference: 'ORD-1', from: minute(20) }])).get('ORD-1')!;
    expect(part.before?.head.version).toBe(1);
    const v1 = part.before!.head;
    await stores.records.write([{ reference: 'ORD-1', kind: 'OBJECT', after: part.after, entries: [{ id: null, at: minute(30), entry: { at: minute(30), type: 'STATE_CHANGED', state: 'PLACED' }, view: { state: 'PLACED' }, head: v1, eventKey: 'event-back' }] }]);
    const window = await stores.records.readWindow('ORD-1', minute(59), 5);
    expect(window.entries.map((e) => e.at)).toEqual([minute(30), minute(20), minute(10), minute(0)]);
    expect(window.entries[0].head).toEqual(v1);
    expect(window.entries[0].headText).toBe(JSON.stringify(v1));
    expect(() => window.entries[1].head).toThrow(/another version/);
    expect(window.entries[2].head).toEqual(v1);
    const from = (await stores.records.readTimelines([{ reference: 'ORD-1', from: minute(25) }])).get('ORD-1')!;
    expect([from.before?.head.version, from.entries.map((e) => [e.head, e.eventKey])]).toEqual([2, [[v1, 'event-back']]]);
  });

  test('what is written is what was given then: a writer changing its objects afterwards changes nothing stored', async () => {
    const change = wholeRecord('ORD-1');
    await stores.records.write([change]);
    (change.entries[0].head as { content: { state: string } }).content.state = 'CHANGED LATER';
    const [first] = (await stores.records.readTimelines([{ reference: 'ORD-1', from: null }])).get('ORD-1')!.entries;
    expect(first.head.content.state).toBe('PLACED');
  });
});

describe('the record store\'s items in the table', () => {
  test('a version\'s head is stored once, at the first entry it is in force at; an entry item holds its entry, view and version, and the event that made it when that event made no version', async () => {
    const client = ports.client();
    const table = 'ports-items';
    await ensureTable(client, table);
    const { records } = tableStores(client, table);
    await records.write([wholeRecord('ORD-1')]);
    const part = (await records.readTimelines([{ reference: 'ORD-1', from: minute(20) }])).get('ORD-1')!;
    const v2 = part.entries[0].head;
    const entry = { id: null, at: minute(30), entry: { at: minute(30), type: 'AUTHORITY_OBSERVED', state: 'SHIPPED' }, view: { state: 'SHIPPED', lastObservedAt: minute(30) }, head: v2, eventKey: 'P#service-platform#event:x' };
    await records.write([{ reference: 'ORD-1', kind: 'OBJECT', after: part.after, entries: [entry] }]);
    const partition = async (pk: string) => (await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: pk } } }))).Items ?? [];
    const shape = (items: Record<string, AttributeValue>[]) => items.map((i) => i.sk.S!.replace(/\d{4}-.*Z/, 'AT'));
    // The entries and the genesis in the record's partition; its versions' heads in a partition of their own.
    const items = await partition('R#ORD-1');
    expect(shape(items)).toEqual(['#', 'T#AT#0000000', 'T#AT#0000001', 'T#AT#0000002', 'T#AT#0000003']);
    const heads = await partition('R#ORD-1#V');
    expect(shape(heads)).toEqual(['V#AT#0000000', 'V#AT#0000002']);
    expect(heads.map((i) => [i.version.N, JSON.parse(headTextOf(i)!)])).toEqual([['1', wholeRecord('ORD-1').entries[0].head], ['2', v2]]);
    const lean = items.find((i) => i.sk.S!.endsWith('0000003'))!;
    expect(Object.keys(lean).sort()).toEqual(['e', 'k', 'pk', 'sk', 'v', 'w']);
    // The entry's own instant, which its key holds, is one character in its text.
    expect(lean.e.S).toBe('{"at":\u0001,"type":"AUTHORITY_OBSERVED","state":"SHIPPED"}');
    expect(lean.w.S).toBe('{"state":"SHIPPED","lastObservedAt":\u0001}');
    // A key not of an event's form ("x" is no digest) is kept as its text.
    expect(lean.k.S).toBe('P#service-platform#event:x');
    const [read] = (await records.readTimelines([{ reference: 'ORD-1', from: minute(30) }])).get('ORD-1')!.entries;
    expect(read).toEqual({ ...entry, id: lean.sk.S });
  });

  test('an event that makes a version: its identity rides on the new head\'s item (no item of its own), and is read back from there, whole, from its instant and from after it', async () => {
    const client = ports.client();
    const table = 'ports-items-head-mark';
    await ensureTable(client, table);
    const { records } = tableStores(client, table);
    await records.write([wholeRecord('ORD-1')]);
    const part = (await records.readTimelines([{ reference: 'ORD-1', from: minute(20) }])).get('ORD-1')!;
    const v3 = { ...part.entries[0].head, version: 3, content: { ...part.entries[0].head.content, state: 'DELIVERED' } };
    const entry = { id: null, at: minute(30), entry: { at: minute(30), type: 'STATE_CHANGED', state: 'DELIVERED' }, view: { state: 'DELIVERED' }, head: v3, eventKey: 'P#service-platform#event:v3' };
    await records.write([{ reference: 'ORD-1', kind: 'OBJECT', after: part.after, entries: [entry] }]);
    const partition = async (pk: string) => (await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': { S: pk } } }))).Items ?? [];
    expect((await partition('R#ORD-1')).filter((i) => !i.sk.S!.startsWith('T#') && i.sk.S !== '#')).toEqual([]);
    const head = (await partition('R#ORD-1#V')).find((i) => i.sk.S!.startsWith('V#') && i.version.N === '3')!;
    expect(head.eventKey.S).toBe('P#service-platform#event:v3');
    const eventKeyAt = async (from: string | null) => {
      const timeline = (await records.readTimelines([{ reference: 'ORD-1', from }])).get('ORD-1')!;
      return [timeline.before, ...timeline.entries].find((e) => e?.head.version === 3)?.eventKey;
    };
    expect([await eventKeyAt(null), await eventKeyAt(minute(30)), await eventKeyAt(minute(40))]).toEqual(Array(3).fill('P#service-platform#event:v3'));
  });
});

describe.each(IMPLEMENTATIONS)('the pending store, %s', (_name, make) => {
  let stores: Stores;
  beforeEach(async () => (stores = await make()));

  test('an identity is claimed once: of concurrent claims exactly one stores, every other gets what it stored', async () => {
    const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => stores.pending.claim(newEvent(`copy-${i}`, { id: 'one-event' }))));
    const won = claims.filter((c) => c.claimed);
    expect(won).toHaveLength(1);
    const key = (won[0] as { key: string }).key;
    for (const c of claims.filter((c) => !c.claimed)) expect(c).toMatchObject({ claimed: false, stored: { key, contentSha256: 'content-one-event', sequencing: 'PENDING', status: 202 } });
    expect(await stores.pending.lookUp({ sourceId: 'service-platform', webhookId: 'copy-0' }, 'digest-one-event')).toMatchObject({ event: { key, sequencing: 'PENDING', sequencedAt: null, outcome: null } });
  });

  test('a delivery\'s answer is stored once; a note that it carried a stored event replaces a refusal of the same body, never another body\'s answer or an earlier note', async () => {
    const refusal = { sourceId: 'service-platform', webhookId: 'w-1', bodySha256: 'b-1', receivedAt: minute(0), status: 409, answer: { code: 'TRANSITION_FORBIDDEN' } };
    const refused = await Promise.all(Array.from({ length: 5 }, () => stores.pending.refuse(refusal)));
    expect(refused.filter((r) => r.stored)).toHaveLength(1);
    for (const r of refused.filter((r) => !r.stored)) expect(r).toEqual({ stored: false, earlier: { status: 409, answer: { code: 'TRANSITION_FORBIDDEN' }, bodySha256: 'b-1', eventKey: null } });
    const claim = await stores.pending.claim(newEvent('w-1', { id: 'e-1' }));
    const key = (claim as { key: string }).key;
    await stores.pending.noteDelivery({ ...refusal, status: 202, answer: { receipt: 1 } }, key);
    const looked = await stores.pending.lookUp({ sourceId: 'service-platform', webhookId: 'w-1' }, 'digest-e-1');
    expect(looked.delivery).toMatchObject({ status: 202, bodySha256: 'b-1', eventKey: key, event: { key } });
    // Another body under the same webhook-id, and a second note, change nothing.
    await stores.pending.noteDelivery({ ...refusal, bodySha256: 'b-2', status: 202, answer: { other: true } }, key);
    await stores.pending.noteDelivery({ ...refusal, status: 202, answer: { again: true } }, 'another-key');
    expect((await stores.pending.lookUp({ sourceId: 'service-platform', webhookId: 'w-1' }, 'digest-e-1')).delivery).toMatchObject({ answer: { receipt: 1 }, eventKey: key });
    expect(await stores.pending.lookUp({ sourceId: 'service-platform', webhookId: 'never' }, 'digest-never')).toEqual({ event: null, delivery: null });
  });

  test('claimNoted claims and notes together: of concurrent deliveries of one identity exactly one claims, and each delivery is noted naming that event', async () => {
    const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => stores.pending.claimNoted(newEvent(`together-${i}`, { id: 'noted-event', content: `content-${i % 2}` }), null)));
    const won = claims.filter((c) => c.claimed);
    expect(won).toHaveLength(1);
    const key = (won[0] as { key: string }).key;
    for (let i = 0; i < 6; i++) {
      const looked = await stores.pending.lookUp({ sourceId: 'service-platform', webhookId: `together-${i}` }, 'digest-noted-event');
      expect(looked.delivery).toMatchObject({ status: 202, bodySha256: `body-of-together-${i}`, eventKey: key, event: { key } });
    }
  });

  test('a note whose event is not stored is looked up with event null; claimNoted replaces it only when told it is unclaimed, whatever body it noted', async () => {
    const stopped = newEvent('w-stopped', { id: 'never-claimed' });
    const missing = 'P#service-platform#event:digest-never-claimed';
    await stores.pending.noteDelivery(stopped, missing);
    expect((await stores.pending.lookUp(stopped, 'digest-never-claimed')).delivery).toMatchObject({ status: 202, eventKey: missing, event: null });
    const other = { ...newEvent('w-stopped', { id: 'claimed-instead' }), bodySha256: 'another-body' };
    expect(await stores.pending.claimNoted(other, null)).toMatchObject({ claimed: true });
    expect((await stores.pending.lookUp(stopped, 'digest-claimed-instead')).delivery).toMatchObject({ bodySha256: 'body-of-w-stopped', eventKey: missing, event: null });
    const again = { ...newEvent('w-stopped', { id: 'claimed-last' }), bodySha256: 'another-body' };
    const claim = (await stores.pending.claimNoted(again, missing)) as { key: string };
    expect((await stores.pending.lookUp(stopped, 'digest-claimed-last')).delivery).toMatchObject({ bodySha256: 'another-body', eventKey: claim.key, event: { key: claim.key } });
    // Once it names a stored event, being told of another unclaimed key changes nothing.
    await stores.pending.claimNoted({ ...newEvent('w-stopped', { id: 'late' }), bodySha256: 'a-third-body' }, missing);
    expect((await stores.pending.lookUp(stopped, 'digest-claimed-last')).delivery).toMatchObject({ bodySha256: 'another-body', eventKey: claim.key });
  });

  test('what waits is listed oldest received first, read strongly consistent, and once settled listed no more; settling again changes nothing', async () => {
    const keys: string[] = [];
    for (const [i, receivedAt] of [minute(3), minute(1), minute(2)].entries()) keys.push((await stores.pending.claim(newEvent(`wait-${i}`, { receivedAt }))) as never);
    const [k3, k1, k2] = keys.map((k) => (k as unknown as { key: string }).key);
    expect(await stores.pending.listWaiting(10)).toEqual([k1, k2, k3]);
    expect(await stores.pending.listWaiting(2)).toEqual([k1, k2]);
    expect(await stores.pending.oldestWaitingSince()).toBe(minute(1));
    const waiting = await stores.pending.readEvents([k1, k2, 'P#service-platform#event:absent']);
    expect(waiting.map((e) => [e.key, e.sequencing, e.webhookId])).toEqual([[k1, 'PENDING', 'wait-1'], [k2, 'PENDING', 'wait-2']]);
    expect(waiting[0]).toEqual({ ...newEvent('wait-1', { receivedAt: minute(1), id: waiting[0].identity.id }), key: k1, sequencing: 'PENDING' });
    const settlements = [
      { event: waiting[0], outcome: { sequenced: true as const, version: 4 }, at: minute(5) },
      { event: waiting[1], outcome: { sequenced: false as const, reason: 'before the object\'s first state' }, at: minute(5) },
    ];
    await stores.pending.settle(settlements);
    await stores.pending.settle(settlements);
    expect(await stores.pending.listWaiting(10)).toEqual([k3]);
    // The integrated one is no longer read as one to integrate; the one set aside still is.
    expect((await stores.pending.readEvents([k1, k2])).map((e) => [e.key, e.sequencing])).toEqual([[k2, 'SET_ASIDE']]);
    const settled = await stores.pending.lookUp({ sourceId: 'service-platform', webhookId: 'x' }, waiting[0].identity.digest);
    expect(settled.event).toMatchObject({ key: k1, sequencing: 'SEQUENCED', sequencedAt: minute(5), outcome: { sequenced: true, version: 4 } });
    // What is kept of it for good still answers as its first delivery was, and tells a replay from a reused id.
    expect(settled.event).toMatchObject({ status: waiting[0].status, answer: waiting[0].answer, contentSha256: waiting[0].identity.contentSha256 });
    await stores.pending.settle([{ event: (await stores.pending.readEvents([k3]))[0], outcome: { sequenced: true, version: null }, at: minute(6) }]);
    expect([await stores.pending.listWaiting(10), await stores.pending.oldestWaitingSince()]).toEqual([[], null]);
  });

  test('a hundred events waiting, eleven of them in one shard of the table\'s index: a batch of 100 lists them all', async () => {
    const shardOf = (id: string) => pendingQueue(eventPk('service-platform', newEvent('x', { id }).identity.digest));
    const crowded = shardOf('crowd-0');
    const perShard = new Map<string, number>();
    const ids: string[] = [];
    // Eleven in one shard, the other 89 at most three a shard: what events hashed unevenly put in a batch.
    for (let i = 0; ids.length < 100; i++) {
      const id = `crowd-${i}`;
      const shard = shardOf(id);
      const count = perShard.get(shard) ?? 0;
      if (shard === crowded ? count < 11 : count < 3 && ids.length - (perShard.get(crowded) ?? 0) < 89) {
        perShard.set(shard, count + 1);
        ids.push(id);
      }
    }
    expect(perShard.get(crowded)).toBe(11);
    const keys = await Promise.all(ids.map(async (id, i) => ((await stores.pending.claim(newEvent(`crowd-${i}`, { id, receivedAt: minute(i % 50) }))) as { key: string }).key));
    expect((await stores.pending.listWaiting(100)).sort()).toEqual(keys.sort());
  });
});

/** The batch the journal tests' parts belong to: their leaves from 3 of a tree of 9, signed with this note. */
const PART_NOTE = 'ledger.example/test\n9\nroot\n\n— ledger.example/test signature\n';
const placedInPart = (ordinal: number, version: number) => ({ format: 'svc.ledger-evidence.v1', version, leafIndex: 3 + ordinal, treeSize: 9, checkpoint: PART_NOTE });
/** A whole record whose versions' evidence is `evidence(ordinal, version)`: to come (evidenceToCome), or placed (placedInPart). */
function inPart(reference: string, evidence: (ordinal: number, version: number) => unknown): RecordChange {
  const change = wholeRecord(reference);
  change.entries.forEach((entry, i) => ((entry.head as { evidence: unknown }).evidence = evidence(i, (entry.head as { version: number }).version)));
  return change;
}
/** A record's heads as its timeline reads them, its reference made the same for every record. */
const headsOf = async (stores: Stores, reference: string) => (await stores.records.readTimelines([{ reference, from: null }])).get(reference)!.entries.map((e) => JSON.stringify(e.head).replaceAll(reference, 'REF'));

describe.each(IMPLEMENTATIONS)('the ledger\'s head, leaves and journal, %s', (_name, make) => {
  let stores: Stores;
  beforeEach(async () => (stores = await make()));
  const lease = (at: string, leaseMs = 60_000, more = {}) => ({ at, leaseMs, ...more });

  test('one lease at a time: taken on an empty store, refused while held, taken when it ran out, taken over from a named holder or by force; released only by its holder; every taking counted, no refusal', async () => {
    const { lock } = stores.ledger;
    expect(await lock.read()).toBeNull();
    expect(await lock.acquire('one', lease('2026-11-01T12:00:00.000Z'))).toEqual({ origin: null, treeSize: 0, checkpoint: null, updatedAt: null, lock: { id: 'one', since: '2026-11-01T12:00:00.000Z', until: '2026-11-01T12:01:00.000Z' }, leasesTaken: 1 });
    const refused = await lock.acquire('two', lease('2026-11-01T12:00:59.999Z')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LedgerLockedError);
    expect(refused).toMatchObject({ holder: 'one', since: '2026-11-01T12:00:00.000Z', until: '2026-11-01T12:01:00.000Z' });
    await lock.release('two');
    expect((await lock.read())!.lock?.id).toBe('one');
    expect(await lock.acquire('two', lease('2026-11-01T12:01:00.001Z'))).toMatchObject({ lock: { id: 'two' }, leasesTaken: 2 });
    await expect(lock.acquire('three', lease('2026-11-01T12:01:00.002Z', 60_000, { replacing: 'one' }))).rejects.toThrow(LedgerLockedError);
    expect(await lock.acquire('three', lease('2026-11-01T12:01:00.002Z', 60_000, { replacing: 'two' }))).toMatchObject({ lock: { id: 'three' }, leasesTaken: 3 });
    expect(await lock.acquire('four', lease('2026-11-01T12:01:00.003Z', 60_000, { force: true }))).toMatchObject({ lock: { id: 'four' }, leasesTaken: 4 });
    await lock.release('four');
    // Released, the count stays: the next writer's lease is the fifth.
    expect(await lock.read()).toMatchObject({ lock: null, leasesTaken: 4 });
  });

  test('publish: only the lease\'s holder publishes a head, which keeps the lease until released; the read path sees it', async () => {
    const { lock, published } = stores.ledger;
    expect(await published.head()).toBeNull();
    await lock.acquire('writer', lease(new Date().toISOString()));
    await lock.publish('writer', { origin: 'o', treeSize: 3, checkpoint: 'note-3', at: minute(0) });
    expect(await lock.read()).toMatchObject({ origin: 'o', treeSize: 3, checkpoint: 'note-3', updatedAt: minute(0), lock: { id: 'writer' } });
    await expect(lock.publish('somebody-else', { origin: 'o', treeSize: 4, checkpoint: 'note-4', at: minute(1) })).rejects.toThrow(LeaseLostError);
    await lock.release('writer');
    expect(await published.head()).toMatchObject({ origin: 'o', treeSize: 3, checkpoint: 'note-3', lock: null });
  });

  test('leaves and hash tiles: stored, read back in order a page at a time, a missing one refused; the edge tiles and the read path\'s tiles by name', async () => {
    const { leaves, published } = stores.ledger;
    const leaf = (index: number) => ({ index, leafHash: Buffer.alloc(32, index), reference: `R-${index}`, version: 1 });
    // The leaves are the level-0 tile's hashes: what a writer reads them from.
    const level0 = (count: number) => Buffer.concat(Array.from({ length: count }, (_, i) => leaf(i).leafHash));
    await leaves.write([leaf(0), leaf(1), leaf(2)], [{ level: 0, index: 0, hashes: level0(3) }]);
    const read: number[] = [];
    await leaves.forEachLeaf(3, (hash, index) => void read.push(hash[0] * 10 + index));
    expect(read).toEqual([0, 11, 22]);
    const from1: number[] = [];
    await leaves.forEachLeaf(3, (_hash, index) => void from1.push(index), undefined, 1);
    expect(from1).toEqual([1, 2]);
    await expect(leaves.forEachLeaf(4, () => undefined)).rejects.toThrow(/missing leaf 3|says 4 leaves/);
    // A partial tile grows in place.
    await leaves.write([leaf(3)], [{ level: 0, index: 0, hashes: Buffer.alloc(128, 8) }]);
    const edge = await leaves.readEdgeTiles([{ level: 0, index: 0 }, { level: 1, index: 0 }]);
    expect([...edge.keys()]).toEqual([0]);
    expect(Buffer.from(edge.get(0)!)).toEqual(Buffer.alloc(128, 8));
    const { tiles } = await published.headWithTiles([{ level: 0, index: 0 }, { level: 2, index: 5 }]);
    expect([...tiles.keys()]).toEqual([tileName({ level: 0, index: 0 })]);
  });

  test("the journal: a new version's evidence naming the checkpoint to come is written with the checkpoint the batch published, the same as the batch writes it itself", async () => {
    const { journal } = stores.ledger;
    const note = 'ledger.example/test\n7\nroot\n\n— ledger.example/test signature\n';
    const signedLater = (reference: string, checkpoint: string): RecordChange => {
      const change = wholeRecord(reference);
      for (const entry of change.entries) {
        const head = entry.head as { version: number; evidence: unknown };
        head.evidence = { format: 'svc.ledger-evidence.v1', version: head.version, leafIndex: head.version, treeSize: 7, checkpoint };
      }
      return change;
    };
    await journal.write(7, { records: [signedLater('ORD-10', CHECKPOINT_TO_COME)], settlements: [] });
    await journal.finish(7, note);
    await stores.records.write([signedLater('ORD-11', note)]);
    expect(await headsOf(stores, 'ORD-10')).toEqual(await headsOf(stores, 'ORD-11'));
    expect((await headsOf(stores, 'ORD-10')).every((head) => head.includes(JSON.stringify(note)))).toBe(true);
  });

  test('a part of a batch (its evidence to come) as journal chunks: written with its evidence placed, as the part writer writes it, or finished from the journal through a placer; both the same as a change written with that evidence', async () => {
    const { journal } = stores.ledger;
    const claim = (await stores.pending.claim(newEvent('in-a-part'))) as { key: string };
    const [event] = await stores.pending.readEvents([claim.key]);
    // Made where the part is planned; written where it is written, its evidence placed.
    const chunks = journal.chunksOf({ records: [inPart('ORD-20', evidenceToCome)], settlements: [{ event, outcome: { sequenced: true, version: 1 }, at: minute(9) }] });
    expect(chunks.length).toBeGreaterThan(0);
    await journal.writeChunks(chunks, placedInPart);
    // Journaled as a part whose leaves start at 3, and finished by a writer that places them (the same evidence).
    await journal.write(9, { records: [], settlements: [] }, [{ start: 3, leaves: 3, chunks: journal.chunksOf({ records: [inPart('ORD-21', evidenceToCome)], settlements: [] }) }]);
    await expect(journal.finish(9, PART_NOTE)).rejects.toThrow(/no placer/);
    expect(await journal.unfinished()).toBe(true);
    const asked: Array<[number, number]> = [];
    expect(await journal.finish(9, PART_NOTE, async (from, to) => (asked.push([from, to]), (leafIndex, version) => placedInPart(leafIndex - 3, version)))).toBe(true);
    expect([asked, await journal.unfinished()]).toEqual([[[3, 6]], false]);
    await stores.records.write([inPart('ORD-22', placedInPart)]);
    expect(await headsOf(stores, 'ORD-20')).toEqual(await headsOf(stores, 'ORD-22'));
    expect(await headsOf(stores, 'ORD-21')).toEqual(await headsOf(stores, 'ORD-22'));
    expect((await stores.pending.lookUp({ sourceId: event.sourceId, webhookId: event.webhookId }, event.identity.digest)).event?.sequencing).toBe('SEQUENCED');
    // A head whose evidence is still to come is never stored.
    await expect(stores.records.write([inPart('ORD-23', evidenceToCome)])).rejects.toThrow(/place in the log/);
  });

  test("a part's chunks stored by the part itself: read back whole by their name, named by the journal and finished from the store; a name of another form refused, a missing chunk said", async () => {
    const { journal } = stores.ledger;
    const chunks = journal.chunksOf({ records: [inPart('ORD-40', evidenceToCome)], settlements: [] });
    const stored = await journal.storeChunks('batch-7f3a-0', chunks);
    expect(stored).toEqual({ name: 'batch-7f3a-0', count: chunks.length });
    expect((await journal.readChunks(stored)).map((c) => Buffer.from(c).toString('hex'))).toEqual(chunks.map((c) => Buffer.from(c).toString('hex')));
    await expect(journal.readChunks({ name: 'batch-none-0', count: 1 })).rejects.toThrow(/missing/);
    await expect(journal.storeChunks('L#LOG', chunks)).rejects.toThrow(TypeError);
    // Journaled by name (the chunks stay where the part stored them), finished by a writer that places the part's leaves.
    await journal.write(9, { records: [], settlements: [] }, [{ start: 3, leaves: 3, chunks: [], stored }]);
    expect(await journal.unfinished()).toBe(true);
    expect(await journal.finish(9, PART_NOTE, async () => (leafIndex, version) => placedInPart(leafIndex - 3, version))).toBe(true);
    expect(await journal.unfinished()).toBe(false);
    // The same as the record written with that evidence placed.
    await stores.records.write([inPart('ORD-41', placedInPart)]);
    expect(await headsOf(stores, 'ORD-40')).toEqual(await headsOf(stores, 'ORD-41'));
  });

  test('the journal: what a batch writes after its head, finished through the record and pending stores it was written for, then done; another size, or done, changes nothing', async () => {
    const { journal } = stores.ledger;
    expect(await journal.unfinished()).toBe(false);
    const claim = (await stores.pending.claim(newEvent('journaled'))) as { key: string };
    const [event] = await stores.pending.readEvents([claim.key]);
    await journal.write(7, { records: [wholeRecord('ORD-9')], settlements: [{ event, outcome: { sequenced: true, version: 1 }, at: minute(9) }], schema: true });
    expect(await journal.unfinished()).toBe(true);
    await journal.finish(6, null);
    expect(await journal.unfinished()).toBe(true);
    expect((await stores.records.readWindow('ORD-9', minute(59), 5)).exists).toBe(false);
    await journal.finish(7, null);
    expect(await journal.unfinished()).toBe(false);
    expect((await stores.records.readWindow('ORD-9', minute(59), 5)).entries).toHaveLength(3);
    expect((await stores.records.readGeneses(['ORD-9'])).get('ORD-9')).toMatchObject({ loadDigest: 'digest-1' });
    expect(await stores.pending.readEvents([claim.key])).toEqual([]);
    expect((await stores.pending.lookUp({ sourceId: event.sourceId, webhookId: event.webhookId }, event.identity.digest)).event?.sequencing).toBe('SEQUENCED');
    await journal.write(8, { records: [], settlements: [] });
    // Marking another size done (a writer late to mark its own) leaves a newer batch's journal unfinished.
    await journal.markDone(7);
    expect(await journal.unfinished()).toBe(true);
    await journal.markDone(8);
    expect(await journal.unfinished()).toBe(false);
  });
});

describe('the journal in the table', () => {
  test("a part's chunk that holds an item a part writer's role may not write (the log's head) is refused when the journal is finished: nothing of it is written, the journal stays unfinished", async () => {
    const table = 'ports-forged-part';
    await ensureTable(ports.client(), table);
    const stores = tableStores(ports.client(), table);
    const journal = dynamoJournal(ports.client(), table);
    const honest = journal.chunksOf({ records: [wholeRecord('ORD-30')], settlements: [] });
    const forged = gzipSync(JSON.stringify([{ pk: { S: 'L#LOG' }, sk: { S: '#' }, treeSize: { N: '1000000' } }]));
    await journal.write(9, { records: [], settlements: [] }, [{ start: 3, leaves: 3, chunks: [...honest, forged] }]);
    const placer = async () => () => ({ format: 'svc.ledger-evidence.v1' });
    await expect(journal.finish(9, 'note', placer)).rejects.toThrow(/of a part holds an item a part writer may not write \(key "L#LOG"\)/);
    expect(await journal.unfinished()).toBe(true);
    expect((await ports.client().send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'L#LOG' }, sk: { S: '#' } } }))).Item).toBeUndefined();
    expect((await stores.records.readGeneses(['ORD-30'])).size).toBe(0);
    // The same from chunks the part stored itself.
    const stored = await journal.storeChunks('forged-0', [...honest, forged]);
    await journal.write(10, { records: [], settlements: [] }, [{ start: 3, leaves: 3, chunks: [], stored }]);
    await expect(journal.finish(10, 'note', placer)).rejects.toThrow(/J#forged-0#000001 of a part holds an item a part writer may not write \(key "L#LOG"\)/);
    expect((await stores.records.readGeneses(['ORD-30'])).size).toBe(0);
  });

  test("a done batch's chunks are removed while the next batch's journal is written, those its parts stored among them, even when that batch publishes the same size", async () => {
    const table = 'ports-chunks-removed';
    await ensureTable(ports.client(), table);
    const journal = dynamoJournal(ports.client(), table);
    const chunkKeys = async () => (await scanTable(ports.client(), table)).map((item) => item.pk.S!).filter((pk) => pk.startsWith('J#') || pk.startsWith('L#J#')).sort();
    const part = (name: string) => journal.storeChunks(name, journal.chunksOf({ records: [wholeRecord('ORD-31')], settlements: [] }));
    await journal.write(5, { records: [wholeRecord('ORD-32')], settlements: [] }, [{ start: 3, leaves: 0, chunks: [], stored: await part('first-0') }]);
    await journal.markDone(5);
    expect(await chunkKeys()).toEqual(['J#first-0#000000', 'L#J#000000000005#000000']);
    // Nothing appended (the same size): its own chunk is written again under the same key, the part's before it removed.
    await journal.write(5, { records: [wholeRecord('ORD-33')], settlements: [] }, [{ start: 5, leaves: 0, chunks: [], stored: await part('second-0') }]);
    await journal.markDone(5);
    expect(await chunkKeys()).toEqual(['J#second-0#000000', 'L#J#000000000005#000000']);
    await journal.write(8, { records: [], settlements: [] }, [{ start: 5, leaves: 0, chunks: [], stored: await part('third-0') }]);
    expect(await chunkKeys()).toEqual(['J#third-0#000000']);
  });
});

describe('the tile store', () => {
  let dir: string;
  let s3Server: { close(): Promise<void> };
  let s3: S3Client;
  const BUCKET = 'ports-test';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'store-ports-'));
    const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: BUCKET }] });
    const { port } = await server.run();
    s3Server = server;
    s3 = new S3Client({ endpoint: `http://127.0.0.1:${port}`, region: 'eu-central-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  });
  afterAll(async () => {
    s3?.destroy();
    await s3Server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const stores: [string, () => TileStore][] = [
    ['in memory', () => memoryTileStore()],
    ['a folder', () => directoryTileStore(path.join(dir, `tiles-${Math.random()}`))],
    ['an S3 bucket (s3rver)', () => bucketTileStore(s3, BUCKET, `ledger-${Math.random()}/`)],
  ];

  test.each(stores)('%s: a resource reads back as written, a later write replaces it whole, an absent one is null', async (_name, make) => {
    const tiles = make();
    expect(await tiles.read('tile/0/000')).toBeNull();
    await tiles.write({ path: 'tile/0/000', bytes: Buffer.alloc(8192, 1), immutable: true });
    await tiles.write({ path: 'checkpoint', bytes: Buffer.from('first\n'), immutable: false });
    await tiles.write({ path: 'checkpoint', bytes: Buffer.from('second, longer\n'), immutable: false });
    expect(await tiles.read('tile/0/000')).toEqual(Buffer.alloc(8192, 1));
    expect((await tiles.read('checkpoint'))!.toString()).toBe('second, longer\n');
  });

  test('in a bucket each resource carries the headers it is served with (the API passes them through)', async () => {
    const tiles = bucketTileStore(s3, BUCKET, 'headers/');
    await tiles.write({ path: 'tile/0/000', bytes: Buffer.alloc(32, 2), immutable: true });
    await tiles.write({ path: 'checkpoint', bytes: Buffer.from('note\n'), immutable: false });
    const tile = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'headers/tile/0/000' }));
    const checkpoint = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'headers/checkpoint' }));
    expect([tile.ContentType, tile.CacheControl]).toEqual(['application/octet-stream', 'public, max-age=31536000, immutable']);
    expect(checkpoint.ContentType).toBe('text/plain; charset=utf-8');
    expect(memoryTileStore().location).toBe('memory');
  });
});

describe('the checkpoint signer', () => {
  let kms: KmsStandIn;
  beforeAll(async () => (kms = await startKmsStandIn()));
  afterAll(() => kms?.close());
  const ORIGIN = 'store-ports.test/ledger';

  const signers: [string, () => Promise<CheckpointSigner>][] = [
    ['a key file (the development key, and tests)', async () => signerFromKey(formatSignerKey(ORIGIN, Buffer.alloc(32, 41)))],
    ['an AWS KMS key (the stand-in)', () => kmsCheckpointSigner({ keyId: kms.keyId, origin: ORIGIN, client: new KMSClient({ endpoint: kms.endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }) })],
  ];

  test.each(signers)('%s: named by the log\'s origin, its notes verify with its verifier key, the same text gives the same note (Ed25519 is deterministic)', async (_name, make) => {
    const signer = await make();
    expect(signer.name).toBe(ORIGIN);
    expect(signer.verifierKey.startsWith(`${ORIGIN}+`)).toBe(true);
    const text = `${ORIGIN}\n5\n${Buffer.alloc(32, 3).toString('base64')}\n`;
    const note = await signer.signNoteAsync(text);
    expect(note.startsWith(`${text}\n`)).toBe(true);
    expect(verifyNote(note, [parseVerifierKey(signer.verifierKey)])).toMatchObject({ ok: true });
    expect(await signer.signNoteAsync(text)).toBe(note);
    await expect(signer.signNoteAsync('no final newline')).rejects.toThrow();
  });
});
