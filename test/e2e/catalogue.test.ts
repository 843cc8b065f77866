import { operations } from '../../functions/contract/operations';
import { ErrorResponse } from '../../functions/contract/schemas/common';
import { DEMO_RESTRICTED_VALUES } from '../../fixtures/demo';
import { DEMO_CREDENTIAL_RESTRICTED_VALUES } from '../../fixtures/demo-credentials';
import { candidateUrls, exampleBodyFor, request, startCatalogueService, type CatalogueFixture } from './catalogue-support';

let fx: CatalogueFixture;
beforeAll(async () => {
  fx = await startCatalogueService();
});
afterAll(async () => {
  await fx.close();
});

const documentRoutes = () => operations.filter((op) => op.method === 'GET' && op.path.startsWith('/developers/'));
const catalogue = () => JSON.parse(fx.site.get('developers/catalogue.json')!);

function expectProblem(res: { status: number; headers: Headers; json: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(ErrorResponse.safeParse(res.json).success).toBe(true);
  expect(res.json.code).toBe(code);
}

describe('catalogue.json is true', () => {
  test('it lists exactly the endpoints of the contract table, with their liveState', async () => {
    const res = await request(fx.service.url, 'GET', '/developers/catalogue.json');
    expect(res.status).toBe(200);
    const listed = res.json.endpoints.map((e: any) => `${e.method} ${e.path} ${e.liveState}`);
    expect(listed).toEqual(operations.map((op) => `${op.method} ${op.path} ${op.liveState}`));
  });

  test('every endpoint it calls LIVE is served (no ROUTE_NOT_FOUND, no 405, no 5xx)', async () => {
    const live = catalogue().endpoints.filter((e: any) => e.liveState === 'LIVE');
    expect(live.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const endpoint of live) {
      const [url] = candidateUrls(endpoint, fx.sources);
      const body = endpoint.method === 'POST' ? exampleBodyFor(url, fx.sources) : undefined;
      const res = await request(fx.service.url, endpoint.method, url, body);
      const notServed = res.status >= 500 || res.status === 405 || (res.status === 404 && res.json?.code === 'ROUTE_NOT_FOUND');
      if (notServed) failures.push(`${endpoint.method} ${url} -> ${res.status} ${res.json?.code ?? ''}`);
    }
    expect(failures).toEqual([]);
  });

  test('every quickstart step answers the status it promises', async () => {
    const { quickstarts } = catalogue();
    expect(quickstarts.schemaVersion).toBe('svc.developer-quickstarts.v1');
    expect(quickstarts.quickstarts.map((q: any) => q.id)).toEqual(
      expect.arrayContaining(['check-a-living-object', 'check-a-commercial-proof', 'verify-a-credential', 'read-the-contracts', 'try-the-sandbox']),
    );
    for (const step of quickstarts.quickstarts.flatMap((q: any) => q.steps)) {
      const res = await request(fx.service.url, step.method, step.url, step.method === 'POST' ? step.body : undefined);
      expect(`${step.method} ${step.url} ${res.status}`).toBe(`${step.method} ${step.url} ${step.expectStatus}`);
    }
  });
});

describe('developer documents over HTTP', () => {
  test('each is served from the build with its media type (JSON unless declared otherwise), ETag and Cache-Control, and 304 on a matching If-None-Match', async () => {
    for (const op of documentRoutes().filter((o) => o.integration.kind === 'document')) {
      const key = op.path.slice(1);
      const first = await request(fx.service.url, 'GET', op.path);
      expect(`${op.path} ${first.status}`).toBe(`${op.path} 200`);
      expect(`${op.path} ${first.headers.get('content-type')?.split(';')[0]}`).toBe(`${op.path} ${op.response.mediaType ?? 'application/json'}`);
      expect(first.text).toBe(fx.site.get(key));
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      expect(first.headers.get('cache-control')).toBe('public, max-age=300');

      const again = await request(fx.service.url, 'GET', op.path, undefined, { 'if-none-match': etag });
      expect(`${op.path} ${again.status}`).toBe(`${op.path} 304`);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('cache-control')).toBe('public, max-age=300');

      const stale = await request(fx.service.url, 'GET', op.path, undefined, { 'if-none-match': '"0123456789abcdef0123456789abcdef"' });
      expect(stale.status).toBe(200);
    }
  });

  test('document responses carry the same header set API Gateway passes through from the bucket', async () => {
    const res = await fetch(`${fx.service.url}/developers/openapi.json`);
    const names = [...res.headers.keys()].filter((h) => !['connection', 'date', 'keep-alive', 'transfer-encoding', 'content-length'].includes(h)).sort();
    // The bucket's headers, the CORS headers the gateway adds to every answer, and compression (fetch accepts br and gzip).
    expect(names).toEqual([
      'access-control-allow-origin',
      'access-control-expose-headers',
      'cache-control',
      'content-encoding',
      'content-type',
      'etag',
      'vary',
      'x-content-type-options',
      'x-correlation-id',
    ]);
    await res.arrayBuffer();
  });

  test('no catalogue route accepts a write: 405 problem details naming GET (and HEAD, OPTIONS) in Allow', async () => {
    for (const op of documentRoutes()) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await request(fx.service.url, method, op.path, {});
        expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
        expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      }
    }
  });

  test('no document carries personal or payment data', () => {
    const restricted = [...DEMO_RESTRICTED_VALUES, ...DEMO_CREDENTIAL_RESTRICTED_VALUES];
    for (const [key, bytes] of fx.site) for (const value of restricted) expect(`${key}: ${bytes.includes(value)}`).toBe(`${key}: false`);
  });
});

describe('assets.json filters', () => {
  const get = (query: string, headers: Record<string, string> = {}) => request(fx.service.url, 'GET', `/developers/assets.json${query}`, undefined, headers);

  test('unfiltered, it is the built document, byte for byte, with the same ETag', async () => {
    const res = await get('');
    expect(res.status).toBe(200);
    expect(res.text).toBe(fx.site.get('developers/assets.json'));
    const fromBucket = await request(fx.service.url, 'GET', '/developers/catalogue.json');
    expect(res.headers.get('cache-control')).toBe(fromBucket.headers.get('cache-control'));
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
  });

  test.each(['assetType', 'lifecycle', 'reuseScope', 'commercialDisposition', 'tag'])('%s really filters, for every value it offers', async (filter) => {
    const all = (await get('')).json;
    for (const value of all.vocabularies[filter]) {
      const res = await get(`?${filter}=${encodeURIComponent(value)}`);
      expect(res.status).toBe(200);
      const expected = all.assets.filter((a: any) => (filter === 'tag' ? a.tags.includes(value) : a[filter] === value));
      expect(res.json.assets).toEqual(expected);
      expect(res.json.count).toBe(expected.length);
      expect(res.json.total).toBe(all.total);
      expect(res.json.filters[filter]).toBe(value);
    }
  });

  test('filters combine with AND', async () => {
    const res = await get('?assetType=API_OPERATION&lifecycle=LIVE&commercialDisposition=COMMERCIAL_EVIDENCE');
    expect(res.status).toBe(200);
    expect(res.json.count).toBeGreaterThan(0);
    for (const a of res.json.assets) expect([a.assetType, a.lifecycle, a.commercialDisposition]).toEqual(['API_OPERATION', 'LIVE', 'COMMERCIAL_EVIDENCE']);
    const one = await get('?assetType=API_OPERATION');
    expect(res.json.count).toBeLessThan(one.json.count);
  });

  test.each([
    ['assetType', 'WIDGET'],
    ['lifecycle', 'live'],
    ['reuseScope', 'EVERYWHERE'],
    ['commercialDisposition', 'FOR_SALE'],
    ['tag', 'no-such-tag'],
    ['tag', 'Not A Tag'],
  ])('an unknown %s value (%s) is a 400 problem naming the parameter', async (filter, value) => {
    const res = await get(`?${filter}=${encodeURIComponent(value)}`);
    expectProblem(res, 400, 'INVALID_PARAMETER');
    expect(res.json.parameter).toBe(filter);
  });

  test('an unknown query parameter is a 400 problem, not silently ignored', async () => {
    const res = await get('?assettype=SCHEMA');
    expectProblem(res, 400, 'UNKNOWN_PARAMETER');
    expect(res.json.parameter).toBe('assettype');
    expect(res.json.didYouMean).toBe('assetType');
  });

  test('a filtered answer has its own ETag and answers 304 to it', async () => {
    const a = await get('?assetType=SCHEMA');
    const b = await get('?assetType=CHANNEL');
    expect(a.headers.get('etag')).not.toBe(b.headers.get('etag'));
    const again = await get('?assetType=SCHEMA', { 'if-none-match': a.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });
});

describe('sandbox/examples.json', () => {
  const examples = () => JSON.parse(fx.site.get('developers/sandbox/examples.json')!);

  test('every listed demo reference exists: each resolves with 200 on its read route', async () => {
    const { references } = examples();
    expect(references.objects.length).toBeGreaterThan(0);
    expect(references.commercialProofs.length).toBeGreaterThan(0);
    expect(references.credentials.length).toBeGreaterThan(0);
    const reads: Array<[string, string[]]> = [
      ['/v1/objects/', references.objects],
      ['/v1/commercial-proofs/', references.commercialProofs],
      ['/v1/credentials/verify/', references.credentials],
      ['/v1/status-lists/', references.statusLists ?? []],
    ];
    for (const [prefix, refs] of reads) {
      for (const ref of refs) {
        const res = await request(fx.service.url, 'GET', `${prefix}${encodeURIComponent(ref)}`);
        expect(`${prefix}${ref} ${res.status}`).toBe(`${prefix}${ref} 200`);
      }
    }
  });

  test('tryIt covers every read route of the table and each answers 200', async () => {
    const { tryIt } = examples();
    // A successor log's resources exist only after a key change, which no demo makes (lib/publish/demo-values.ts): nothing to try.
    const gets = operations.filter((op) => op.method === 'GET' && op.operationId !== 'getLedgerSuccessorLogResource');
    expect(tryIt.map((t: any) => t.operationId).sort()).toEqual(gets.map((op) => op.operationId).sort());
    for (const t of tryIt) {
      const res = await request(fx.service.url, 'GET', t.url);
      expect(`${t.url} ${res.status}`).toBe(`${t.url} 200`);
    }
  });

  test('every example payload is answered with 200 by its route', async () => {
    for (const example of examples().examples) {
      const res = await request(fx.service.url, example.method, example.path, example.body);
      expect(`${example.name} ${res.status}`).toBe(`${example.name} 200`);
    }
  });
});

describe('provider-certification/v1.json', () => {
  test('every kit vector, sent to its provider run route, answers the promised status and exact response', async () => {
    const kits = JSON.parse(fx.site.get('developers/provider-certification/v1.json')!);
    expect(kits.kits.length).toBeGreaterThan(0);
    for (const kit of kits.kits) {
      for (const vector of kit.vectors) {
        const res = await request(fx.service.url, 'POST', `/developers/sandbox/providers/${kit.providerId}/run`, vector.request);
        expect(`${kit.providerId}/${vector.name} ${res.status}`).toBe(`${kit.providerId}/${vector.name} ${vector.expectStatus}`);
        if (vector.expectResponse !== undefined) expect(res.json).toEqual(vector.expectResponse);
      }
    }
  });
});
