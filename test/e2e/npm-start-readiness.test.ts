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
import { npmStart, type NpmStart } from '../support/npm-start';

/**
 * `npm start -- --endpoint URL --table NAME` against a table that exists but was never loaded (as
 * a stack's table is before the operator's first `npm run load`): its banner says not ready, naming
 * why and the command that loads it, as its /health does (DEGRADED, SCHEMA_VERSION_MISSING); once
 * a load completes, /health says OK.
 */
const TABLE = 'unloaded-records';

let store: EmbeddedStore;
let client: DynamoDBClient;
let service: NpmStart;
let keyDir: string;

beforeAll(async () => {
  keyDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-readiness-'));
  store = await startEmbeddedStore();
  client = localClient(store.endpoint);
  await ensureTable(client, TABLE);
  service = await npmStart(['--endpoint', store.endpoint, '--table', TABLE], { ...process.env, LOCAL_DATA_DIR: keyDir });
}, 90_000);

afterAll(async () => {
  await service?.stop();
  client?.destroy();
  await store?.close();
  rmSync(keyDir, { recursive: true, force: true });
});

const health = async () => (await (await fetch(`${service.url}/health`)).json()) as { status: string; readiness: { persistence: string } };

test('the banner and /health agree: not ready until a load completes, naming why and how to load; OK once loaded', async () => {
  expect(service.banner).toContain('Not ready: /health says DEGRADED (persistence SCHEMA_VERSION_MISSING)');
  expect(service.banner).toContain(`npm run load -- FILE --endpoint ${store.endpoint} --table ${TABLE}`);
  expect(service.banner).not.toContain('Ready: /health says OK');
  expect(await health()).toMatchObject({ status: 'DEGRADED', readiness: { persistence: 'SCHEMA_VERSION_MISSING' } });

  const { signer } = await devLedgerSigner(keyDir);
  await loadDocument(demoDocument(new Date()), { client, table: TABLE, signer });
  expect(await health()).toMatchObject({ status: 'OK', readiness: { persistence: 'READY' } });
}, 60_000);
