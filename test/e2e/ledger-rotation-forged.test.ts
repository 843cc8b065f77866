import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { rotateLedger } from '../../lib/ledger/rotate';
import { generateSignerKey, signerFromKey, type LedgerSigner } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { LOCAL_TABLE, localClient } from '../../lib/local/service';
import { startTestService } from '../support/local';
import { runCommand } from '../support/cli';

const ANCHOR = new Date('2026-11-21T10:00:00Z');
const NEW_ORIGIN = 'localhost/public-trust-verification-service/dev-ledger/2';

let work: string;
let oldSigner: LedgerSigner;
let newSigner: LedgerSigner;
let keysBefore: string | undefined;
beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'rotation-e2e-'));
  oldSigner = (await devLedgerSigner()).signer as LedgerSigner;
  newSigner = signerFromKey(generateSignerKey(NEW_ORIGIN));
  keysBefore = process.env.LEDGER_VERIFIER_KEYS;
}, 60_000);
afterAll(async () => {
  if (keysBefore === undefined) delete process.env.LEDGER_VERIFIER_KEYS;
  else process.env.LEDGER_VERIFIER_KEYS = keysBefore;
  await rm(work, { recursive: true, force: true });
});

const monitorCli = (...args: string[]) => runCommand('bin/monitor.ts', args);

describe('a forged handover', () => {
  test.each([
    ['binds a checkpoint the old key did not sign', (stranger: LedgerSigner) => (g: any) => ({ ...g, predecessor: { ...g.predecessor, checkpoint: stranger.signNote(g.predecessor.checkpoint.split('\n\n')[0] + '\n') } }), /the handover binds a checkpoint the old key did not sign/],
  ])('that %s fails the monitor, naming why', async (_what, forge, why) => {
    const other = await startTestService(ANCHOR);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'forged-'));
    try {
      process.env.LEDGER_VERIFIER_KEYS = oldSigner.verifierKey;
      const before = await monitorCli(other.url, '--state', path.join(dir, 's.json'), '--key', oldSigner.verifierKey);
      expect(before.code).toBe(0);
      const client = localClient(other.storeEndpoint);
      const stranger = signerFromKey(generateSignerKey(oldSigner.name));
      try {
        await rotateLedger({ client, table: LOCAL_TABLE, oldSigner, newSigner, tiles: directoryTileStore(other.tilesDir), handoverEntry: forge(stranger) });
      } finally {
        client.destroy();
      }
      process.env.LEDGER_VERIFIER_KEYS = `${newSigner.verifierKey},${oldSigner.verifierKey}`;
      const across = await monitorCli(other.url, '--state', path.join(dir, 's.json'), '--key', oldSigner.verifierKey);
      expect(across.stdout).toMatch(why);
      expect(across.stdout).toContain(`FAIL  handover from ${oldSigner.name} to ${NEW_ORIGIN}`);
      expect(across.code).toBe(1);
    } finally {
      await other.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

