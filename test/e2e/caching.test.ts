import http from 'node:http';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_CREDENTIALS, DEMO_STATUS_LISTS } from '../../fixtures/demo-credentials';
import { CACHE_CONTROL, NEGATIVE_CACHE_CONTROL, NEVER_STORED, type CacheClassName } from '../../functions/contract/caching';
import type { Operation } from '../../functions/contract/operation';
import { operations } from '../../functions/contract/operations';
import { buildOpenApi } from '../../lib/contract/openapi';
import type { LocalService } from '../../lib/local/service';
import { canonicalSources } from '../../lib/publish/sources';
import { candidateUrls } from './catalogue-support';
import { startTestService } from '../support/local';

/**
 * Every read of `npm start`'s service answers with the caching class its route has in the contract
 * table (docs/semantics.md#caching): the class's Cache-Control, an ETag that If-None-Match turns
 * into a 304 with the same Cache-Control, ETag and Vary, and a Vary naming what the route
 * negotiates on. A 404 is kept briefly, no other error ever. And a request that lies about the
 * host (Host, X-Forwarded-Host, X-Forwarded-Proto, Forwarded) or sends its own correlation id gets
 * the answer anyone else gets: links come from the configured origin only.
 */
let service: LocalService;
beforeAll(async () => {
  service = await startTestService();
}, 60_000);
afterAll(async () => {
  await service?.close();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET with exactly these headers (node:http lets a test set Host, as any client can). */
function get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const { hostname, port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

const FORGED = {
  host: 'evil.example',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'http',
  'x-forwarded-port': '8443',
  forwarded: 'for=192.0.2.1;host=evil.example;proto=http',
  'x-correlation-id': 'attacker-chosen-id-0001',
};

const sources = canonicalSources();
// A successor log's resources exist only after a key change, which the demo never makes: test/e2e/ledger-rotation.test.ts checks their caching.
const reads = operations.filter((op) => op.method === 'GET' && op.operationId !== 'getLedgerSuccessorLogResource');

/** The class a route's example answers with: the default, or the partial-tile class for a partial tile. */
function classOf(op: Operation, url: string): CacheClassName {
  if (op.caching!.includes('partial-tile') && /\.p\/\d+$/.test(url)) return 'partial-tile';
  return op.caching![0];
}

/**
 * Pages that write the instant they were made at (a receipt, the studio's checks): their ETag is
 * strong, over the bytes. Every JSON read is revalidated whatever its instants (weak tags).
 */
const statesItsInstant = (op: Operation) => op.response.mediaType === 'text/html' && ['getTrustReceipt', 'getStudio', 'getVerifyPage'].includes(op.operationId);

/** A route's first example that answers 200. */
async function exampleOf(op: Operation): Promise<{ url: string; answer: Answer }> {
  for (const url of candidateUrls(op, sources)) {
    const answer = await get(url);
    if (answer.status === 200) return { url, answer };
  }
  throw new Error(`${op.operationId}: no example answers 200`);
}

/** What may differ between two answers made a moment apart: the instants, the ages counted from them, the time a check took. */
const timeless = (text: string) =>
  text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, '<instant>')
    .replace(/"(lagSeconds|ageSeconds|durationMs)":\d+/g, '"$1":<n>')
    .replace(/(READY|UNREACHABLE|NOT_READY), \d+ ms/g, '$1, <n> ms')
    .replace(/checked in \d+ ms/g, 'checked in <n> ms')
    .replace(/(<time datetime="<instant>">)[^<]*(<\/time>)/g, '$1$2');

test('every read of the contract table has a caching class, and no POST has one', () => {
  expect(reads.filter((op) => !op.caching || op.caching.length === 0).map((op) => op.operationId)).toEqual([]);
  expect(operations.filter((op) => op.method === 'POST' && (op.caching || op.varies)).map((op) => op.operationId)).toEqual([]);
});

describe.each(reads.map((op) => [`${op.method} ${op.path}`, op] as const))('%s', (_route, op) => {
  test('answers with its class, an ETag, 304 to If-None-Match with the same headers, and the Vary it negotiates on', async () => {
    const { url, answer } = await exampleOf(op);
    const expected = CACHE_CONTROL[classOf(op, url)];
    expect({ url, cacheControl: answer.headers['cache-control'] }).toEqual({ url, cacheControl: expected });
    const etag = answer.headers.etag;
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    for (const header of op.varies ?? []) expect(answer.headers.vary?.split(', ')).toContain(header);
    if (!op.varies?.length) expect(answer.headers.vary ?? '').not.toMatch(/Accept(?!-Encoding)|Host|Forwarded|Correlation/i);
    const again = await get(url, { 'if-none-match': etag! });
    if (statesItsInstant(op) && again.status === 200) {
      // A page that writes the instant it was made at has new bytes, so a new strong tag: never a 304 for bytes that changed.
      expect(again.headers.etag).not.toBe(etag);
      return;
    }
    expect([again.status, again.body]).toEqual([304, '']);
    expect([again.headers.etag, again.headers['cache-control'], again.headers.vary]).toEqual([etag, expected, answer.headers.vary]);
  });

  test("states its caching in the contract's description", () => {
    const described = (buildOpenApi() as any).paths[op.path].get;
    for (const name of op.caching!) expect(described.description).toContain(`\`${CACHE_CONTROL[name]}\` (${name})`);
    expect(described['x-svc-caching'].classes.map((c: { name: string }) => c.name)).toEqual(op.caching);
  });

  test('gives a request with a forged host and its own correlation id the answer anyone else gets', async () => {
    const { url, answer } = await exampleOf(op);
    const forged = await get(url, FORGED);
    expect(forged.status).toBe(200);
    for (const text of [forged.body, JSON.stringify(forged.headers)]) {
      expect(text).not.toContain('evil.example');
      // A forged port would show as one in a URL; the bare digits can occur in any key id or hash.
      expect(text).not.toContain(':8443');
      // A caller's correlation id is answered only where no cache keeps the answer (health, readiness).
      if (op.caching!.some((name) => CACHE_CONTROL[name] !== NEVER_STORED)) expect(text).not.toContain('attacker-chosen-id-0001');
    }
    expect(timeless(forged.body)).toBe(timeless(answer.body));
    for (const header of ['content-type', 'cache-control', 'vary', 'link', 'content-language']) expect([header, forged.headers[header]]).toEqual([header, answer.headers[header]]);
  });
});

test('every absolute link the answers carry names the configured origin (the service\'s own URL under npm start)', async () => {
  const texts = await Promise.all([
    get(`/v1/objects/${DEMO_OBJECTS.longHistory}?limit=1`, FORGED),
    get(`/v1/credentials/verify/${DEMO_CREDENTIALS.active}`, FORGED),
    get(`/v1/portable-credentials/${DEMO_CREDENTIALS.active}/vc.json`, FORGED),
    get(`/v1/status-lists/${DEMO_STATUS_LISTS.revocation}`, FORGED),
    get(`/trust-receipt/${DEMO_OBJECTS.current}`, { ...FORGED, accept: 'text/html' }),
  ]);
  // The paged timeline's Link header is absolute too.
  expect(String(texts[0].headers.link).startsWith(`<${service.url}/v1/objects/${DEMO_OBJECTS.longHistory}?asOf=`)).toBe(true);
  for (const { body: text, headers } of texts) {
    const body = `${text}\n${headers.link ?? ''}`;
    // Every URL but the vocabularies' (JSON-LD contexts, namespaces, specifications), which name no service.
    const vocabulary = /^https?:\/\/(www\.w3\.org|w3id\.org|schema\.org|purl\.org|c2sp\.org|datatracker\.ietf\.org|www\.rfc-editor\.org|www\.iso\.org)\//;
    const urls = [...body.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0]).filter((u) => !vocabulary.test(u));
    expect({ links: urls.length > 0, body: urls.length > 0 ? '' : body.slice(0, 300) }).toEqual({ links: true, body: '' });
    expect(urls.filter((u) => !u.startsWith(service.url))).toEqual([]);
  }
});

test('a view of a past instant is kept as a past view, with a strong ETag; a status list at a past timestamp too', async () => {
  const asOf = new Date(Date.now() - 2 * 3600_000).toISOString();
  const past = await get(`/v1/objects/${DEMO_OBJECTS.current}?asOf=${encodeURIComponent(asOf)}`);
  expect([past.status, past.headers['cache-control']]).toEqual([200, CACHE_CONTROL.past]);
  expect(past.headers.etag).toMatch(/^"/);
  expect((await get(`/v1/objects/${DEMO_OBJECTS.current}?asOf=${encodeURIComponent(asOf)}`, { 'if-none-match': past.headers.etag! })).status).toBe(304);
  const list = await get(`/v1/status-lists/${DEMO_STATUS_LISTS.revocation}?timestamp=${encodeURIComponent(asOf)}`);
  expect([list.status, list.headers['cache-control']]).toEqual([200, CACHE_CONTROL.past]);
  expect(CACHE_CONTROL.past).not.toContain('immutable');
});

test('a 404 is kept briefly by a shared cache, with the Vary of a page that negotiates; other errors never', async () => {
  const unknown = await get('/v1/objects/NO-SUCH-OBJECT-1');
  // Compression adds Accept-Encoding to every answer's Vary; nothing else varies a JSON read.
  expect([unknown.status, unknown.headers['cache-control'], unknown.headers.vary]).toEqual([404, NEGATIVE_CACHE_CONTROL, 'Accept-Encoding']);
  const page = await get('/trust-receipt/NO-SUCH-OBJECT-1', { accept: 'text/html', 'accept-language': 'de' });
  expect([page.status, page.headers['content-type']?.split(';')[0], page.headers['cache-control'], page.headers.vary]).toEqual([404, 'text/html', NEGATIVE_CACHE_CONTROL, 'Accept, Accept-Language, Accept-Encoding']);
  const route = await get('/no/such/route');
  expect([route.status, route.headers['cache-control']]).toEqual([404, NEGATIVE_CACHE_CONTROL]);
  const invalid = await get('/v1/objects/AB');
  expect([invalid.status, invalid.headers['cache-control']]).toEqual([400, NEVER_STORED]);
  const wrongKind = await get(`/v1/commercial-proofs/${DEMO_OBJECTS.current}`);
  expect([wrongKind.status, wrongKind.headers['cache-control']]).toEqual([409, NEVER_STORED]);
});

test('an answer to a POST is never stored', async () => {
  const res = await fetch(`${service.url}/developers/sandbox/test-clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect([res.status, res.headers.get('cache-control'), res.headers.get('etag')]).toEqual([200, NEVER_STORED, null]);
});

test("a caller's correlation id is answered only where no cache keeps the answer", async () => {
  const id = { 'x-correlation-id': 'caller-trace-id-0001' };
  const health = await get('/health', id);
  expect([health.headers['cache-control'], health.headers['x-correlation-id']]).toEqual([NEVER_STORED, 'caller-trace-id-0001']);
  const post = await fetch(`${service.url}/developers/sandbox/test-clock`, { method: 'POST', headers: { 'content-type': 'application/json', ...id }, body: '{}' });
  expect(post.headers.get('x-correlation-id')).toBe('caller-trace-id-0001');
  for (const path of [`/v1/objects/${DEMO_OBJECTS.current}`, '/v1/objects/NO-SUCH-OBJECT-2', '/developers/catalogue.json', '/no/such/route']) {
    const answer = await get(path, id);
    expect([path, answer.headers['x-correlation-id']]).not.toEqual([path, 'caller-trace-id-0001']);
    expect(answer.body).not.toContain('caller-trace-id-0001');
  }
});
