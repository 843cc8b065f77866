import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { demoDocument } from '../../fixtures/demo';
import { ensureTable } from '../../functions/store/write';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { loadDocument } from '../../lib/loader/load';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { localClient } from '../../lib/local/service';

/**
 * `npm start -- --endpoint URL --table NAME` against a table that exists but was never loaded (as
 * a stack's table is before the operator's first `npm run load`): its banner says not ready, naming
 * why and the command that loads it, as its /health does (DEGRADED, SCHEMA_VERSION_MISSING); once
 * a load completes, /health says OK.
 */
const ROOT = path.resolve(__dirname, '../..');
const TABLE = 'unloaded-records';

let store: EmbeddedStore;
let client: DynamoDBClient;
let server: ChildProcess;
let keyDir: string;
let output = '';
let banner = '';

beforeAll(async () => {
  keyDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-readiness-'));
  store = await startEmbeddedStore();
  client = localClient(store.endpoint);
  await ensureTable(client, TABLE);
  server = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/serve.ts'), '--endpoint', store.endpoint, '--table', TABLE], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOCAL_DATA_DIR: keyDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not finish starting within 60 s:\n${output}`)), 60_000);
    server.stdout!.on('data', () => {
      if (output.includes('Ctrl-C stops everything.')) {
        clearTimeout(timer);
        resolve(output);
      }
    });
    server.once('exit', (code) => reject(new Error(`npm start ended (${code}) before listening:\n${output}`)));
  });
}, 90_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGINT');
    await exited;
  }
  client?.destroy();
  await store?.close();
  rmSync(keyDir, { recursive: true, force: true });
});

const url = () => /service on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1];
const health = async () => (await (await fetch(`${url()}/health`)).json()) as { status: string; readiness: { persistence: string } };

test('the banner and /health agree: not ready until a load completes, naming why and how to load; OK once loaded', async () => {
  expect(banner).toContain('Not ready: /health says DEGRADED (persistence SCHEMA_VERSION_MISSING)');
  expect(banner).toContain(`npm run load -- FILE --endpoint ${store.endpoint} --table ${TABLE}`);
  expect(banner).not.toContain('Ready: /health says OK');
  expect(await health()).toMatchObject({ status: 'DEGRADED', readiness: { persistence: 'SCHEMA_VERSION_MISSING' } });

  const { signer } = await devLedgerSigner(keyDir);
  await loadDocument(demoDocument(new Date()), { client, table: TABLE, signer });
  expect(await health()).toMatchObject({ status: 'OK', readiness: { persistence: 'READY' } });
}, 60_000);
