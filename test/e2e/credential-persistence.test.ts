import { ErrorResponse } from '../../functions/contract/schemas/common';
import { DEMO_CREDENTIALS, DEMO_STATUS_LISTS } from '../../fixtures/demo-credentials';
import { startLocalServer, type LocalServer } from '../../lib/local/server';
import { getJson, unusedPort } from '../support/local';

/**
 * The credential routes fail closed: with no table configured, or a store that does not answer,
 * every one of them is a 503 problem, never a cached or guessed answer. Real HTTP, real handlers,
 * real AWS SDK; the "store" is a port nobody listens on.
 */
const ROUTES = [
  `/v1/credentials/verify/${DEMO_CREDENTIALS.active}`,
  `/v1/portable-credentials/${DEMO_CREDENTIALS.active}/vc.json`,
  `/v1/status-lists/${DEMO_STATUS_LISTS.revocation}`,
];

let server: LocalServer;
beforeAll(async () => {
  process.env.AWS_REGION = 'eu-central-1';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  delete process.env.TABLE_NAME;
  server = await startLocalServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

function expect503(res: { status: number; headers: Headers; body: any }, code: string) {
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(ErrorResponse.safeParse(res.body).success).toBe(true);
  expect(res.body).toMatchObject({ status: 503, code });
  expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|\/work\/|node_modules|Error:/);
}

describe('credential routes without persistence', () => {
  it('answer 503 PERSISTENCE_NOT_CONFIGURED when no table is configured', async () => {
    for (const route of ROUTES) expect503(await getJson(`${server.url}${route}`), 'PERSISTENCE_NOT_CONFIGURED');
  });

  it('still validate input first: a bad claim identifier is a 400, not a 503', async () => {
    const res = await getJson(`${server.url}/v1/credentials/verify/x`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_CLAIM_ID');
  });

  it('answer 503 DEPENDENCY_UNAVAILABLE, with Retry-After, when the store does not answer', async () => {
    process.env.TABLE_NAME = 'trust-records';
    process.env.AWS_ENDPOINT_URL_DYNAMODB = `http://127.0.0.1:${await unusedPort()}`;
    for (const route of ROUTES) {
      const res = await getJson(`${server.url}${route}`);
      expect503(res, 'DEPENDENCY_UNAVAILABLE');
      expect(res.headers.get('retry-after')).toBe('1');
    }
  });
});
