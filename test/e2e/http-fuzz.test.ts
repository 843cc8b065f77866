import fc from 'fast-check';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { operations } from '../../functions/contract/operations';
import { API_REFERENCE_ASSETS } from '../../functions/contract/site-paths';
import type { LocalService } from '../../lib/local/service';
import { startTestService } from '../support/local';
import { rawRequest, type RawResponse } from '../support/raw-http';

/**
 * Property-based fuzzing of the real local service over raw TCP (nothing validates what is sent):
 * methods, targets, query strings, headers and bodies drawn from the contract's own routes and
 * from hostile bytes. Seeded and bounded, so a failure replays exactly.
 */
const SEED = 20_261_122;
const RUNS = Number(process.env.FUZZ_RUNS ?? 2500);

let service: LocalService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.close());

const templates = [...new Set(operations.map((op) => op.path))];
const pages = new Set(operations.filter((op) => op.response.mediaType === 'text/html').map((op) => op.path.split('/')[1]));
/** Routes that answer a browser with a page and every other client with JSON (the landing, the developer index): a browser's error there is a page too. */
const negotiatedPages = new Set(operations.filter((op) => op.negotiatesPage).map((op) => op.path));

/** Printable ASCII and a few bytes parsers dislike, percent-encoded or not. */
const hostileChar = fc.oneof(
  fc.constantFrom('/', '//', '..', '%', '%2F', '%00', '%ZZ', '%E0%A4%A', '@', ']', '[', '#', '?', '&', '=', ';', '~', '\\', '"', "'", '<', '>', '{', '}', '|', '^', '`', ' ', '\t', '\x7f', 'é', '中', '🙂'),
  fc.string({ unit: 'grapheme-ascii', maxLength: 4 }),
);
const segment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(DEMO_OBJECTS.current, DEMO_OBJECTS.revoked, 'CRED-2026-0001', 'PRF-2026-0101', 'demo-2026-revocation', 'AB', 'x'.repeat(181), 'clock') },
  { weight: 2, arbitrary: fc.array(hostileChar, { maxLength: 8 }).map((parts) => parts.join('')) },
);
/** A route of the contract with its parameters filled, or a path built from hostile pieces. */
const path = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...templates), segment).map(([t, fill]) => t.replace(/\{\w+\}/g, fill)) },
  { weight: 1, arbitrary: fc.array(segment, { maxLength: 5 }).map((s) => `/${s.join('/')}`) },
  { weight: 1, arbitrary: fc.constantFrom('//x@]%23', '/', '//', '/..%2F..%2Fetc/passwd', '/v1/objects/', '/v1/objects/%', '/developers/', '*') },
);
const queryValue = fc.oneof(fc.constantFrom('2026-01-01T00:00:00Z', '0', '5', '201', '-1', 'now', ''), fc.array(hostileChar, { maxLength: 6 }).map((p) => p.join('')));
const query = fc.array(fc.tuple(fc.constantFrom('asOf', 'limit', 'reference', 'timestamp', 'lang', 'assetType', 'tag', 'x', ''), queryValue), { maxLength: 4 });
const method = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'OPTIONS') }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'TRACE', 'CONNECT', 'PROPFIND', 'get', 'G E T', 'X'.repeat(40)) });
const header = fc.oneof(
  fc.constantFrom(
    ['accept', 'text/html'],
    ['accept', 'application/json'],
    ['accept', '*/*;q=0'],
    ['accept-encoding', 'br, gzip'],
    ['accept-encoding', 'gzip;q=0.1, *;q=0'],
    ['content-type', 'application/json'],
    ['content-type', 'application/x-www-form-urlencoded'],
    ['content-type', 'application/json; charset=latin1'],
    ['if-none-match', '*'],
    ['if-none-match', 'W/"x", "y"'],
    ['x-correlation-id', 'fuzz-correlation-0001'],
    ['x-correlation-id', '<script>alert(1)</script>'],
    ['transfer-encoding', 'chunked'],
    ['content-length', '-1'],
    ['content-length', '99999999999999999999'],
    ['expect', '100-continue'],
    ['host', ''],
  ),
  fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), fc.string({ unit: 'grapheme-ascii', maxLength: 40 })),
);
const body = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom('{"advanceMs":1}', '{"startAt":"2026-01-01T00:00:00Z"}', '{', 'null', '[]', '{"__proto__":{"x":1}}', 'x'.repeat(70_000)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
);

const request = fc.record({ method, path, query, headers: fc.array(header, { maxLength: 5 }), body });
type FuzzRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

function bytesOf(r: FuzzRequest): Buffer {
  const target = r.query.length > 0 ? `${r.path}?${r.query.map(([k, v]) => `${k}=${v}`).join('&')}` : r.path;
  const payload = Buffer.from(r.body, 'utf8');
  const lines = [`${r.method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  const chunked = r.headers.some(([k, v]) => k === 'transfer-encoding' && v === 'chunked');
  for (const [k, v] of r.headers) if (k !== 'transfer-encoding' && k !== 'content-length') lines.push(`${k}: ${v}`);
  const declared = r.headers.find(([k]) => k === 'content-length');
  if (chunked) lines.push('Transfer-Encoding: chunked');
  else lines.push(`Content-Length: ${declared ? declared[1] : payload.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  if (chunked) return Buffer.concat([head, Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n0\r\n\r\n')]);
  return Buffer.concat([head, payload]);
}

const VENDORED = new Set<string>([API_REFERENCE_ASSETS.script, API_REFERENCE_ASSETS.style, API_REFERENCE_ASSETS.licences]);

/** What must never reach a caller: stack frames, file paths, runtime error names, SDK internals. */
const LEAKS = [/\bat [\w.<>]+ \(/, /\/work\//, /node_modules/, /\.ts:\d+/, /\b(TypeError|ReferenceError|SyntaxError|RangeError)\b/, /ECONNREFUSED|ETIMEDOUT|EPIPE/, /\$metadata|__type/];

function checkAnswer(r: FuzzRequest, res: RawResponse | null): void {
  // Some requests are not HTTP at all (a method with a space); a closed connection is their answer.
  if (res === null) return;
  const where = `${r.method} ${r.path} -> ${res.status}`;
  expect([where, res.status >= 500 && res.status !== 503]).toEqual([where, false]);
  // The API reference's vendored files are a third party's program text (it names TypeError and
  // the like in its own code); every answer the service writes itself is checked.
  const vendored = res.status === 200 && VENDORED.has(r.path);
  if (!vendored) for (const leak of LEAKS) expect([where, leak.test(res.body)]).toEqual([where, false]);
  if (res.status < 400 || r.method === 'HEAD' || res.body === '') return;
  const type = res.headers['content-type'] ?? '';
  const page = pages.has(r.path.split('/')[1]) || negotiatedPages.has(r.path);
  if (type.startsWith('text/html')) {
    // Pages answer browsers with an HTML error page; everything else is problem details.
    expect([where, page]).toEqual([where, true]);
    return;
  }
  expect([where, type]).toEqual([where, expect.stringMatching(/^application\/problem\+json/)]);
  const problem = JSON.parse(res.body) as Record<string, unknown>;
  expect(problem).toMatchObject({ status: res.status, service: 'public-trust-verification-service' });
  for (const field of ['type', 'title', 'detail', 'instance', 'code', 'correlationId']) expect([where, field, typeof problem[field]]).toEqual([where, field, 'string']);
  expect(res.headers['x-correlation-id']).toBe(problem.correlationId);
}

test(`${RUNS} fuzzed requests: no crash, no 5xx but 503, every error is problem details, nothing internal leaks`, async () => {
  const statuses = new Map<number | 'closed', number>();
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      const res = await rawRequest(service.url, bytesOf(r), { head: r.method === 'HEAD', timeoutMs: 15_000 });
      statuses.set(res?.status ?? 'closed', (statuses.get(res?.status ?? 'closed') ?? 0) + 1);
      checkAnswer(r, res);
    }),
    { seed: SEED, numRuns: RUNS, endOnFailure: true },
  );
  // The fuzzing reached the functions (answers served and refused), not only the edge.
  const count = (s: number | 'closed') => statuses.get(s) ?? 0;
  expect(count(200)).toBeGreaterThan(RUNS * 0.05);
  expect(count(400) + count(404) + count(405) + count(413) + count(415) + count(422)).toBeGreaterThan(RUNS * 0.3);
  expect(count('closed')).toBeLessThan(RUNS * 0.05);
  const health = await fetch(`${service.url}/health`);
  expect(health.status).toBe(200);
  expect(((await health.json()) as { status: string }).status).toBe('OK');
}, 300_000);
