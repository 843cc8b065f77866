import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import type { LocalService } from '../../lib/local/service';
import { emit, STATE_CHANGED } from '../support/ingress';
import { getJson, startTestService } from '../support/local';
import { npmStart, type NpmStart } from '../support/npm-start';
import { runCommand } from '../support/cli';

/**
 * The key change of a development log kept on disk, as a user runs it: npm run rotate against the
 * local store makes a new development key, and the local host started again on the same data
 * continues the new log, trusts both keys and serves both logs.
 */
const ANCHOR = new Date('2026-11-21T10:00:00Z');
const NEW_ORIGIN = 'localhost/public-trust-verification-service/dev-ledger/2';

let dir: string;
let service: LocalService | undefined;
let server: NpmStart | undefined;
let keysBefore: string | undefined;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rotation-local-'));
  keysBefore = process.env.LEDGER_VERIFIER_KEYS;
});
afterAll(async () => {
  await service?.close();
  await server?.stop();
  if (keysBefore === undefined) delete process.env.LEDGER_VERIFIER_KEYS;
  else process.env.LEDGER_VERIFIER_KEYS = keysBefore;
  await rm(dir, { recursive: true, force: true });
});

/** Sends a state change of the demo's modified object and waits until the sequencer integrated it: the object as then read. */
async function changeState(base: string): Promise<any> {
  const ref = `${base}/v1/objects/${DEMO_OBJECTS.modified}`;
  const before = (await getJson(ref)).body;
  const state = before.current.state === 'IN_SERVICE' ? 'ACTIVE' : 'IN_SERVICE';
  const sent = await emit(base, STATE_CHANGED, DEMO_OBJECTS.modified, { objectType: before.object.objectType, previousState: before.current.state, state }, { at: new Date().toISOString() });
  expect(sent.status).toBe(202);
  for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const read = (await getJson(ref)).body;
    if (read.current.state === state) return read;
  }
  throw new Error(`the event on ${DEMO_OBJECTS.modified} was not integrated within 10 s`);
}

const cli = (script: string, ...args: string[]) => runCommand(script, args);

test('events, npm run rotate on a local store, npm start again on the same data, more events: the new log continues, both keys are trusted, every version verifies, the monitor follows', async () => {
  const data = path.join(dir, 'data');
  service = await startTestService(ANCHOR, { dataDir: data });
  const oldKey = (await devLedgerSigner(data)).signer.verifierKey;
  const state = path.join(dir, 'monitor.json');
  // Events integrated before: in the old log, with the old key.
  expect((await changeState(service.url)).current).toMatchObject({ evidenceIntegrityConfirmed: true, ledger: { origin: 'localhost/public-trust-verification-service/dev-ledger' } });
  expect((await cli('bin/monitor.ts', service.url, '--state', state, '--key', oldKey)).code).toBe(0);

  const rotated = await cli('bin/rotate.ts', '--endpoint', service.storeEndpoint, '--dev-key-dir', data, '--tiles-dir', path.join(data, 'tiles'), '--new-origin', NEW_ORIGIN);
  expect(rotated.stdout).toContain(`began ${NEW_ORIGIN}`);
  expect(rotated.code).toBe(0);
  await service.close();
  service = undefined;

  server = await npmStart(['--data', data], { ...process.env, LEDGER_VERIFIER_KEYS: '' });
  const { url } = server;
  const { signer, retiredVerifierKeys, retiredLogs } = await devLedgerSigner(data);
  expect([signer.name, retiredVerifierKeys]).toEqual([NEW_ORIGIN, [oldKey]]);
  const ledger = (await getJson(`${url}/v1/ledger`)).body;
  // The retired log's final size is kept beside its key: npm start's read functions refuse its evidence beyond it.
  expect(retiredLogs).toEqual([`localhost/public-trust-verification-service/dev-ledger=${ledger.logs[0].validUpToTreeSize}`]);
  expect(ledger.logs.map((l: any) => [l.origin, l.role, l.verifierKey])).toEqual([
    ['localhost/public-trust-verification-service/dev-ledger', 'retired', oldKey],
    [NEW_ORIGIN, 'current', signer.verifierKey],
  ]);
  expect(ledger.latestCheckpoint).toMatchObject({ origin: NEW_ORIGIN, signatureVerified: true });
  // npm start loaded the demo again (dated now): those versions are in the new log. The versions loaded before keep their evidence in the old one.
  const now = `${url}/v1/objects/${DEMO_OBJECTS.current}`;
  const before = `${now}?asOf=${encodeURIComponent(ANCHOR.toISOString())}`;
  expect((await getJson(now)).body.current.ledger.origin).toBe(NEW_ORIGIN);
  expect((await getJson(before)).body.current.ledger.origin).toBe('localhost/public-trust-verification-service/dev-ledger');
  const verified = await cli('bin/verify.ts', before, '--key', oldKey);
  expect([verified.code, verified.stdout]).toEqual([0, expect.stringContaining('PASS  retired-key-validity')]);
  expect((await cli('bin/verify.ts', now, '--key', signer.verifierKey)).code).toBe(0);
  // Events integrated after: in the new log, signed by the new key, confirmed by the service and by npm run verify.
  const changed = await changeState(url);
  expect(changed.current).toMatchObject({ evidenceIntegrityConfirmed: true, ledger: { origin: NEW_ORIGIN } });
  expect((await cli('bin/verify.ts', `${url}/v1/objects/${DEMO_OBJECTS.modified}`, '--key', signer.verifierKey)).code).toBe(0);
  // The monitor with the state of before follows the handover.
  const across = await cli('bin/monitor.ts', url, '--state', state, '--key', oldKey);
  expect([across.code, across.stdout]).toEqual([0, expect.stringContaining(`ok    handover: localhost/public-trust-verification-service/dev-ledger ended at`)]);
}, 180_000);
