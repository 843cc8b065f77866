import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { startLocalSequencer } from '../../lib/local/sequencer-loop';
import { sequenceAll } from '../../functions/ledger-writer/sequencer';
import { LogCache } from '../../functions/ledger-writer/held-ledger';
import { tableStores } from '../../functions/store/dynamodb';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { localClient, LOCAL_TABLE, type LocalService } from '../../lib/local/service';
import { emit, OBSERVED, SNAPSHOT, STATE_CHANGED } from '../support/ingress';
import { getJson, startTestService } from '../support/local';

/**
 * 1,000 signed deliveries through the local service's receivers, then the sequencer (the module
 * `npm start` runs) integrates them all; every affected response, current and as of instants in
 * between, verifies, and `npm run verify` confirms each current one offline with the pinned key.
 */
const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const GOOD_STANDING = ['PLACED', 'CONFIRMED', 'FULFILLED', 'SHIPPED', 'DELIVERED', 'IN_SERVICE', 'ACTIVE', 'VALID'];
const CHANGED = [DEMO_OBJECTS.current, DEMO_OBJECTS.stale, DEMO_OBJECTS.modified];
const CHANGES_EACH = 300;
const OBSERVATIONS = 50;
const SNAPSHOTS = 50;

let service: LocalService;
let dir: string;
beforeAll(async () => {
  // The receivers check every delivery against the records as loaded; the sequencer starts after.
  service = await startTestService(new Date(), { sequencer: false });
  dir = await mkdtemp(path.join(os.tmpdir(), 'thousand-'));
});
afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

const get = async (p: string) => (await getJson(`${service.url}${p}`)).body;

/**
 * How many stored events are in each sequencing state, and how many deliveries carried one (a Scan:
 * fine for a test table). Each event is stored once under its identity; each delivery notes it.
 */
async function deliveryStates(): Promise<Record<string, number>> {
  const client = localClient(service.storeEndpoint);
  const counts: Record<string, number> = {};
  let start: Record<string, any> | undefined;
  try {
    do {
      const out = await client.send(new ScanCommand({ TableName: LOCAL_TABLE, FilterExpression: 'begins_with(pk, :p)', ExpressionAttributeValues: { ':p': { S: 'P#' } }, ExclusiveStartKey: start }));
      for (const item of out.Items ?? []) {
        // An event's item (its key names its identity: layout.ts eventPk), or a delivery's note pointing to one.
        const state = item.pk!.S!.includes('#event:') ? item.sequencing!.S! : item.eventKey ? 'DELIVERY' : `other (${item.sequencing?.S})`;
        counts[state] = (counts[state] ?? 0) + 1;
      }
      start = out.LastEvaluatedKey;
    } while (start);
  } finally {
    client.destroy();
  }
  return counts;
}

test('1,000 events: all accepted, all integrated in order, every affected response verifies (npm run verify too)', async () => {
  // Instants in the last minute: newer than every demo entry (the newest is 5 minutes old) and already past, so current reads show them.
  const base = Date.now() - 60_000;
  const instant = (i: number) => new Date(base + i * 20).toISOString();
  const sends: Array<() => ReturnType<typeof emit>> = [];
  const expected = new Map<string, { state: string; type: string }>();
  for (const reference of CHANGED) {
    const loaded = await get(`/v1/objects/${reference}`);
    // A cycle of good-standing states without the loaded one: each change differs from the state before it, and from the one the receiver checks against.
    const cycle = GOOD_STANDING.filter((s) => s !== loaded.current.state);
    for (let i = 0; i < CHANGES_EACH; i++) {
      const state = cycle[i % cycle.length];
      const at = instant(i * 4 + CHANGED.indexOf(reference));
      sends.push(() => emit(service.url, STATE_CHANGED, reference, { objectType: loaded.object.objectType, previousState: loaded.current.state, state }, { at }));
    }
    expected.set(reference, { state: cycle[(CHANGES_EACH - 1) % cycle.length], type: loaded.object.objectType });
  }
  const observedRef = DEMO_OBJECTS.longHistory;
  const observed = await get(`/v1/objects/${observedRef}`);
  for (let i = 0; i < OBSERVATIONS; i++) {
    sends.push(() => emit(service.url, OBSERVED, observedRef, { objectType: observed.object.objectType, state: observed.current.state }, { at: instant(i * 4 + 3) }));
  }
  for (let i = 0; i < SNAPSHOTS; i++) sends.push(() => emit(service.url, SNAPSHOT, DEMO_PROOFS.current, { sourceState: i % 2 ? 'DELIVERED' : 'SHIPPED' }, { at: instant(i * 4 + 3) }));
  expect(sends).toHaveLength(1000);

  // Sent eight at a time, in an order that is not the order of their instants.
  const order = sends.map((_, i) => i).sort((a, b) => ((a * 7919) % 1000) - ((b * 7919) % 1000));
  const statuses: number[] = [];
  for (let i = 0; i < order.length; i += 8) statuses.push(...(await Promise.all(order.slice(i, i + 8).map((j) => sends[j]()))).map((r) => r.status));
  expect(statuses.filter((s) => s !== 202)).toEqual([]);

  // The same sequencer `npm start` runs, started now, until nothing waits.
  const client = localClient(service.storeEndpoint);
  const { signer } = await devLedgerSigner();
  const sequencer = startLocalSequencer({ client, table: LOCAL_TABLE, signer, tiles: directoryTileStore(service.tilesDir) });
  let runs;
  try {
    runs = await sequencer.drain();
  } finally {
    await sequencer.stop();
    client.destroy();
  }
  expect(runs.length).toBeGreaterThan(0);
  // Arrival out of instant order sets some aside for a while (a change seems to repeat the state
  // before it while the changes between have not arrived); each is tried again with its record's
  // next events, so in the end every one of the 1,000 is integrated, once.
  const states = await deliveryStates();
  expect(states).toEqual({ SEQUENCED: 1000, DELIVERY: 1000 });

  const keys = [process.env.LEDGER_VERIFIER_KEYS!];
  const cliInputs: string[] = [];
  for (const reference of CHANGED) {
    const now = await get(`/v1/objects/${reference}?limit=100`);
    expect([reference, now.current.state, now.current.evidenceIntegrityConfirmed]).toEqual([reference, expected.get(reference)!.state, true]);
    // The timeline is in the order of the instants stated, whatever the order of arrival.
    const instants = now.timeline.map((e: any) => Date.parse(e.at));
    expect(instants).toEqual([...instants].sort((a, b) => a - b));
    expect(now.timeline.at(-1).at).toBe(instant((CHANGES_EACH - 1) * 4 + CHANGED.indexOf(reference)));
    // As of instants in between: the state of the change in force, with evidence that verifies.
    for (const i of [0, 17, 150, 299]) {
      const at = new Date(Date.parse(instant(i * 4 + CHANGED.indexOf(reference))) + 1).toISOString();
      const view = await get(`/v1/objects/${reference}?asOf=${encodeURIComponent(at)}`);
      expect([reference, i, view.object.stateSince]).toEqual([reference, i, instant(i * 4 + CHANGED.indexOf(reference))]);
      expect([reference, i, verifyEvidence(view.object, view.current.ledger, keys).ok]).toEqual([reference, i, true]);
    }
    const file = path.join(dir, `${reference}.json`);
    await writeFile(file, JSON.stringify(now));
    cliInputs.push(file);
  }
  const observedNow = await get(`/v1/objects/${observedRef}`);
  expect(observedNow.current.observedAt).toBe(instant((OBSERVATIONS - 1) * 4 + 3));
  const proof = await get(`/v1/commercial-proofs/${DEMO_PROOFS.current}`);
  expect(proof.verification.currentSourceStatus.observedAt).toBe(instant((SNAPSHOTS - 1) * 4 + 3));
  const proofFile = path.join(dir, 'proof.json');
  await writeFile(proofFile, JSON.stringify(proof));
  cliInputs.push(proofFile);

  // A sequencer that keeps no log from earlier batches (a cold Lambda) opens the grown log from its
  // right edge (the partial hash tiles: past 256 leaves, two levels of them) and extends it correctly.
  const ledgerBefore = await get('/v1/ledger');
  expect(ledgerBefore.latestCheckpoint.treeSize).toBeGreaterThan(256);
  const last = CHANGED[0];
  const lastState = (await get(`/v1/objects/${last}`)).current.state;
  const nextState = GOOD_STANDING.find((s) => s !== lastState)!;
  const cold = await emit(service.url, STATE_CHANGED, last, { objectType: expected.get(last)!.type, previousState: lastState, state: nextState }, { at: new Date().toISOString() });
  expect(cold.status).toBe(202);
  const coldClient = localClient(service.storeEndpoint);
  try {
    const coldRuns = await sequenceAll({ ...tableStores(coldClient, LOCAL_TABLE), signer, tiles: directoryTileStore(service.tilesDir), cache: new LogCache() });
    expect(coldRuns.reduce((n, r) => n + r.appended, 0)).toBe(1);
  } finally {
    coldClient.destroy();
  }
  const afterCold = await get(`/v1/objects/${last}`);
  expect(afterCold.current.state).toBe(nextState);
  expect(verifyEvidence(afterCold.object, afterCold.current.ledger, keys).ok).toBe(true);
  const coldFile = path.join(dir, 'after-cold-open.json');
  await writeFile(coldFile, JSON.stringify(afterCold));
  cliInputs.push(coldFile);

  const tsx = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');
  for (const input of cliInputs) {
    const out = await run(process.execPath, [tsx, path.join(ROOT, 'bin/verify.ts'), input, '--key', keys[0]], { cwd: ROOT, env: { ...process.env, LEDGER_VERIFIER_KEYS: '' } });
    expect([path.basename(input), out.stdout]).toEqual([path.basename(input), expect.stringContaining('VERIFIED')]);
  }
}, 240_000);
