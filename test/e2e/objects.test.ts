import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LivingObjectResolution } from '../../functions/contract/schemas/objects';
import { ErrorResponse } from '../../functions/contract/schemas/common';
import { DEMO_OBJECTS, DEMO_RESTRICTED, DEMO_RESTRICTED_VALUES } from '../../fixtures/demo';
import { startEmbeddedStore } from '../../lib/local/embedded-store';
import { startLocalService, type LocalService } from '../../lib/local/service';
import { getJson } from '../support/local';

const ANCHOR = new Date(Math.floor(Date.now() / 60_000) * 60_000);
const ago = (ms: number) => new Date(ANCHOR.getTime() - ms).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let service: LocalService;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-e2e-'));
  service = await startLocalService({ port: 0, anchor: ANCHOR, dataDir });
});
afterAll(async () => {
  await service.close();
  await rm(dataDir, { recursive: true, force: true });
});

const get = (p: string, headers: Record<string, string> = {}) => getJson(`${service.url}${p}`, { headers });

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(ErrorResponse.safeParse(res.body).success).toBe(true);
  expect(res.body).toMatchObject({ status, code, service: 'public-trust-verification-service' });
  expect(res.body.correlationId).toBe(res.headers.get('x-correlation-id'));
  const text = JSON.stringify(res.body);
  expect(text).not.toMatch(/\bat \S+:\d+|\/work\/|node_modules|Error:|\.ts\b/);
}

describe('GET /v1/objects/{reference}', () => {
  it('resolves a current order with its card, timeline and disclosure', async () => {
    const res = await get(`/v1/objects/${DEMO_OBJECTS.current}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const parsed = LivingObjectResolution.safeParse(res.body);
    expect(parsed.success).toBe(true);
    const body = res.body;
    expect(body.current).toMatchObject({ state: 'DELIVERED', disposition: 'CURRENT', fresh: true, observedAt: ago(10 * 60_000), evidenceIntegrityConfirmed: true, overallDisposition: 'TRUSTED' });
    expect(body.disclosure).toMatchObject({ containsCustomerPii: false, containsPaymentAccountData: false });
    expect(body.timeline.map((e: any) => e.state)).toEqual(['PLACED', 'PLACED', 'CONFIRMED', 'SHIPPED', 'DELIVERED', 'DELIVERED']);
    const card = body.presentations.customerAccountOrder;
    expect(card).toMatchObject({ currentState: 'DELIVERED', disposition: 'CURRENT', evidenceIntegrity: 'CONFIRMED', rightsState: 'NO_PUBLIC_RIGHT_ASSERTED', paymentState: null, refundState: null });
    expect(card.actions.livingTransactionJson).toBe(`${service.url.replace('127.0.0.1', '127.0.0.1')}/v1/objects/${DEMO_OBJECTS.current}`);
    expect(card.actions.trustReceipt).toBe(`${service.url}/trust-receipt/${DEMO_OBJECTS.current}`);
    expect(card.actions.verifyCurrentStatus).toBe(`${service.url}/verify?reference=${DEMO_OBJECTS.current}`);
  });

  it('gives the view as it stood at asOf: state, observation and timeline cut there', async () => {
    const asOf = ago(2 * DAY);
    const res = await get(`/v1/objects/${DEMO_OBJECTS.current}?asOf=${encodeURIComponent(asOf)}`);
    expect(res.status).toBe(200);
    expect(res.body.current).toMatchObject({ state: 'SHIPPED', disposition: 'HISTORICAL_ONLY', fresh: false, observedAt: ago(5 * DAY - 5 * 60_000), overallDisposition: 'HISTORICAL', evaluatedAt: asOf });
    expect(res.body.timeline.map((e: any) => e.state)).toEqual(['PLACED', 'PLACED', 'CONFIRMED', 'SHIPPED']);
    expect(res.body.timeline.every((e: any) => e.at <= asOf)).toBe(true);
    expect(res.body.presentations.customerAccountOrder.rightsState).toBe('REVIEW_REQUIRED');
  });

  it('accepts asOf with an offset and treats it as the same instant', async () => {
    const utc = new Date(ANCHOR.getTime() - 2 * DAY);
    const local = new Date(utc.getTime() + 2 * HOUR).toISOString().replace('Z', '+02:00');
    const a = await get(`/v1/objects/${DEMO_OBJECTS.current}?asOf=${encodeURIComponent(local)}`);
    expect(a.status).toBe(200);
    expect(a.body.current.evaluatedAt).toBe(utc.toISOString());
  });

  it('answers UNKNOWN for an instant before anything was known', async () => {
    const res = await get(`/v1/objects/${DEMO_OBJECTS.current}?asOf=2001-01-01T00:00:00Z`);
    expect(res.status).toBe(200);
    expect(res.body.current).toMatchObject({ state: 'UNKNOWN', disposition: 'UNKNOWN', overallDisposition: 'UNKNOWN', fresh: false, evidenceIntegrityConfirmed: false });
    expect(res.body.timeline).toEqual([]);
  });

  it.each([
    [DEMO_OBJECTS.revoked, { state: 'CANCELLED', disposition: 'CURRENT', overallDisposition: 'REVOKED' }, 'REVOKED_BY_LIFECYCLE'],
    [DEMO_OBJECTS.stale, { state: 'ACTIVE', disposition: 'STALE', fresh: false, overallDisposition: 'STALE' }, null],
    [DEMO_OBJECTS.historical, { state: 'SUPERSEDED', disposition: 'HISTORICAL_ONLY', overallDisposition: 'HISTORICAL' }, null],
    [DEMO_OBJECTS.modified, { state: 'ACTIVE', disposition: 'MODIFIED', evidenceIntegrityConfirmed: false, overallDisposition: 'CHANGED' }, 'REVIEW_REQUIRED'],
    [DEMO_OBJECTS.longHistory, { state: 'IN_SERVICE', disposition: 'CURRENT', fresh: true, overallDisposition: 'TRUSTED' }, null],
  ])('resolves %s to its documented disposition', async (reference, current, rights) => {
    const res = await get(`/v1/objects/${reference}`);
    expect(res.status).toBe(200);
    expect(LivingObjectResolution.safeParse(res.body).success).toBe(true);
    expect(res.body.current).toMatchObject(current);
    if (rights) expect(res.body.presentations.customerAccountOrder.rightsState).toBe(rights);
    else expect(res.body.presentations?.customerAccountOrder).toBeUndefined();
  });

  it('returns a long timeline as a bounded window and pages older windows through Link rel="next"', async () => {
    const seen: string[] = [];
    let next: string | null = `${service.url}/v1/objects/${DEMO_OBJECTS.longHistory}?limit=40`;
    for (let page = 0; page < 3 && next; page++) {
      const res = await getJson(next);
      expect(res.status).toBe(200);
      expect(res.body.timeline).toHaveLength(40);
      seen.unshift(...res.body.timeline.map((e: any) => e.at));
      const link = res.headers.get('link');
      expect(link).toMatch(/rel="next"/);
      next = /<([^>]+)>/.exec(link!)![1];
    }
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    expect([...seen].sort()).toEqual(seen);
    // consecutive hourly observations, no gap between pages
    for (let i = 1; i < seen.length; i++) expect(Date.parse(seen[i]) - Date.parse(seen[i - 1])).toBe(HOUR);
    const defaultWindow = await get(`/v1/objects/${DEMO_OBJECTS.longHistory}`);
    expect(defaultWindow.body.timeline).toHaveLength(50);
    const short = await get(`/v1/objects/${DEMO_OBJECTS.current}`);
    expect(short.headers.get('link')).toBeNull();
  });

  it('never discloses restricted personal or payment data, now or as of any instant', async () => {
    const restrictedKeys = Object.values(DEMO_RESTRICTED).flatMap((g) => Object.keys(g));
    for (const reference of Object.values(DEMO_OBJECTS)) {
      for (const query of ['', `?asOf=${encodeURIComponent(ago(DAY))}`, '?limit=200']) {
        const res = await get(`/v1/objects/${reference}${query}`);
        const text = JSON.stringify(res.body);
        for (const value of DEMO_RESTRICTED_VALUES) expect(text).not.toContain(value);
        for (const key of [...restrictedKeys, 'customer', 'payment', 'restricted']) expect(text).not.toContain(`"${key}"`);
      }
    }
  });
});

describe('errors as problem details', () => {
  it.each([
    ['too short', 'AB'],
    ['too long', 'A'.repeat(181)],
    ['outside the allowed set', 'ORD%20001'],
    ['a leading dot', '.ORD-1'],
  ])('400 INVALID_REFERENCE for a reference %s', async (_why, reference) => {
    expectProblem(await get(`/v1/objects/${reference}`), 400, 'INVALID_REFERENCE');
  });

  it.each(['yesterday', '2026-13-01T00:00:00Z', '2026-01-01', '2026-01-01T00:00:00'])('400 INVALID_PARAMETER for asOf=%s', async (asOf) => {
    const res = await get(`/v1/objects/${DEMO_OBJECTS.current}?asOf=${encodeURIComponent(asOf)}`);
    expectProblem(res, 400, 'INVALID_PARAMETER');
    expect(res.body.parameter).toBe('asOf');
  });

  it('400 for an asOf later than the service clock, and for a limit out of bounds', async () => {
    expectProblem(await get(`/v1/objects/${DEMO_OBJECTS.current}?asOf=2999-01-01T00:00:00Z`), 400, 'INVALID_PARAMETER');
    expectProblem(await get(`/v1/objects/${DEMO_OBJECTS.current}?limit=0`), 400, 'INVALID_PARAMETER');
    expectProblem(await get(`/v1/objects/${DEMO_OBJECTS.current}?limit=201`), 400, 'INVALID_PARAMETER');
    expectProblem(await get(`/v1/objects/${DEMO_OBJECTS.current}?limit=abc`), 400, 'INVALID_PARAMETER');
  });

  it('404 NOT_FOUND for an unknown reference, with instance and endpoint', async () => {
    const res = await get('/v1/objects/NO-SUCH-OBJECT');
    expectProblem(res, 404, 'NOT_FOUND');
    expect(res.body).toMatchObject({ instance: '/v1/objects/NO-SUCH-OBJECT', endpoint: '/v1/objects/{reference}' });
  });

  it('404 ROUTE_NOT_FOUND for an unknown path; 405 with Allow for a wrong method', async () => {
    expectProblem(await get('/v1/nothing-here'), 404, 'ROUTE_NOT_FOUND');
    const res = await getJson(`${service.url}/v1/objects/${DEMO_OBJECTS.current}`, { method: 'DELETE' });
    expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const post = await getJson(`${service.url}/health`, { method: 'POST', body: '{}' });
    expectProblem(post, 405, 'METHOD_NOT_ALLOWED');
  });

  it("names the request's own id on reads a cache may keep, never a caller's; echoes a well-formed caller id where nothing is kept, and replaces a malformed one", async () => {
    // An object read, found or not, may be kept by a shared cache and handed to the next client: never the caller's id.
    const unknown = await get('/v1/objects/NO-SUCH-OBJECT', { 'x-correlation-id': 'client-trace-0001' });
    expect(unknown.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(unknown.body.correlationId).toBe(unknown.headers.get('x-correlation-id'));
    const ok = await get(`/v1/objects/${DEMO_OBJECTS.current}`, { 'x-correlation-id': 'client-trace-0002' });
    expect(ok.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
    // Health is never stored: the caller's id is its id.
    const health = await get('/health', { 'x-correlation-id': 'client-trace-0003' });
    expect(health.headers.get('x-correlation-id')).toBe('client-trace-0003');
    const refused = await getJson(`${service.url}/v1/objects/${DEMO_OBJECTS.current}`, { method: 'DELETE', headers: { 'x-correlation-id': 'client-trace-0004' } });
    expect([refused.status, refused.body.correlationId]).toEqual([405, 'client-trace-0004']);
    const bad = await get('/health', { 'x-correlation-id': 'bad id with spaces' });
    expect(bad.headers.get('x-correlation-id')).not.toContain(' ');
    expect(bad.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('503 quickly while the store is down, and recovers by itself when it returns', async () => {
    const port = Number(new URL(service.storeEndpoint).port);
    await service.store!.close();
    const started = Date.now();
    const down = await get(`/v1/objects/${DEMO_OBJECTS.current}`);
    const took = Date.now() - started;
    expectProblem(down, 503, 'DEPENDENCY_UNAVAILABLE');
    expect(down.headers.get('retry-after')).toBe('1');
    expect(took).toBeLessThan(10_000); // bound only: the configured budget is ~2.5 s
    const health = await get('/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'DEGRADED', readiness: { persistence: 'UNREACHABLE' } });
    service.store = await startEmbeddedStore({ port, dataDir });
    const back = await get(`/v1/objects/${DEMO_OBJECTS.current}`);
    expect(back.status).toBe(200);
    expect(back.body.current.state).toBe('DELIVERED');
    expect((await get('/health')).body).toMatchObject({ status: 'OK', readiness: { persistence: 'READY' } });
  });
});
