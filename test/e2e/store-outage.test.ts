// First: the service's functions log WARN lines here (the Powertools Logger reads its level when it is made).
import '../support/log-level-warn';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { STORE_TIMEOUTS } from '../../functions/store/client';
import { startLocalService, type LocalService } from '../../lib/local/service';
import { getJson, unusedPort } from '../support/local';
import { collectLogLines } from '../support/log-lines';

/**
 * The store as a separate process (`npm run store`, on disk), served through
 * `startLocalService({ endpoint })` as `npm start -- --endpoint URL` does: the process is frozen
 * (SIGSTOP: connections hang), then killed (SIGKILL: connections refused), then started again on
 * its data. The service answers 503 with Retry-After within the store budget throughout, says
 * DEGRADED, and answers again once the store is back, without a restart and with nothing lost.
 */
const ROOT = path.resolve(__dirname, '../..');
/** The documented budget (docs/errors.md): attempts x (connect + request) plus the SDK's retry delay, with slack for a loaded CI machine. */
const BUDGET_MS = STORE_TIMEOUTS.maxAttempts * (STORE_TIMEOUTS.connectionTimeout + STORE_TIMEOUTS.requestTimeout) + 1500;

let dataDir: string;
let port: number;
let store: ChildProcess | undefined;
let service: LocalService;

/**
 * Starts what `npm run store -- --port P --data DIR` runs, as one process (node with tsx's loader,
 * not tsx's CLI, which would put the store in a child process the signals would not reach), and
 * waits for its banner.
 */
function startStoreProcess(): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/store.ts', '--port', String(port), '--data', dataDir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the store process ended (${code}) before listening`)));
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('store listening on')) resolve(child);
    });
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-outage-'));
  port = await unusedPort();
  store = await startStoreProcess();
  service = await startLocalService({ port: 0, endpoint: `http://127.0.0.1:${port}`, loadDemo: true, dataDir });
}, 60_000);

afterAll(async () => {
  await service?.close();
  store?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function read() {
  const started = Date.now();
  const res = await getJson(`${service.url}/v1/objects/${DEMO_OBJECTS.current}`);
  return { ...res, tookMs: Date.now() - started };
}

/** An object read while the store is out, with the warning it logged (docs/errors.md: the log says why). */
async function readLoggingWarnings() {
  const collected = collectLogLines();
  try {
    const res = await read();
    return { res, warning: collected.lines.find((line) => line.message === 'dependency problem') };
  } finally {
    collected.restore();
  }
}

function expectUnavailable(res: Awaited<ReturnType<typeof read>>) {
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', status: 503 });
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.tookMs).toBeLessThan(BUDGET_MS);
}

test('served from a separate store process at first', async () => {
  const res = await read();
  expect(res.status).toBe(200);
  expect(res.body.current.state).toBe('DELIVERED');
  expect((await getJson(`${service.url}/health`)).body).toMatchObject({ status: 'OK' });
});

test('a frozen store (SIGSTOP) is a 503 with Retry-After within the budget, and health says DEGRADED', async () => {
  store!.kill('SIGSTOP');
  const { res, warning } = await readLoggingWarnings();
  expectUnavailable(res);
  expect(warning).toMatchObject({ operation: 'Query record window', cause: { name: 'TimeoutError', code: 'ETIMEDOUT' }, correlation_id: res.headers.get('x-correlation-id') });
  const health = await getJson(`${service.url}/health`);
  expect(health.status).toBe(200);
  expect(health.body).toMatchObject({ status: 'DEGRADED', readiness: { persistence: 'UNREACHABLE' } });
}, 30_000);

test('a killed store (SIGKILL) is a 503 too, and the service keeps answering everything else', async () => {
  const exited = new Promise((resolve) => store!.once('exit', resolve));
  store!.kill('SIGKILL');
  await exited;
  const { res, warning } = await readLoggingWarnings();
  expectUnavailable(res);
  expect(warning).toMatchObject({ operation: 'Query record window', cause: { message: expect.stringContaining('ECONNREFUSED') }, correlation_id: res.headers.get('x-correlation-id') });
  expect((await getJson(`${service.url}/health`)).body).toMatchObject({ status: 'DEGRADED' });
  expect((await getJson(`${service.url}/developers/catalogue.json`)).status).toBe(200);
  expect((await getJson(`${service.url}/v1/objects/AB`)).status).toBe(400);
}, 30_000);

test('when the store is back on its data, the same service answers again without a restart', async () => {
  store = await startStoreProcess();
  const res = await read();
  expect(res.status).toBe(200);
  expect(res.body.current.state).toBe('DELIVERED');
  expect(res.body.current.evidenceIntegrityConfirmed).toBe(true);
  expect((await getJson(`${service.url}/health`)).body).toMatchObject({ status: 'OK', readiness: { persistence: 'READY' } });
}, 60_000);
