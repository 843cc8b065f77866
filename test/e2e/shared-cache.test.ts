// First: the service's functions log WARN lines here (the Powertools Logger reads its level when it is made).
import '../support/log-level-warn';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { syntheticRecord } from '../../bench/lib/synthetic-records';
import { CACHE_CONTROL, CURRENT_MAX_STALENESS, CURRENT_SHARED_MAX_AGE, NEGATIVE_CACHE_CONTROL, NEVER_STORED } from '../../functions/contract/caching';
import { TILE_WIDTH } from '#verify/node/tlog-tiles';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { loadDocument } from '../../lib/loader/load';
import { localClient, LOCAL_TABLE, startLocalService, type LocalService } from '../../lib/local/service';
import { emit, STATE_CHANGED } from '../support/ingress';
import { unusedPort } from '../support/local';
import { startCountingProxy, startVarnish, type CountingProxy, type SharedCache } from '../support/shared-cache';

/**
 * The caching classes proved with a real shared cache: Varnish (test/support/shared-cache.ts says
 * why Varnish) in front of `npm start`'s service, keyed like the edge (the URL, never Host), with
 * a counter between them of what reaches the origin. The store runs as its own process (as in
 * store-outage.test.ts) so that it can be killed. docs/semantics.md#caching states what is shown.
 */
const ROOT = path.resolve(__dirname, '../..');
const LOAD_SECONDS = 10;
const CLIENTS = 20;
/** How long the sequencer may take to integrate an accepted event locally (docs/ingress.md: well under 2 s). */
const SEQUENCER_DELAY_MS = 2_000;

let dataDir: string;
let storePort: number;
let store: ChildProcess | undefined;
let service: LocalService;
let origin: CountingProxy;
let cache: SharedCache;

/** What `npm run store -- --port P --data DIR` runs, as one process the test can kill and start again on its data. */
function startStoreProcess(): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/store.ts', '--port', String(storePort), '--data', dataDir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the store process ended (${code}) before listening`)));
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('store listening on')) resolve(child);
    });
  });
}

/** Loads synthetic records after the demo until the log holds a full tile (at least TILE_WIDTH entries). */
async function growLogToAFullTile(): Promise<number> {
  const client = localClient(service.storeEndpoint);
  const { signer } = await devLedgerSigner(dataDir);
  try {
    const records = Array.from({ length: 150 }, (_, n) => syntheticRecord(7, n));
    await loadDocument({ records }, { client, table: LOCAL_TABLE, signer, tiles: directoryTileStore(service.tilesDir) });
  } finally {
    client.destroy();
  }
  return Number((await fetch(`${service.url}/ledger/checkpoint`).then((r) => r.text())).split('\n')[1]);
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'shared-cache-data-'));
  storePort = await unusedPort();
  store = await startStoreProcess();
  service = await startLocalService({ port: 0, endpoint: `http://127.0.0.1:${storePort}`, loadDemo: true, dataDir });
  origin = await startCountingProxy(service.url);
  cache = await startVarnish(origin.port);
}, 420_000);

afterAll(async () => {
  await cache?.close();
  await origin?.close();
  await service?.close();
  store?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET through the cache with exactly these headers (node:http lets a test set Host, as any client can). */
function viaCache(target: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(cache.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** `clients` clients, each asking for `target` again as soon as it has its answer, for `seconds`; the statuses they got. */
async function hammer(target: string, headers: Record<string, string>, seconds: number, clients = CLIENTS): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  const end = Date.now() + seconds * 1000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const { hostname, port } = new URL(cache.url);
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request({ hostname, port, path: target, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
          resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });
  await Promise.all(Array.from({ length: clients }, async () => {
    while (Date.now() < end) await once();
  }));
  agent.destroy();
  return statuses;
}

/** The most fetches of one answer a cache may make in `seconds` when it keeps it `freshSeconds`: one per lifetime, and the first. */
const atMostOncePerLifetime = (seconds: number, freshSeconds: number) => Math.ceil(seconds / freshSeconds) + 1;

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' };

test(`a hot object and its trust receipt, each read by ${CLIENTS} clients for ${LOAD_SECONDS} s, reach the origin at most once per their s-maxage`, async () => {
  const object = `/v1/objects/${DEMO_OBJECTS.stale}`;
  const receipt = `/trust-receipt/${DEMO_OBJECTS.current}`;
  const [objectAnswers, receiptAnswers] = await Promise.all([hammer(object, { accept: 'application/json' }, LOAD_SECONDS), hammer(receipt, BROWSER, LOAD_SECONDS)]);
  const limit = atMostOncePerLifetime(LOAD_SECONDS, CURRENT_SHARED_MAX_AGE);
  for (const [target, answers] of [[object, objectAnswers], [receipt, receiptAnswers]] as const) {
    const served = [...answers.values()].reduce((a, b) => a + b, 0);
    expect({ target, statuses: [...answers.keys()] }).toEqual({ target, statuses: [200] });
    // Many clients were answered, a handful of times the origin was asked.
    expect(served).toBeGreaterThan(10 * limit);
    const reached = origin.count(target);
    expect({ target, served, reached, withinLimit: reached >= 1 && reached <= limit }).toEqual({ target, served, reached, withinLimit: true });
  }
  const page = await viaCache(receipt, BROWSER);
  expect([page.headers['cache-control'], page.headers['content-language'], page.headers.vary]).toEqual([CACHE_CONTROL.current, 'de', 'Accept, Accept-Language, Accept-Encoding']);
}, 60_000);

test('a 404 for an unknown reference is answered by the cache for its few seconds; the origin sees it once', async () => {
  const unknown = '/v1/objects/NO-SUCH-SCANNED-REF';
  const answers = await Promise.all(Array.from({ length: 30 }, () => viaCache(unknown)));
  expect(new Set(answers.map((a) => `${a.status} ${a.headers['cache-control']}`))).toEqual(new Set([`404 ${NEGATIVE_CACHE_CONTROL}`]));
  expect(origin.count(unknown)).toBe(1);
});

test('full tiles and entry bundles are served from the cache after the first request, the same bytes', async () => {
  expect(await growLogToAFullTile()).toBeGreaterThanOrEqual(TILE_WIDTH);
  for (const tile of ['/ledger/tile/0/000', '/ledger/tile/entries/000']) {
    const direct = await fetch(`${service.url}${tile}`);
    const bytes = Buffer.from(await direct.arrayBuffer());
    const before = origin.count(tile);
    const answers = await Promise.all(Array.from({ length: 25 }, () => viaCache(tile)));
    for (const answer of answers) {
      expect([answer.status, answer.headers['cache-control']]).toEqual([200, CACHE_CONTROL.immutable]);
      expect(Buffer.from(answer.body, 'latin1').length).toBeGreaterThan(0);
    }
    expect(origin.count(tile) - before).toBe(1);
    // The next day's client still gets it from the cache.
    await viaCache(tile);
    expect(origin.count(tile) - before).toBe(1);
    expect(direct.headers.get('cache-control')).toBe(CACHE_CONTROL.immutable);
    expect(bytes.length).toBeGreaterThan(0);
  }
}, 120_000);

test('a request with a forged Host, X-Forwarded-* and its own correlation id never changes what the next client gets', async () => {
  const forged = {
    host: 'evil.example',
    'x-forwarded-host': 'evil.example',
    'x-forwarded-proto': 'http',
    'x-forwarded-port': '8443',
    forwarded: 'for=192.0.2.1;host=evil.example;proto=http',
    'x-correlation-id': 'attacker-chosen-id-0001',
  };
  const asOf = new Date(Date.now() - 3_600_000).toISOString();
  // A paged past view (its Link header is an absolute URL), an order's current view (absolute links in its body) and a receipt page.
  const targets: Array<[string, Record<string, string>]> = [
    [`/v1/objects/${DEMO_OBJECTS.longHistory}?asOf=${encodeURIComponent(asOf)}&limit=1`, {}],
    [`/v1/objects/${DEMO_OBJECTS.revoked}`, {}],
    [`/trust-receipt/${DEMO_OBJECTS.revoked}`, BROWSER],
  ];
  for (const [target, headers] of targets) {
    const first = await viaCache(target, { ...headers, ...forged });
    expect(first.status).toBe(200);
    const next = await viaCache(target, headers);
    // The next client got the copy the forged request filled the cache with.
    expect(origin.count(target)).toBe(1);
    for (const text of [next.body, JSON.stringify(next.headers)]) {
      expect(text).not.toContain('evil.example');
      // A forged port would show as one in a URL; the bare digits can occur in any key id or hash.
      expect(text).not.toContain(':8443');
      expect(text).not.toContain('attacker-chosen-id-0001');
    }
    // Its links name the configured origin (the paged view's in its Link header).
    expect(`${next.body} ${next.headers.link ?? ''}`).toContain(service.url);
  }
  // A past view is the same bytes for everyone: the copy the forged request left is what the origin tells anyone.
  const [past] = targets[0];
  const direct = await fetch(`${service.url}${past}`);
  const cached = await viaCache(past);
  expect(cached.body).toBe(await direct.text());
  expect(cached.headers.link).toBe(direct.headers.get('link'));
  expect(String(cached.headers.link)).toMatch(new RegExp(`^<${service.url}/v1/objects/`));
});

test('a signed state change is visible through the cache within the stated staleness after the sequencer has integrated it', async () => {
  const target = `/v1/objects/${DEMO_OBJECTS.current}`;
  const stateVia = async (read: () => Promise<string>) => JSON.parse(await read()).current.state as string;
  expect(await stateVia(async () => (await viaCache(target)).body)).toBe('DELIVERED');

  const delivered = await emit(service.url, STATE_CHANGED, DEMO_OBJECTS.current, { previousState: 'DELIVERED', state: 'RETURNED' });
  expect(delivered.status).toBe(202);
  const accepted = Date.now();
  const seenAt: { origin?: number; cache?: number } = {};
  const statesSeenThroughCache: string[] = [];
  const deadline = accepted + SEQUENCER_DELAY_MS + CURRENT_MAX_STALENESS * 1000 + 5_000;
  while ((seenAt.origin === undefined || seenAt.cache === undefined) && Date.now() < deadline) {
    const [direct, cached] = await Promise.all([stateVia(() => fetch(`${service.url}${target}`).then((r) => r.text())), stateVia(async () => (await viaCache(target)).body)]);
    if (direct === 'RETURNED') seenAt.origin ??= Date.now();
    if (cached === 'RETURNED') seenAt.cache ??= Date.now();
    statesSeenThroughCache.push(cached);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The sequencer's own delay, then at most the current view's stated staleness.
  expect(seenAt.origin! - accepted).toBeLessThanOrEqual(SEQUENCER_DELAY_MS);
  expect(seenAt.cache! - seenAt.origin!).toBeLessThanOrEqual(CURRENT_MAX_STALENESS * 1000 + 500);
  // The cache did hold the old state for a while: the bound was put to the test.
  expect(statesSeenThroughCache[0]).toBe('DELIVERED');
  expect(statesSeenThroughCache.at(-1)).toBe('RETURNED');
}, 60_000);

test('a 503 is never kept: while the store is down every request reaches the origin, and the first one after it is back gets the answer', async () => {
  const target = `/v1/commercial-proofs/${DEMO_PROOFS.current}`;
  const exited = new Promise((resolve) => store!.once('exit', resolve));
  store!.kill('SIGKILL');
  await exited;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const answer = await viaCache(target);
    expect([answer.status, answer.headers['cache-control'], answer.headers['retry-after']]).toEqual([503, NEVER_STORED, '1']);
    expect(origin.count(target)).toBe(attempt);
  }
  store = await startStoreProcess();
  const back = await viaCache(target);
  expect([back.status, back.headers['cache-control']]).toEqual([200, CACHE_CONTROL.current]);
  expect(origin.count(target)).toBe(4);
  // From now on it is kept as any current view.
  expect((await viaCache(target)).status).toBe(200);
  expect(origin.count(target)).toBe(4);
}, 60_000);
