import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ErrorResponse } from '../../functions/contract/schemas/common';
import { ActivationReadiness, ProductionFoundations } from '../../functions/contract/schemas/surfaces';
import { GENESIS_SK, TABLE_META_PK, TABLE_SCHEMA_VERSION } from '../../functions/store/layout';
import { ensureTable } from '../../functions/store/write';
import { demoObjectRecords, DEMO_OBJECTS } from '../../fixtures/demo';
import { loadDocument } from '../../lib/loader/load';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { startLocalServer, type LocalServer } from '../../lib/local/server';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';
import { getJson } from '../support/local';

/**
 * The readiness reports against a real DynamoDB-compatible store: loaded, empty, older schema,
 * missing table, not configured, and finally the store gone (its port closed).
 */
const SAVED_ENV = { ...process.env };
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let store: EmbeddedStore;
let server: LocalServer;

beforeAll(async () => {
  store = await startEmbeddedStore();
  configureLocalEnvironment(store.endpoint, 'readiness-records');
  const client = localClient(store.endpoint);
  await loadDocument({ records: [demoObjectRecords(new Date())[0]] }, { client, table: 'readiness-records', createTable: true });
  await ensureTable(client, 'readiness-empty');
  await ensureTable(client, 'readiness-older');
  await client.send(new PutItemCommand({ TableName: 'readiness-older', Item: { pk: { S: TABLE_META_PK }, sk: { S: GENESIS_SK }, schemaVersion: { S: 'svc.table.v0' } } }));
  client.destroy();
  server = await startLocalServer();
});

afterAll(async () => {
  await server?.close();
  await store?.close();
  process.env = SAVED_ENV;
});

const foundations = async () => {
  const res = await getJson(`${server.url}/v1/activation-readiness/production-foundations`);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(ProductionFoundations.safeParse(res.body).success).toBe(true);
  return res.body as ProductionFoundations;
};

test('a loaded table at the expected schema version is READY', async () => {
  const doc = await foundations();
  expect(doc.status).toBe('READY');
  expect(doc.persistence).toMatchObject({ status: 'READY', schemaVersion: { expected: TABLE_SCHEMA_VERSION, found: TABLE_SCHEMA_VERSION } });
  expect(doc.persistence.durationMs).toEqual(expect.any(Number));
  expect(doc.authorities.every((a) => a.status === 'FAIL_CLOSED')).toBe(true);
  expect(JSON.stringify(doc)).not.toContain('readiness-records');
  expect(JSON.stringify(doc)).not.toContain(store.endpoint);
});

test('a table that was never loaded, or loaded by an older release, is reachable but NOT_READY', async () => {
  process.env.TABLE_NAME = 'readiness-empty';
  expect((await foundations()).persistence).toMatchObject({ status: 'SCHEMA_VERSION_MISSING', schemaVersion: { found: null } });
  process.env.TABLE_NAME = 'readiness-older';
  const older = await foundations();
  expect(older.persistence).toMatchObject({ status: 'SCHEMA_VERSION_MISMATCH', schemaVersion: { expected: TABLE_SCHEMA_VERSION, found: 'svc.table.v0' } });
  expect(older.persistence.checks.find((c) => c.key === 'TABLE_REACHABLE')?.outcome).toBe('PASS');
});

test('a configured table that does not exist is TABLE_NOT_FOUND, without naming it', async () => {
  process.env.TABLE_NAME = 'readiness-nowhere';
  const doc = await foundations();
  expect(doc.persistence.status).toBe('TABLE_NOT_FOUND');
  expect(JSON.stringify(doc)).not.toContain('readiness-nowhere');
});

test('with no table configured the report says so, and reads answer 503', async () => {
  delete process.env.TABLE_NAME;
  const doc = await foundations();
  expect(doc.persistence).toMatchObject({ status: 'NOT_CONFIGURED', durationMs: null });
  const verify = await getJson(`${server.url}/verify?reference=${DEMO_OBJECTS.current}`);
  expect(verify.status).toBe(503);
  expect(verify.body.code).toBe('PERSISTENCE_NOT_CONFIGURED');
  process.env.TABLE_NAME = 'readiness-records';
});

test('identity and wallet settings report presence and form, never values', async () => {
  const values = {
    OIDC_ISSUER_URL: 'https://idp.readiness.test/realm',
    OIDC_CLIENT_ID: 'client-7f3a9c',
    OIDC_CLIENT_SECRET_ARN: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:oidc-9Zq1Xy',
    OPENID4VP_VERIFIER_CLIENT_ID: 'verifier-5d21e0',
    OPENID4VP_RESPONSE_URI: 'ftp://wallet.readiness.test/response',
  };
  Object.assign(process.env, values);
  try {
    const res = await getJson(`${server.url}/v1/activation-readiness`);
    expect(res.status).toBe(200);
    expect(ActivationReadiness.safeParse(res.body).success).toBe(true);
    const status = Object.fromEntries((res.body as ActivationReadiness).gates.map((g) => [g.key, g.status]));
    expect(status).toEqual({ IDENTITY_OIDC: 'CONFIGURED', WALLET_OPENID4VCI: 'NOT_CONFIGURED', WALLET_OPENID4VP: 'MISCONFIGURED' });
    const text = JSON.stringify(res.body);
    for (const value of Object.values(values)) expect(text).not.toContain(value);
    expect(text).not.toContain('readiness.test');
  } finally {
    for (const name of Object.keys(values)) delete process.env[name];
  }
});

test('when the store is gone the report still answers 200 and says UNREACHABLE; pages answer 503', async () => {
  await store.close();

  const doc = await foundations();
  expect(doc.status).toBe('NOT_READY');
  expect(doc.persistence.status).toBe('UNREACHABLE');
  expect(doc.persistence.checks.map((c) => c.outcome)).toEqual(['PASS', 'FAIL', 'SKIPPED']);
  expect(doc.authorities.every((a) => a.status === 'FAIL_CLOSED')).toBe(true);

  const studio = await fetch(`${server.url}/studio`);
  expect(studio.status).toBe(200);
  expect(await studio.text()).toContain('UNREACHABLE');

  const receipt = await getJson(`${server.url}/trust-receipt/${DEMO_OBJECTS.current}`);
  expect(receipt.status).toBe(503);
  expect(receipt.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(receipt.headers.get('retry-after')).toBe('1');
  expect(ErrorResponse.safeParse(receipt.body).success).toBe(true);
  expect(receipt.body.code).toBe('DEPENDENCY_UNAVAILABLE');

  const page = await fetch(`${server.url}/verify?reference=${DEMO_OBJECTS.current}`, { headers: { accept: BROWSER_ACCEPT } });
  expect(page.status).toBe(503);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('retry-after')).toBe('1');
  const body = await page.text();
  expect(body).toContain(page.headers.get('x-correlation-id')!);
  expect(body).toContain('role="alert"');
});
