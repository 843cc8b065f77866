import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { demoDocument } from '../../fixtures/demo';
import { parseVerifierKey } from '#verify/index';
import { checkHandover } from '#verify/node/handover';
import { runMonitor } from '#verify/node/monitor';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { dynamoPublishedLedger } from '../../functions/store/dynamodb/ledger-head';
import { ensureTable } from '../../functions/store/write';
import { rotateLedger, type RotateOptions } from '../../lib/ledger/rotate';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { localClient } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';

/**
 * A handover needs both keys' consent; each way of forging one is refused by the check the monitor
 * runs across it (packages/verify/src/node/handover.ts), naming why. The genuine one passes.
 */
const OLD = signerFromKey(generateSignerKey('verify.example.org/ledger'));
const NEW = signerFromKey(generateSignerKey('verify.example.org/ledger/2'));
const STRANGER_OLD = signerFromKey(generateSignerKey('verify.example.org/ledger'));
const OTHER_NEW = signerFromKey(generateSignerKey('verify.example.org/ledger/2'));

let dir: string;
let store: EmbeddedStore;
let client: DynamoDBClient;
let tables = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'handover-'));
  store = await startEmbeddedStore();
  client = localClient(store.endpoint);
});
afterAll(async () => {
  client?.destroy();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

type Forge = Pick<RotateOptions, 'successionEntry' | 'handoverEntry'>;

async function handoverAfter(forge: Forge, newSigner = NEW) {
  const table = `forged-${tables++}`;
  const tilesDir = path.join(dir, table);
  const tiles = directoryTileStore(tilesDir);
  await ensureTable(client, table);
  await loadDocument(demoDocument(new Date('2026-11-21T10:00:00Z')), { client, table, signer: OLD, tiles });
  const out = await rotateLedger({ client, table, oldSigner: OLD, newSigner, tiles, ...forge });
  const leaves: Buffer[] = [];
  const oldKeys = [await parseVerifierKey(OLD.verifierKey)];
  const old = await runMonitor({ fetch: (p) => tiles.read(p), logKeys: oldKeys, state: null, leaves: [], onLeaves: (added) => void leaves.push(...added) });
  expect(old.ok).toBe(true);
  const head = await dynamoPublishedLedger(client, table).head();
  return checkHandover({
    oldFetch: (p) => tiles.read(p),
    newFetch: (p) => tiles.read(`${out.current.tilesDir}${p}`),
    oldState: old.state!,
    oldLeaves: leaves,
    oldKeys,
    newOrigin: NEW.name,
    newSize: head!.treeSize,
  });
}

test('the genuine handover passes, and names the key the old log handed over to', async () => {
  const check = await handoverAfter({});
  expect(check).toMatchObject({ ok: true, successorKey: { encoded: NEW.verifierKey } });
}, 60_000);

test.each<[string, Forge, RegExp, typeof NEW | null]>([
  [
    'a first entry binding a checkpoint the old key did not sign',
    { handoverEntry: (g) => ({ ...g, predecessor: { ...g.predecessor, checkpoint: STRANGER_OLD.signNote(`${g.predecessor.checkpoint.split('\n\n')[0]}\n`) } }) },
    /the handover binds a checkpoint the old key did not sign/,
    null,
  ],
  [
    "a first entry binding an earlier checkpoint than the old log's final one",
    { handoverEntry: (g) => ({ ...g, predecessor: { ...g.predecessor, checkpoint: OLD.signNote(`${OLD.name}\n1\n${g.predecessor.rootHash}\n`) } }) },
    /the handover binds verify.example.org\/ledger at size 1, not the old log's final checkpoint/,
    null,
  ],
  ['an old log that never named a successor (no consent of the old key)', { successionEntry: () => ({ title: 'an ordinary entry' }) }, /did not consent: its last entry is no succession \(it is a record version/, null],
  [
    'a new log under another key than the one the old log named',
    {},
    /the new log's first entry names verify.example.org\/ledger\/2 with another key than the one the old log handed over to/,
    OTHER_NEW,
  ],
  ['a first entry that is no handover', { handoverEntry: () => ({ title: 'an ordinary entry' }) }, /the new log's first entry is no handover/, null],
])('%s is refused, naming why', async (_what, forge, why, signer) => {
  // The last case: the old log names NEW, but the log begun is OTHER_NEW's (whose handover names OTHER_NEW's key).
  const check = await handoverAfter(signer ? { successionEntry: (g) => ({ ...g, successor: { ...g.successor, verifierKey: NEW.verifierKey } }), ...forge } : forge, signer ?? NEW);
  expect(check.ok).toBe(false);
  expect(check.ok ? '' : check.reason).toMatch(why);
}, 60_000);

describe('a key change stopped part-way', () => {
  async function fresh() {
    const table = `stopped-${tables++}`;
    const tiles = directoryTileStore(path.join(dir, table));
    await ensureTable(client, table);
    await loadDocument(demoDocument(new Date('2026-11-21T10:00:00Z')), { client, table, signer: OLD, tiles });
    return { table, tiles };
  }

  test('stopped after the old log\'s succession entry: run again, it begins the new log on that same final checkpoint', async () => {
    const { table, tiles } = await fresh();
    await expect(rotateLedger({ client, table, oldSigner: OLD, newSigner: NEW, tiles, handoverEntry: () => { throw new Error('stopped'); } })).rejects.toThrow('stopped');
    const stopped = await dynamoPublishedLedger(client, table).head();
    const out = await rotateLedger({ client, table, oldSigner: OLD, newSigner: NEW, tiles });
    expect(out.retired.treeSize).toBe(stopped!.treeSize);
    expect(out.retired.checkpoint).toBe(stopped!.checkpoint);
    expect(out.current.treeSize).toBe(1);
  }, 60_000);

  test('stopped after the new log began, before the old one named it: run again, it only retires the old log', async () => {
    const { table, tiles } = await fresh();
    const first = await rotateLedger({ client, table, oldSigner: OLD, newSigner: NEW, tiles });
    // As if the last step had not happened: the first log's head names no successor.
    await client.send(new UpdateItemCommand({ TableName: table, Key: { pk: { S: 'L#LOG' }, sk: { S: '#' } }, UpdateExpression: 'REMOVE successor, successorOrigin' }));
    const again = await rotateLedger({ client, table, oldSigner: OLD, newSigner: NEW, tiles });
    expect(again).toEqual(first);
    expect((await dynamoPublishedLedger(client, table).head())?.origin).toBe(NEW.name);
  }, 60_000);
});
