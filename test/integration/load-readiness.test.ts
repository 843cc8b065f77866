import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { demoDocument, DEMO_OBJECTS } from '../../fixtures/demo';
import { Health } from '../../functions/contract/schemas/health';
import { tableStores } from '../../functions/store/dynamodb';
import { ensureTable } from '../../functions/store/write';
import { loadDocument } from '../../lib/loader/load';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { startLocalServer, type LocalServer } from '../../lib/local/server';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { getJson } from '../support/local';

/**
 * "Loaded" means a load completed: a table that exists (as on AWS before the operator's first
 * `npm run load`), and one a load stopped part-way through, answer /health DEGRADED, naming why
 * (SCHEMA_VERSION_MISSING, the production-foundations check saying no load completed), though the
 * stopped load wrote records already; the same load run again finishes it and /health says OK.
 */
const SAVED_ENV = { ...process.env };
const TABLE = 'load-readiness';
const ANCHOR = new Date('2026-11-20T10:00:00Z');

let store: EmbeddedStore;
let server: LocalServer;
let client: DynamoDBClient;
let keyDir: string;

beforeAll(async () => {
  keyDir = mkdtempSync(path.join(os.tmpdir(), 'load-readiness-'));
  store = await startEmbeddedStore();
  configureLocalEnvironment(store.endpoint, TABLE);
  client = localClient(store.endpoint);
  // The table exists before any load, as the stack creates it before the operator's first load.
  await ensureTable(client, TABLE);
  server = await startLocalServer();
});

afterAll(async () => {
  client?.destroy();
  await server?.close();
  await store?.close();
  process.env = SAVED_ENV;
  rmSync(keyDir, { recursive: true, force: true });
});

async function health(): Promise<Health> {
  const res = await getJson(`${server.url}/health`);
  expect(res.status).toBe(200);
  expect(Health.safeParse(res.body).success).toBe(true);
  return res.body as Health;
}

async function schemaCheck(): Promise<string> {
  const res = await getJson(`${server.url}/v1/activation-readiness/production-foundations`);
  return res.body.persistence.checks.find((c: { key: string }) => c.key === 'SCHEMA_VERSION').detail;
}

test('a table with no completed load is DEGRADED naming why, even with records in it; the load run again makes it OK', async () => {
  expect([(await health()).status, (await health()).readiness.persistence]).toEqual(['DEGRADED', 'SCHEMA_VERSION_MISSING']);

  // A load that dies after its first batches: the record store fails on its third write.
  const { signer } = await devLedgerSigner(keyDir);
  const stores = tableStores(client, TABLE);
  let writes = 0;
  const failing = {
    ...stores.records,
    async write(...args: Parameters<typeof stores.records.write>) {
      if (++writes === 3) throw new Error('the loader was stopped');
      return stores.records.write(...args);
    },
  };
  const document = demoDocument(ANCHOR);
  await expect(loadDocument(document, { stores: { records: failing, ledger: stores.ledger }, signer, chunkRecords: 2 })).rejects.toThrow('the loader was stopped');
  // Records of the first batches are readable: a reader could see data, but the service says it is not ready.
  const first = (document.records[0] as { reference: string }).reference;
  expect((await getJson(`${server.url}/v1/objects/${first}`)).status).toBe(200);
  const halfway = await health();
  expect([halfway.status, halfway.readiness.persistence]).toEqual(['DEGRADED', 'SCHEMA_VERSION_MISSING']);
  expect(await schemaCheck()).toContain('no load into it has completed');

  await loadDocument(document, { client, table: TABLE, signer });
  const loaded = await health();
  expect([loaded.status, loaded.readiness.persistence]).toEqual(['OK', 'READY']);
  expect((await getJson(`${server.url}/v1/objects/${DEMO_OBJECTS.current}`)).status).toBe(200);
}, 60_000);
