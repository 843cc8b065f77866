import net from 'node:net';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { MAX_BODY_BYTES } from '../../functions/http/request-guards';
import { CORS_EXPOSED_HEADERS } from '../../functions/http/cors';
import { operations } from '../../functions/contract/operations';
import type { LocalService } from '../../lib/local/service';
import { startLocalServer, type LocalServer } from '../../lib/local/server';
import { getJson, startTestService } from '../support/local';
import { rawRequest } from '../support/raw-http';

let service: LocalService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.close());

const url = (path: string) => `${service.url}${path}`;

function expectProblem(res: { status: number; headers: Record<string, string> | Headers; body: unknown }, status: number, code: string) {
  const header = (name: string) => (res.headers instanceof Headers ? res.headers.get(name) : res.headers[name]);
  expect(res.status).toBe(status);
  expect(header('content-type')).toMatch(/^application\/problem\+json/);
  const body = (typeof res.body === 'string' ? JSON.parse(res.body) : res.body) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, service: 'public-trust-verification-service' });
  expect(typeof body.correlationId).toBe('string');
  expect(header('x-correlation-id')).toBe(body.correlationId);
  return body;
}

describe('requests that used to stop the process', () => {
  test('a target starting with // (read by URL parsers as an authority) is a 404 problem, and the service goes on', async () => {
    const res = await rawRequest(service.url, 'GET //x@]%23 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
    expectProblem(res!, 404, 'ROUTE_NOT_FOUND');
    expect((await fetch(url('/health'))).status).toBe(200);
  });

  test.each([
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n', 400, 'MALFORMED_REQUEST'],
    ['a header without a colon', 'GET /health HTTP/1.1\r\nHost: a\r\nbroken header\r\n\r\n', 400, 'MALFORMED_REQUEST'],
    ['a control character in the target', 'GET /he\x01alth HTTP/1.1\r\nHost: a\r\n\r\n', 400, 'MALFORMED_REQUEST'],
    ['headers over the parser limit', `GET /health HTTP/1.1\r\nHost: a\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
  ])('%s gets problem details from the edge', async (_what, bytes, status, code) => {
    const res = await rawRequest(service.url, bytes);
    expectProblem(res!, status, code);
    expect((await fetch(url('/health'))).status).toBe(200);
  });

  test('an absolute-form target is served by its path', async () => {
    const res = await rawRequest(service.url, `GET http://example.test/v1/objects/${DEMO_OBJECTS.current} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
    expect(res!.status).toBe(200);
  });

  test('a client that hangs up in the middle of a body leaves the service answering', async () => {
    const { port } = new URL(service.url);
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => {
        socket.write('POST /developers/sandbox/test-clock HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"adv');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    expect((await fetch(url('/health'))).status).toBe(200);
  });
});

describe('bodies are bounded', () => {
  test('a declared length over the cap is refused with 413 before any byte of the body is read', async () => {
    const res = await rawRequest(service.url, `POST /developers/sandbox/test-clock HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY_BYTES * 100}\r\n\r\n`);
    const body = expectProblem(res!, 413, 'PAYLOAD_TOO_LARGE');
    expect(body.maxBodyBytes).toBe(MAX_BODY_BYTES);
    expect(res!.headers.connection).toBe('close');
  });

  test('a chunked body is refused as soon as it passes the cap, while the client is still sending', async () => {
    const { port } = new URL(service.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let received = '';
      let sent = 0;
      socket.on('data', (d) => (received += d.toString()));
      socket.on('close', () => resolve(received));
      socket.on('error', () => undefined);
      socket.write('POST /developers/sandbox/test-clock HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = 'x'.repeat(16 * 1024);
      // Keeps sending (up to 64x the cap) until the server answers; it must answer long before.
      const pump = setInterval(() => {
        if (received.length > 0 || sent > MAX_BODY_BYTES * 64 || socket.destroyed) return clearInterval(pump);
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        sent += chunk.length;
      }, 1);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
  });

  test('a body that stalls gets 408 problem details', async () => {
    const server: LocalServer = await startLocalServer({ bodyTimeoutMs: 300 });
    try {
      const res = await rawRequest(server.url, 'POST /developers/sandbox/test-clock HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{"a', { timeoutMs: 5000 });
      expectProblem(res!, 408, 'REQUEST_TIMEOUT');
    } finally {
      await server.close();
    }
  });

  test('headers that never finish get 408 problem details', async () => {
    const server: LocalServer = await startLocalServer({ headersTimeoutMs: 300 });
    try {
      const res = await rawRequest(server.url, 'GET /health HTTP/1.1\r\nHost: a\r\n', { timeoutMs: 5000 });
      expectProblem(res!, 408, 'REQUEST_TIMEOUT');
    } finally {
      await server.close();
    }
  });
});

describe('HEAD on every GET route', () => {
  const getRoutes = operations.filter((op) => op.method === 'GET');
  const concrete = (path: string) =>
    path.replace('{reference}', DEMO_OBJECTS.current).replace('{claimId}', 'CRED-2026-0001').replace('{listId}', 'demo-2026-revocation');

  test.each(getRoutes.map((op) => [op.operationId, concrete(op.path)]))('%s: same status and headers as GET, no body', async (_id, path) => {
    const get = await rawRequest(service.url, `GET ${path} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
    const head = await rawRequest(service.url, `HEAD ${path} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`, { head: true });
    expect(head!.status).toBe(get!.status);
    expect(head!.body).toBe('');
    for (const name of ['content-type', 'cache-control', 'access-control-allow-origin', 'link', 'content-security-policy']) {
      expect([name, head!.headers[name]]).toEqual([name, get!.headers[name]]);
    }
  });
});

describe('CORS', () => {
  test('GET, POST and problem answers are readable from any origin and expose the headers clients need', async () => {
    const answers = [
      await fetch(url(`/v1/objects/${DEMO_OBJECTS.current}`), { headers: { origin: 'https://wallet.example' } }),
      await fetch(url('/developers/catalogue.json')),
      await fetch(url('/developers/sandbox/test-clock'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      await fetch(url('/v1/objects/AB')),
      await fetch(url('/nowhere')),
    ];
    for (const res of answers) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('access-control-expose-headers')!.split(', ')).toEqual(CORS_EXPOSED_HEADERS);
    }
  });

  test('a preflight is answered 204 with the path methods and the headers a client may send', async () => {
    const res = await fetch(url('/developers/sandbox/test-clock'), {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toContain('content-type');
    const get = await fetch(url(`/v1/objects/${DEMO_OBJECTS.current}`), { method: 'OPTIONS' });
    expect(get.status).toBe(204);
    expect(get.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    expectProblem(await getJson(url('/nowhere'), { method: 'OPTIONS' }), 404, 'ROUTE_NOT_FOUND');
  });

  test('another method on a known path is 405 naming HEAD and OPTIONS too', async () => {
    const res = await getJson(url('/health'), { method: 'DELETE' });
    expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('compression', () => {
  const ask = (path: string, acceptEncoding: string) =>
    rawRequest(service.url, `GET ${path} HTTP/1.1\r\nHost: a\r\nAccept-Encoding: ${acceptEncoding}\r\nConnection: close\r\n\r\n`);

  test.each([
    ['br, gzip', 'br'],
    ['gzip', 'gzip'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['identity', undefined],
  ])('Accept-Encoding %s gives %s for a large document and a large JSON answer', async (accept, expected) => {
    for (const path of ['/developers/openapi.json', `/v1/objects/${DEMO_OBJECTS.longHistory}`]) {
      const res = (await ask(path, accept))!;
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(expected);
      expect(res.headers.vary).toContain('Accept-Encoding');
      expect(() => JSON.parse(res.body)).not.toThrow();
    }
  });

  test('small answers are sent as they are', async () => {
    const res = (await ask('/v1/objects/AB', 'br, gzip'))!;
    expect(res.headers['content-encoding']).toBeUndefined();
  });
});

describe('what a newcomer trips over', () => {
  test('a repeated query parameter is refused, not silently reduced to one value', async () => {
    const res = await getJson(url(`/v1/objects/${DEMO_OBJECTS.current}?asOf=2026-01-01T00:00:00Z&asOf=2026-02-01T00:00:00Z`));
    expect(expectProblem(res, 400, 'INVALID_PARAMETER').parameter).toBe('asOf');
  });

  test('a form-encoded body (curl -d without a content type) on a JSON operation is 415', async () => {
    const res = await getJson(url('/developers/sandbox/test-clock'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"advanceMs":1}',
    });
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const ok = await getJson(url('/developers/sandbox/test-clock'), { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"advanceMs":1}' });
    expect(ok.status).toBe(200);
  });

  test('an object answer carries an ETag; revalidating an unchanged view gets 304', async () => {
    const current = await fetch(url(`/v1/objects/${DEMO_OBJECTS.current}`));
    const etag = current.headers.get('etag')!;
    // A current view names the instant it was evaluated at, so its tag is weak; an as-of view is the same bytes every time.
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{43}"$/);
    const again = await fetch(url(`/v1/objects/${DEMO_OBJECTS.current}`), { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');

    const asOf = `/v1/objects/${DEMO_OBJECTS.current}?asOf=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`;
    const first = await fetch(url(asOf));
    const strong = first.headers.get('etag')!;
    expect(strong).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect((await fetch(url(asOf), { headers: { 'if-none-match': strong } })).status).toBe(304);
    expect((await fetch(url(asOf), { headers: { 'if-none-match': '"something-else"' } })).status).toBe(200);
    expect((await fetch(url(`/v1/objects/${DEMO_OBJECTS.revoked}`), { headers: { 'if-none-match': etag } })).status).toBe(200);
  });
});

describe('the documents name the URL the service is reached at', () => {
  test('the OpenAPI servers, the catalogue and its endpoints name this service\'s own URL (a free port, not 3000)', async () => {
    expect(service.url).not.toBe('http://127.0.0.1:3000');
    const contract = await getJson(url('/developers/openapi.json'));
    expect(contract.status).toBe(200);
    expect(contract.body.servers.map((s: { url: string }) => s.url)).toEqual([service.url, service.url]);
    const catalogue = await getJson(url('/developers/catalogue.json'));
    expect(catalogue.body.baseUrl).toBe(service.url);
    expect(catalogue.body.origins).toEqual({ verification: service.url, general: service.url });
    for (const endpoint of catalogue.body.endpoints) expect(endpoint.baseUrl).toBe(service.url);
  });
});
