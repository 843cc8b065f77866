import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEMO_OBJECTS, demoDocument } from '../../fixtures/demo';
import { verifyEvidence } from '#verify/index';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { rotateLedger } from '../../lib/ledger/rotate';
import { generateSignerKey, signerFromKey, type LedgerSigner } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { LOCAL_TABLE, localClient, type LocalService } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';
import { getJson, startTestService } from '../support/local';
import { CACHE_CONTROL } from '../../functions/contract/caching';
import { runCommand } from '../support/cli';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const ANCHOR = new Date('2026-11-21T10:00:00Z');
const NEW_ORIGIN = 'localhost/public-trust-verification-service/dev-ledger/2';

let service: LocalService;
let work: string;
let oldSigner: LedgerSigner;
let newSigner: LedgerSigner;
let keysBefore: string | undefined;
beforeAll(async () => {
  service = await startTestService(ANCHOR);
  work = await mkdtemp(path.join(os.tmpdir(), 'rotation-e2e-'));
  oldSigner = (await devLedgerSigner()).signer as LedgerSigner;
  newSigner = signerFromKey(generateSignerKey(NEW_ORIGIN));
  keysBefore = process.env.LEDGER_VERIFIER_KEYS;
}, 60_000);
afterAll(async () => {
  if (keysBefore === undefined) delete process.env.LEDGER_VERIFIER_KEYS;
  else process.env.LEDGER_VERIFIER_KEYS = keysBefore;
  await service?.close();
  await rm(work, { recursive: true, force: true });
});

const monitorCli = (...args: string[]) => runCommand('bin/monitor.ts', args);

const REFERENCES = [`/v1/objects/${DEMO_OBJECTS.current}`, '/v1/commercial-proofs/PRF-2026-0101'];

/** Every reference's evidence, as served, verified with the keys given (pinned, nothing from the service). */
async function verifyAll(keys: string[]): Promise<Array<{ path: string; ok: boolean; origin: string | null; failed: string[] }>> {
  return Promise.all(
    REFERENCES.map(async (p) => {
      const answer = (await getJson(`${service.url}${p}`)).body;
      const result = await verifyEvidence(answer, { trustedKeys: keys });
      return { path: p, ok: result.ok, origin: result.origin ?? null, failed: result.checks.filter((c) => !c.ok).map((c) => c.name) };
    }),
  );
}

describe('a log that outlives its key', () => {
  let finalSize = 0;
  const state = () => path.join(work, 'old-log-state.json');

  test('before: every record verifies with the old key, and a monitor keeps the old log\'s state', async () => {
    process.env.LEDGER_VERIFIER_KEYS = oldSigner.verifierKey;
    expect((await verifyAll([oldSigner.verifierKey])).every((r) => r.ok)).toBe(true);
    const first = await monitorCli(service.url, '--state', state(), '--key', oldSigner.verifierKey);
    expect(first.code).toBe(0);
  }, 60_000);

  test('rotation: the old log ends with a succession entry under its final checkpoint, the new log begins by binding it', async () => {
    const client = localClient(service.storeEndpoint);
    try {
      const out = await rotateLedger({ client, table: LOCAL_TABLE, oldSigner, newSigner, tiles: directoryTileStore(service.tilesDir) });
      finalSize = out.retired.treeSize;
      expect(out.current).toMatchObject({ origin: NEW_ORIGIN, treeSize: 1 });
      expect(out.current.tilesDir).toMatch(/^logs\/[0-9a-f]{16}\/$/);
      // Run again, it refuses: the old log was handed over already.
      await expect(rotateLedger({ client, table: LOCAL_TABLE, oldSigner, newSigner, tiles: directoryTileStore(service.tilesDir) })).rejects.toThrow(/current log is .*dev-ledger\/2/);
    } finally {
      client.destroy();
    }
    process.env.LEDGER_VERIFIER_KEYS = `${newSigner.verifierKey},${oldSigner.verifierKey}`;
    const ledger = (await getJson(`${service.url}/v1/ledger`)).body;
    expect(ledger.origin).toBe(NEW_ORIGIN);
    expect(ledger.logs).toEqual([
      expect.objectContaining({ origin: oldSigner.name, role: 'retired', verifierKey: oldSigner.verifierKey, validUpToTreeSize: finalSize, monitoringPrefix: `${service.url}/ledger/` }),
      expect.objectContaining({ origin: NEW_ORIGIN, role: 'current', verifierKey: newSigner.verifierKey, validUpToTreeSize: null, finalCheckpoint: null }),
    ]);
    expect(ledger.logs[0].finalCheckpoint).toContain(`\n${finalSize}\n`);
    expect(ledger.tiles.monitoringPrefix).toBe(ledger.logs[1].monitoringPrefix);
    const served = await fetch(`${ledger.tiles.monitoringPrefix}checkpoint`);
    expect([served.status, served.headers.get('content-type'), served.headers.get('cache-control')]).toEqual([200, 'text/plain; charset=utf-8', CACHE_CONTROL.checkpoint]);
    expect(await served.text()).toBe(ledger.latestCheckpoint.note);
    // The successor log's resources are cached as the first log's are: an ETag, and 304 to it.
    const etag = served.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await fetch(`${ledger.tiles.monitoringPrefix}checkpoint`, { headers: { 'if-none-match': etag! } });
    expect([again.status, again.headers.get('cache-control')]).toEqual([304, CACHE_CONTROL.checkpoint]);
  }, 60_000);

  test('across: every record stored before still verifies against the old key; the old key alone cannot write any more', async () => {
    const results = await verifyAll([newSigner.verifierKey, oldSigner.verifierKey]);
    expect(results.every((r) => r.ok && r.origin === oldSigner.name)).toBe(true);
    // Within the retired key's validity they pass; a checkpoint beyond a log's final size (what a stolen old key could sign) fails.
    const answer = (await getJson(`${service.url}${REFERENCES[0]}`)).body;
    const within = await verifyEvidence(answer, { trustedKeys: [oldSigner.verifierKey], retiredLogs: [{ origin: oldSigner.name, validUpToTreeSize: finalSize }] });
    expect(within.checks.find((c) => c.name === 'retired-key-validity')).toMatchObject({ ok: true });
    const beyond = await verifyEvidence(answer, { trustedKeys: [oldSigner.verifierKey], retiredLogs: [{ origin: oldSigner.name, validUpToTreeSize: 1 }] });
    expect([beyond.ok, beyond.checks.find((c) => c.name === 'retired-key-validity')?.detail]).toEqual([false, expect.stringContaining('signed after the log ended, so by a compromised key')]);
    // The service's own check: with the retired log's final size configured (LEDGER_RETIRED_LOGS), its evidence is confirmed;
    // with a limit below the evidence's checkpoint (what a checkpoint a stolen key signed after the end looks like), it is not.
    const confirmedWith = async (retired: string) => {
      process.env.LEDGER_RETIRED_LOGS = retired;
      const body = (await getJson(`${service.url}${REFERENCES[0]}`)).body;
      return { confirmed: body.current.evidenceIntegrityConfirmed };
    };
    try {
      expect((await confirmedWith(`${oldSigner.name}=${finalSize}`)).confirmed).toBe(true);
      expect((await confirmedWith(`${oldSigner.name}=1`)).confirmed).toBe(false);
    } finally {
      delete process.env.LEDGER_RETIRED_LOGS;
    }
    // npm run verify, keys pinned, takes the retired log's validity from /v1/ledger.
    const cli = await run(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'bin/verify.ts'), `${service.url}${REFERENCES[0]}`, '--key', oldSigner.verifierKey], { cwd: ROOT, env: { ...process.env, LEDGER_VERIFIER_KEYS: '' } });
    expect(cli.stdout).toMatch(/PASS {2}retired-key-validity +.*was retired at \d+ entries/);
    expect(cli.stdout).toContain('VERIFIED');
    const client = localClient(service.storeEndpoint);
    try {
      await expect(
        loadDocument(demoDocument(new Date('2026-11-22T10:00:00Z')), { client, table: LOCAL_TABLE, signer: oldSigner, tiles: directoryTileStore(service.tilesDir) }),
      ).rejects.toThrow(/the table's log is .*dev-ledger\/2, but the signing key is for .*dev-ledger$/);
    } finally {
      client.destroy();
    }
  }, 60_000);

  test('after: new versions are logged in the new log with the new key, and verify; the monitor passes on both logs', async () => {
    const client = localClient(service.storeEndpoint);
    try {
      await loadDocument(demoDocument(new Date('2026-11-22T10:00:00Z')), { client, table: LOCAL_TABLE, signer: newSigner, tiles: directoryTileStore(service.tilesDir) });
    } finally {
      client.destroy();
    }
    const results = await verifyAll([newSigner.verifierKey, oldSigner.verifierKey]);
    expect(results.every((r) => r.ok && r.origin === NEW_ORIGIN)).toBe(true);
    // The old key alone no longer confirms them.
    expect((await verifyAll([oldSigner.verifierKey])).every((r) => !r.ok && r.failed.includes('checkpoint-signature'))).toBe(true);
    const ledger = (await getJson(`${service.url}/v1/ledger`)).body;
    expect(ledger.latestCheckpoint).toMatchObject({ origin: NEW_ORIGIN, signatureVerified: true });
    expect(ledger.latestCheckpoint.treeSize).toBeGreaterThan(1);
    // Consistency proofs are the current log's.
    const proof = await getJson(`${service.url}/v1/ledger/consistency?from=1&to=${ledger.latestCheckpoint.treeSize}`);
    expect([proof.status, proof.body.proof.length]).toEqual([200, expect.any(Number)]);
    expect(proof.body.proof.length).toBeGreaterThan(0);
    // The monitor holding the old log's state, pinned to the old key only, follows the handover and passes.
    const across = await monitorCli(service.url, '--state', state(), '--key', oldSigner.verifierKey);
    expect(across.stdout).toContain(`ok    handover: ${oldSigner.name} ended at ${finalSize} naming ${NEW_ORIGIN}`);
    expect(across.stdout).toContain(`verified ${ledger.latestCheckpoint.treeSize} entries of ${NEW_ORIGIN}`);
    expect(across.code).toBe(0);
    // From then on it follows the new log as any other.
    const again = await monitorCli(service.url, '--state', state(), '--key', newSigner.verifierKey);
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining(`0 new entries; the log only grew from ${ledger.latestCheckpoint.treeSize}`)]);
  }, 120_000);
});
