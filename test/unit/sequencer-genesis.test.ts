import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { formatSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { memoryTileStore } from '../../functions/ledger-writer/tile-store';
import { memoryStores } from '../../functions/store/memory';
import type { RecordChange, RecordWriteOptions } from '../../functions/store/ports/records';
import { buildEvent } from '../../lib/ingress/emit';
import { loadDocument } from '../../lib/loader/load';
import { claimAccepted, wholeRecord } from '../support/stores';

/**
 * A record's genesis item (its highest version, that events changed it, the events set aside for
 * it) is written whenever a batch writes the record's timeline: besides what it says, the table
 * keeps there where the record's newest items are, which a sequencer reads by key instead of
 * searching the record (functions/store/dynamodb/records.ts). An observation makes no version, so
 * what its genesis says is what it said (docs/capacity.md#today's-figures).
 */
const ANCHOR = new Date('2026-11-20T12:00:00.000Z');
const signer = signerFromKey(formatSignerKey('sequencer-genesis.test/ledger', Buffer.alloc(32, 21)));
const OBJECT = DEMO_OBJECTS.current;
const iso = (minutes: number) => new Date(ANCHOR.getTime() + minutes * 60_000).toISOString();

test('every batch that writes a record\'s timeline writes its genesis: an observation the highest version as it was, a change the new one', async () => {
  const stores = memoryStores();
  const tiles = memoryTileStore();
  const document = demoDocument(ANCHOR);
  document.records = (document.records as Array<{ reference: string }>).filter((r) => r.reference === OBJECT);
  await loadDocument(document, { stores, signer, tiles });
  const written: RecordChange[][] = [];
  const write = stores.records.write.bind(stores.records);
  stores.records.write = async (changes: readonly RecordChange[], options?: RecordWriteOptions) => {
    if (options?.part !== 'geneses') written.push(changes.filter((c) => c.reference === OBJECT));
    return write(changes, options);
  };
  const send = async (n: number, type: string, fields: Record<string, string>) => {
    const raw = JSON.stringify(buildEvent(type, OBJECT, fields, iso(10 + n), `genesis-${n}`));
    await claimAccepted(stores.pending, { webhookId: `genesis-${n}`, raw, receivedAt: iso(30 + n) });
    written.length = 0;
    const [run] = await sequenceAll({ ...stores, tiles, signer });
    expect(run.sequenced).toBe(1);
    // The entries and the genesis may go in writes of their own (the genesis after the entries).
    const changes = written.flat();
    return [{ entries: changes.flatMap((c) => c.entries), genesis: changes.find((c) => c.genesis)?.genesis }];
  };

  // The first observation: the record was only loaded, now events changed it.
  const [first] = await send(1, 'svc.living-object.authority-observed.v1', { state: 'DELIVERED' });
  expect([first.entries.length, first.genesis?.events]).toEqual([1, { setAside: [] }]);
  // Another: an entry, and the genesis saying what it said.
  const [second] = await send(2, 'svc.living-object.authority-observed.v1', { state: 'DELIVERED' });
  expect([second.entries.length, second.genesis]).toEqual([1, first.genesis]);
  // A change: a new version, so a new highest version.
  const before = (await stores.records.readGeneses([OBJECT])).get(OBJECT)!;
  const [change] = await send(3, 'svc.living-object.state-changed.v1', { previousState: 'DELIVERED', state: 'RETURNED' });
  expect(change.genesis?.highestVersion).toBe(before.highestVersion! + 1);
  const after = (await stores.records.readGeneses([OBJECT])).get(OBJECT)!;
  expect(after).toMatchObject({ highestVersion: before.highestVersion! + 1, changedByEvents: true, setAside: [] });
  expect((await wholeRecord(stores.records, OBJECT))!.filter((e) => e.eventKey !== null)).toHaveLength(3);
});
