import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { demoDocument } from '../../fixtures/demo';
import { decodeEntryBundle } from '#verify/node/tlog-tiles';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { generateSignerKey, signerFromKey } from '../../functions/ledger-writer/signer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { LOCAL_TABLE, localClient, type LocalService } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';
import { getJson, startTestService } from '../support/local';
import { runCommand } from '../support/cli';

const ANCHOR = new Date('2026-11-21T10:00:00Z');

let service: LocalService;
let work: string;
beforeAll(async () => {
  service = await startTestService(ANCHOR);
  work = await mkdtemp(path.join(os.tmpdir(), 'tiles-e2e-'));
});
afterAll(async () => {
  await service?.close();
  await rm(work, { recursive: true, force: true });
});

const monitorCli = (...args: string[]) => runCommand('bin/monitor.ts', args);

describe('the tile log served by the local host', () => {
  test('GET /v1/ledger publishes the monitoring prefix; checkpoint, tiles and bundles are served with their headers, ETags and 304s', async () => {
    const ledger = (await getJson(`${service.url}/v1/ledger`)).body;
    expect(ledger.tiles.monitoringPrefix).toBe(`${service.url}/ledger/`);
    const prefix = ledger.tiles.monitoringPrefix as string;
    const checkpoint = await fetch(`${prefix}checkpoint`);
    expect(checkpoint.status).toBe(200);
    expect(checkpoint.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    // The checkpoint is kept a second or so; full tiles forever; partial ones and bundles a minute (docs/semantics.md#caching).
    expect(checkpoint.headers.get('cache-control')).toBe('public, max-age=1, stale-while-revalidate=1, stale-if-error=60');
    const note = await checkpoint.text();
    expect(note).toBe(ledger.latestCheckpoint.note);
    const size = ledger.latestCheckpoint.treeSize as number;
    const bundle = await fetch(`${prefix}tile/entries/000.p/${size}`);
    expect(bundle.headers.get('content-type')).toBe('application/octet-stream');
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=60');
    expect(decodeEntryBundle(Buffer.from(await bundle.arrayBuffer()))).toHaveLength(size);
    const tile = await fetch(`${prefix}tile/0/000.p/${size}`);
    expect((await tile.arrayBuffer()).byteLength).toBe(32 * size);
    const etag = tile.headers.get('etag')!;
    expect((await fetch(`${prefix}tile/0/000.p/${size}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await fetch(`${prefix}tile/0/000.p/${size}`, { method: 'HEAD' });
    expect([head.status, head.headers.get('cache-control')]).toEqual([200, 'public, max-age=60']);
    const history = await fetch(`${prefix}checkpoints/${size}`);
    expect([history.status, await history.text()]).toEqual([200, note]);
  });

  test('what the log does not hold, or a path that is not a tile, is a 404 problem', async () => {
    for (const p of ['tile/0/000', 'tile/0/001.p/3', 'tile/0/1', 'tile/..%2F..%2Fpackage.json', 'tile/entries/x000/001', 'checkpoints/999999', 'checkpoints/..']) {
      const res = await fetch(`${service.url}/ledger/${p}`);
      expect([p, res.status, res.headers.get('content-type')]).toEqual([p, 404, 'application/problem+json; charset=utf-8']);
    }
  });

  test('npm run monitor verifies the log, then a second load, and reports the growth', async () => {
    const state = path.join(work, 'state.json');
    const first = await monitorCli(service.url, '--state', state);
    expect(first.stdout).toMatch(/verified \d+ entries of localhost\/public-trust-verification-service\/dev-ledger/);
    expect(first.code).toBe(0);
    const before = (await getJson(`${service.url}/v1/ledger`)).body.latestCheckpoint.treeSize as number;
    // A second load with later timestamps appends new record versions and writes their tiles.
    const client = localClient(service.storeEndpoint);
    try {
      const { signer } = await devLedgerSigner();
      await loadDocument(demoDocument(new Date('2026-11-22T10:00:00Z')), { client, table: LOCAL_TABLE, signer, tiles: directoryTileStore(service.tilesDir) });
    } finally {
      client.destroy();
    }
    const after = (await getJson(`${service.url}/v1/ledger`)).body.latestCheckpoint.treeSize as number;
    expect(after).toBeGreaterThan(before);
    const second = await monitorCli(service.url, '--state', state, '--key', (await devLedgerSigner()).signer.verifierKey);
    expect(second.stdout).toContain(`${after - before} new entries; the log only grew from ${before} to ${after}`);
    expect(second.code).toBe(0);
    // Pinned to another key, the same log is refused.
    const otherKey = signerFromKey(generateSignerKey('localhost/public-trust-verification-service/dev-ledger')).verifierKey;
    const other = await monitorCli(service.url, '--state', path.join(work, 'other.json'), '--key', otherKey);
    expect(other.stdout).toContain('FAIL  checkpoint (checkpoint): the checkpoint is not signed by a trusted key');
    expect(other.code).toBe(1);
  }, 60_000);
});
