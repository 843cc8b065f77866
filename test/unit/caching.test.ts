import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { CACHE_CONTROL, errorCacheControl, isShareable, NEGATIVE_CACHE_CONTROL, NEVER_STORED, type CacheClassName } from '../../functions/contract/caching';
import { operations } from '../../functions/contract/operations';
import { LANGUAGES } from '../../functions/contract/languages';
import { logResourceHeaders } from '../../functions/domain/ledger/tiles';
import { httpHandler } from '../../functions/http/boundary';
import { answerMayBeShared } from '../../functions/http/correlation';
import { configuredBaseUrl } from '../../functions/http/request';
import { negotiateLocale } from '../../functions/pages/i18n';
import { acceptedLanguage } from '../../functions/pages/negotiation';
import { cachingConstName, routeCachingOf } from '../../lib/contract/generate-caching';
import { DOCUMENT_CACHE_CONTROL } from '../../lib/local/documents';

const ROOT = path.resolve(__dirname, '../..');
const reads = operations.filter((op) => op.method === 'GET');

describe('caching classes', () => {
  it('keep every answer but the inspections for a shared cache, and make nothing immutable but the bytes that never change', () => {
    const shareable = (Object.keys(CACHE_CONTROL) as CacheClassName[]).filter((name) => isShareable(CACHE_CONTROL[name]));
    expect(shareable.sort()).toEqual(['checkpoint', 'current', 'document', 'immutable', 'partial-tile', 'past', 'published', 'settled', 'status-list']);
    expect((Object.keys(CACHE_CONTROL) as CacheClassName[]).filter((name) => CACHE_CONTROL[name].includes('immutable'))).toEqual(['immutable']);
    // The current view: a few seconds at a shared cache, revalidated by browsers, never stale on a failure.
    expect(CACHE_CONTROL.current).toMatch(/max-age=0.*s-maxage=5.*stale-while-revalidate=5/);
    expect(CACHE_CONTROL.current).not.toContain('stale-if-error');
  });

  it('keep a 404 to a read briefly and every other error, or any answer to a POST, never', () => {
    expect(errorCacheControl('GET', 404)).toBe(NEGATIVE_CACHE_CONTROL);
    expect(errorCacheControl('HEAD', 404)).toBe(NEGATIVE_CACHE_CONTROL);
    for (const status of [400, 405, 409, 429, 500, 503]) expect(errorCacheControl('GET', status)).toBe(NEVER_STORED);
    expect(errorCacheControl('POST', 404)).toBe(NEVER_STORED);
    expect(isShareable(NEGATIVE_CACHE_CONTROL)).toBe(true);
    expect(['no-store', 'private, max-age=60', 'no-cache, no-store', undefined].map(isShareable)).toEqual([false, false, false, false]);
  });

  it('are what the bucket objects carry: documents, and each resource of the tile log by its route', () => {
    expect(DOCUMENT_CACHE_CONTROL).toBe(CACHE_CONTROL.document);
    for (const op of operations.filter((o) => o.integration.kind === 'document')) expect([op.operationId, op.caching]).toEqual([op.operationId, ['document']]);
    const logRoute = (suffix: string) => operations.find((op) => op.path.endsWith(suffix))!.caching!.map((name) => CACHE_CONTROL[name]);
    expect(logRoute('/checkpoint')).toEqual([logResourceHeaders('checkpoint').cacheControl]);
    expect(logRoute('/checkpoints/{treeSize}')).toEqual([logResourceHeaders('checkpoints/7').cacheControl]);
    expect(logRoute('/tile/{tilePath}')).toEqual([logResourceHeaders('tile/0/000').cacheControl, logResourceHeaders('tile/0/000.p/7').cacheControl]);
    expect(logResourceHeaders('tile/entries/000').cacheControl).toBe(CACHE_CONTROL.immutable);
  });
});

describe('every read function applies its own row of the table', () => {
  it.each(reads.filter((op) => op.integration.kind === 'lambda').map((op) => [op.operationId, op] as const))('%s passes %sCaching to the boundary', (_id, op) => {
    const source = readFileSync(path.join(ROOT, (op.integration as { entry: string }).entry), 'utf8');
    expect(source).toContain(`import { ${cachingConstName(op)} as caching } from '../generated/caching';`);
    expect(source).toMatch(/\{ caching \}\)?,?\s*\)?;\s*$/);
  });
});

describe('the boundary', () => {
  const event = (overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent =>
    ({
      resource: '/v1/objects/{reference}',
      path: '/v1/objects/X',
      httpMethod: 'GET',
      headers: { host: 'evil.example', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example' },
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'req-1', path: '/v1/objects/X', domainName: 'evil.example' },
      ...overrides,
    }) as unknown as APIGatewayProxyEvent;
  const context = { getRemainingTimeInMillis: () => 5000, functionName: 'f', awsRequestId: 'req-1' } as unknown as Context;
  const caching = routeCachingOf(operations.find((op) => op.operationId === 'resolveObject')!)!;
  const before = process.env.PUBLIC_BASE_URL;
  afterEach(() => {
    if (before === undefined) delete process.env.PUBLIC_BASE_URL;
    else process.env.PUBLIC_BASE_URL = before;
  });

  it('answers by the class the operation chose (or its route\'s default), tags it, and answers 304 with the same headers', async () => {
    const handler = httpHandler(async (request) => ({ status: 200, body: { at: request.query.asOf ?? 'now' }, ...(request.query.asOf ? { cacheClass: 'past' as const } : {}) }), { caching });
    const now = await handler(event(), context);
    expect(now.headers).toMatchObject({ 'cache-control': CACHE_CONTROL.current, etag: expect.stringMatching(/^"[A-Za-z0-9_-]{43}"$/) });
    const past = await handler(event({ queryStringParameters: { asOf: '2026-01-01T00:00:00Z' } }), context);
    expect(past.headers!['cache-control']).toBe(CACHE_CONTROL.past);
    const again = await handler(event({ headers: { 'if-none-match': String(now.headers!.etag) } }), context);
    expect([again.statusCode, again.body, again.headers!.etag, again.headers!['cache-control']]).toEqual([304, '', now.headers!.etag, CACHE_CONTROL.current]);
  });

  it('makes links only from the configured origin, and without one refuses (503, never stored) rather than trust the request', async () => {
    const handler = httpHandler(async (request) => ({ status: 200, body: { self: `${request.baseUrl}/v1/objects/X` } }), { caching });
    process.env.PUBLIC_BASE_URL = 'https://trust.example.org/';
    const configured = await handler(event(), context);
    expect(JSON.parse(configured.body)).toEqual({ self: 'https://trust.example.org/v1/objects/X' });
    for (const unusable of ['', 'trust.example.org', 'ftp://trust.example.org', 'https://trust.example.org/?x=1', 'https://user@trust.example.org']) {
      process.env.PUBLIC_BASE_URL = unusable;
      expect(configuredBaseUrl()).toBeNull();
      const refused = await handler(event(), context);
      expect([refused.statusCode, JSON.parse(refused.body).code, refused.headers!['cache-control']]).toEqual([503, 'ORIGIN_NOT_CONFIGURED', NEVER_STORED]);
    }
    delete process.env.PUBLIC_BASE_URL;
    const withoutLinks = await httpHandler(async () => ({ status: 200, body: { ok: true } }), { caching })(event(), context);
    expect(withoutLinks.statusCode).toBe(200);
  });

  it("keeps a caller's correlation id only where no shared cache keeps the answer", () => {
    const health = routeCachingOf(operations.find((op) => op.operationId === 'getHealth')!);
    expect(answerMayBeShared('GET', caching)).toBe(true);
    expect(answerMayBeShared('HEAD', caching)).toBe(true);
    expect(answerMayBeShared('GET', undefined)).toBe(true);
    expect(answerMayBeShared('GET', health)).toBe(false);
    expect(answerMayBeShared('POST', undefined)).toBe(false);
  });
});

describe('the page language from Accept-Language', () => {
  it.each([
    [undefined, 'en'],
    ['de-AT,de;q=0.9,en;q=0.8', 'de'],
    ['it-IT,it;q=0.9,fr;q=0.8', 'fr'],
    ['en;q=0.4,es;q=0.9', 'es'],
    ['*', 'en'],
    ['DE-de', 'de'],
    ['fr;q=0, es;q=0.1', 'es'],
  ])('%p is %s', (header, lang) => {
    expect(acceptedLanguage(header)).toBe(lang);
  });

  it('is all a page takes from the header: the normalised header gives the same locale as the raw one, so an edge may key its copies on it (property)', () => {
    const tag = fc.stringMatching(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,2}$/);
    const range = fc.tuple(fc.oneof(tag, fc.constantFrom(...LANGUAGES, '*', 'de-CH', 'en-GB')), fc.option(fc.integer({ min: 0, max: 1000 }))).map(([t, q]) => (q === null ? t : `${t};q=${(q / 1000).toFixed(3)}`));
    fc.assert(
      fc.property(fc.array(range, { maxLength: 6 }).map((ranges) => ranges.join(', ')), (header) => {
        const lang = acceptedLanguage(header);
        expect(LANGUAGES).toContain(lang);
        expect(negotiateLocale(header, undefined)).toEqual(negotiateLocale(lang, undefined));
        expect(negotiateLocale(header, undefined)).toEqual({ lang, formatLocale: lang });
      }),
      { seed: 20261126, numRuns: 2000 },
    );
  });
});
