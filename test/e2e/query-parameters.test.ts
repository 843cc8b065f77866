import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import type { LocalService } from '../../lib/local/service';
import { getJson, startTestService } from '../support/local';

/**
 * Strict query parameters on the JSON API and lenient pages, the '+' hint and the case hint,
 * through HTTP. The service reads its store through a proxy that counts DynamoDB requests, so the
 * case hint is shown to cost a read only on a miss.
 */
let store: EmbeddedStore;
let proxy: http.Server;
let service: LocalService;
const targets: string[] = [];

beforeAll(async () => {
  store = await startEmbeddedStore();
  const upstream = new URL(store.endpoint);
  proxy = http.createServer((req, res) => {
    targets.push(String(req.headers['x-amz-target'] ?? ''));
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  service = await startTestService(new Date(), { endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, loadDemo: true, sequencer: false });
}, 120_000);

afterAll(async () => {
  await service?.close();
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await store?.close();
});

const get = (path: string) => getJson(`${service.url}${path}`);

/** DynamoDB requests the store received while `run` ran. */
async function storeRequestsOf(run: () => Promise<unknown>): Promise<string[]> {
  const from = targets.length;
  await run();
  return targets.slice(from).map((target) => target.replace(/^DynamoDB_\d+\./, ''));
}

describe('the JSON API refuses query parameters it does not read', () => {
  test('?asof= (a case slip) is a 400 that names asOf, not the current view', async () => {
    const res = await get(`/v1/objects/${DEMO_OBJECTS.current}?asof=2026-11-25T00:00:00Z`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'UNKNOWN_PARAMETER', parameter: 'asof', knownParameters: ['asOf', 'limit'], didYouMean: 'asOf', endpoint: '/v1/objects/{reference}' });
    expect(res.body.detail).toContain("did you mean 'asOf'?");
  });

  test('?foo=1 is a 400 naming the parameters the route reads, on every JSON route', async () => {
    const object = await get(`/v1/objects/${DEMO_OBJECTS.current}?foo=1`);
    expect([object.status, object.body.code, object.body.knownParameters]).toEqual([400, 'UNKNOWN_PARAMETER', ['asOf', 'limit']]);
    expect(object.body.detail).toBe("Unknown query parameter 'foo'. This endpoint reads 'asOf', 'limit'.");
    for (const path of ['/health', '/v1/ledger', '/v1/commercial-proofs/PRF-2026-0101', '/v1/credentials/verify/CRED-2026-0001', '/v1/status-lists/demo-2026-revocation', '/developers/assets.json']) {
      const res = await get(`${path}?foo=1`);
      expect([path, res.status, res.body.code]).toEqual([path, 400, 'UNKNOWN_PARAMETER']);
    }
    const post = await getJson(`${service.url}/developers/sandbox/test-clock?foo=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect([post.status, post.body.code]).toEqual([400, 'UNKNOWN_PARAMETER']);
  });

  test('the parameters a route reads still work', async () => {
    expect((await get(`/v1/objects/${DEMO_OBJECTS.longHistory}?limit=5`)).status).toBe(200);
    expect((await get(`/v1/objects/${DEMO_OBJECTS.current}?asOf=${new Date(Date.now() - 86_400_000).toISOString()}`)).status).toBe(200);
  });

  test("an instant whose '+' arrived as a space is told to send %2B", async () => {
    const res = await get(`/v1/objects/${DEMO_OBJECTS.current}?asOf=2026-11-25T10:00:00+02:00`);
    expect([res.status, res.body.code, res.body.parameter]).toEqual([400, 'INVALID_PARAMETER', 'asOf']);
    expect(res.body.detail).toContain("its '+' arrived as a space: in a query string send it as %2B.");
    expect((await get(`/v1/objects/${DEMO_OBJECTS.current}?asOf=2026-11-25T10:00:00%2B02:00`)).status).toBe(200);
  });
});

describe('the pages people open ignore parameters they do not use', () => {
  test.each([['/'], ['/developers'], [`/trust-receipt/${DEMO_OBJECTS.current}`], [`/verify?reference=${DEMO_OBJECTS.current}`], ['/studio'], ['/developers/reference']])(
    '%s with tracking parameters answers as without them',
    async (path) => {
      const tracked = `${path}${path.includes('?') ? '&' : '?'}utm_source=receipt&utm_medium=qr&fbclid=x1`;
      const res = await fetch(`${service.url}${tracked}`, { headers: { accept: 'text/html' } });
      expect([tracked, res.status]).toEqual([tracked, 200]);
    },
  );

  test('documents and the tile log are files: a query string changes nothing', async () => {
    expect((await fetch(`${service.url}/developers/openapi.json?v=2`)).status).toBe(200);
    expect((await fetch(`${service.url}/ledger/checkpoint?cache=bust`)).status).toBe(200);
  });
});

describe('references are case-sensitive', () => {
  test('ord-2026-0001 answers 404 naming ORD-2026-0001, one more store read than a hit', async () => {
    const hit = await storeRequestsOf(async () => expect((await get(`/v1/objects/${DEMO_OBJECTS.current}`)).status).toBe(200));
    let miss: Awaited<ReturnType<typeof get>> | undefined;
    const missReads = await storeRequestsOf(async () => {
      miss = await get(`/v1/objects/${DEMO_OBJECTS.current.toLowerCase()}`);
    });
    expect(miss!.status).toBe(404);
    expect(miss!.body).toMatchObject({ code: 'NOT_FOUND', didYouMean: DEMO_OBJECTS.current });
    expect(miss!.body.detail).toContain(`References are case-sensitive: did you mean '${DEMO_OBJECTS.current}'?`);
    expect(hit.length).toBeGreaterThan(0);
    expect(missReads).toEqual([...hit, ...hit]);
  });

  test('a lower-case reference held by nobody, even upper-cased, is a plain 404', async () => {
    const res = await get('/v1/objects/ord-2099-9999');
    expect(res.status).toBe(404);
    expect(res.body).not.toHaveProperty('didYouMean');
    expect(res.body.detail).not.toContain('case-sensitive');
  });

  test('credentials, their VC projection and commercial proofs say so too', async () => {
    for (const [path, meant] of [
      ['/v1/credentials/verify/cred-2026-0001', 'CRED-2026-0001'],
      ['/v1/portable-credentials/cred-2026-0001/vc.json', 'CRED-2026-0001'],
      ['/v1/commercial-proofs/prf-2026-0101', 'PRF-2026-0101'],
    ]) {
      const res = await get(path);
      expect([path, res.status, res.body.didYouMean]).toEqual([path, 404, meant]);
    }
  });
});
