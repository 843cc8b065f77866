import { ErrorResponse } from '../../functions/contract/schemas/common';
import { MAX_ADVANCE_MS, OfflineVerificationResult, ProviderRunResult, TestClock, TrustPolicyDecision } from '../../functions/contract/schemas/sandbox';
import { sandboxOperations } from '../../functions/contract/operations/sandbox';
import { testClock } from '../../functions/domain/sandbox/clock';
import { SANDBOX_EXAMPLES } from '../../functions/domain/sandbox/examples';
import { testClockRequest, trustPolicyRequest, offlineVerificationRequest } from '../../functions/generated/bodies';
import { parseJsonBody } from '../../functions/domain/json-input';
import { findProvider, providerRequest, runProvider, SANDBOX_PROVIDERS } from '../../functions/domain/sandbox/providers';
import { verifyOfflineBundle } from '../../functions/domain/sandbox/offline';
import { evaluateTrustPolicy } from '../../functions/domain/sandbox/trust-policy';
import { MAX_BODY_BYTES } from '../../functions/http/request-guards';
import type { LocalService } from '../../lib/local/service';
import { getJson, startTestService } from '../support/local';
import { sandboxCalls } from '../support/sandbox-calls';

let service: LocalService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const post = (path: string, body?: string, headers: Record<string, string> = {}) =>
  getJson(`${service.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

function expectProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(ErrorResponse.safeParse(res.body).success).toBe(true);
  expect(res.body).toMatchObject({ status, code, service: 'public-trust-verification-service' });
  expect(res.body.correlationId).toEqual(expect.any(String));
  expect(res.body.correlationId).toBe(res.headers.get('x-correlation-id'));
  expect(JSON.stringify(res.body)).not.toMatch(/\bat \S+:\d+|\/work\/|node_modules|Error:|\.ts\b/);
}

/** What the pure domain gives for an example: the route must answer exactly this. */
function expectedFor(path: string, body: unknown): unknown {
  const text = JSON.stringify(body);
  if (path.endsWith('/test-clock')) return testClock(parseJsonBody(text, testClockRequest, { optional: true }));
  if (path.endsWith('/trust-policy')) return evaluateTrustPolicy(parseJsonBody(text, trustPolicyRequest, { optional: false }));
  if (path.endsWith('/offline-verification')) return verifyOfflineBundle(parseJsonBody(text, offlineVerificationRequest, { optional: false }));
  const provider = findProvider(path.split('/')[4])!;
  return runProvider(provider, providerRequest(provider, body));
}

describe('sandbox examples through their routes', () => {
  it.each(SANDBOX_EXAMPLES.map((e) => [e.name, e] as const))('%s answers 200 with the deterministic result', async (_name, example) => {
    const first = await post(example.path, JSON.stringify(example.body));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    expect(first.body).toEqual(expectedFor(example.path, example.body));
    const again = await post(example.path, JSON.stringify(example.body), { 'x-correlation-id': 'another-request-0001' });
    expect(again.body).toEqual(first.body);
  });

  it('every provider exampleRequest (as providers.json publishes it) runs and returns 200', async () => {
    for (const provider of SANDBOX_PROVIDERS) {
      const res = await post(`/developers/sandbox/providers/${provider.providerId}/run`, JSON.stringify(provider.exampleRequest));
      expect(res.status).toBe(200);
      expect(ProviderRunResult.parse(res.body)).toEqual(res.body);
      expect(res.body.providerId).toBe(provider.providerId);
    }
  });
});

describe('POST /developers/sandbox/test-clock', () => {
  it('accepts an empty body and uses the fixed default instant', async () => {
    const res = await getJson(`${service.url}/developers/sandbox/test-clock`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(TestClock.parse(res.body)).toMatchObject({ startAt: '2026-01-01T00:00:00.000Z', now: '2026-01-01T00:00:00.000Z', startAtSource: 'DEFAULT' });
  });

  it('refuses a body not labelled JSON (what curl -d sends) with 415, and reads one labelled application/json', async () => {
    const res = await getJson(`${service.url}/developers/sandbox/test-clock`, { method: 'POST', body: '{"advanceMs":1000}', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const ok = await post('/developers/sandbox/test-clock', '{"advanceMs":1000}');
    expect(ok.status).toBe(200);
    expect(ok.body.now).toBe('2026-01-01T00:00:01.000Z');
  });

  it.each([
    ['not a JSON object', '[1,2]', '(body)'],
    ['malformed JSON', '{"startAt":', '(body)'],
    ['non-numeric advanceMs', '{"advanceMs":"soon"}', 'advanceMs'],
    ['negative advanceMs', '{"advanceMs":-1}', 'advanceMs'],
    ['fractional advanceMs', '{"advanceMs":0.5}', 'advanceMs'],
    ['absurdly large advanceMs', `{"advanceMs":${MAX_ADVANCE_MS * 10}}`, 'advanceMs'],
    ['startAt not RFC 3339', '{"startAt":"next tuesday"}', 'startAt'],
    ['unknown field', '{"startAt":"2026-01-01T00:00:00Z","timezone":"UTC"}', 'timezone'],
  ])('422 ErrorResponse for %s, naming the field', async (_what, body, field) => {
    const res = await post('/developers/sandbox/test-clock', body);
    expectProblem(res, 422, 'INVALID_REQUEST');
    expect(res.body.field).toBe(field);
    expect(res.body.detail).toContain(field === '(body)' ? 'body' : `'${field}'`);
    expect(res.body.errors[0]).toMatchObject({ field, pointer: expect.any(String), detail: expect.any(String) });
    expect(res.body.endpoint).toBe('/developers/sandbox/test-clock');
  });
});

describe('POST /developers/sandbox/providers/{providerId}/run', () => {
  it('404 problem for an unregistered provider, listing the registered ones', async () => {
    const res = await post('/developers/sandbox/providers/real-bank/run', '{}');
    expectProblem(res, 404, 'PROVIDER_NOT_REGISTERED');
    expect(res.body.registeredProviders).toEqual(SANDBOX_PROVIDERS.map((p) => p.providerId));
  });

  it('422 naming the failing field when the request is rejected', async () => {
    const res = await post('/developers/sandbox/providers/wallet/run', JSON.stringify({ credentialType: 'AGE_OVER_18', requestedClaims: ['ageOver18'], nonce: 'nonce-1234' }));
    expectProblem(res, 422, 'INVALID_REQUEST');
    expect(res.body.field).toBe('audience');
    expect(res.body.detail).toBe("Field 'audience' is required.");
  });

  it('422 for a missing body (a provider request is required)', async () => {
    const res = await post('/developers/sandbox/providers/wallet/run');
    expectProblem(res, 422, 'INVALID_REQUEST');
  });
});

describe('POST /developers/sandbox/trust-policy', () => {
  it('answers a SHADOW decision that validates against its schema', async () => {
    const example = SANDBOX_EXAMPLES.find((e) => e.name === 'trust-policy-baseline-deny')!;
    const res = await post(example.path, JSON.stringify(example.body));
    expect(TrustPolicyDecision.parse(res.body)).toMatchObject({ decision: 'DENY', liveState: 'SHADOW', enforced: false });
    expect(res.body.reasons.length).toBeGreaterThan(0);
  });

  it('422 naming the node of a malformed rule', async () => {
    const res = await post(
      '/developers/sandbox/trust-policy',
      JSON.stringify({ subject: { assuranceLevel: 'LOW', channel: 'REST_API', credentialStatus: 'VALID' }, policy: { id: 'p', rules: [{ id: 'r', when: { method: ['x', 'y'] }, decision: 'ALLOW', reason: 'r' }] } }),
    );
    expectProblem(res, 422, 'INVALID_REQUEST');
    expect(res.body.field).toBe('policy.rules[0].when.method');
  });

  it('422 for nesting deeper than the documented limit', async () => {
    const deep = '['.repeat(200) + ']'.repeat(200);
    const res = await post('/developers/sandbox/trust-policy', `{"subject":${deep}}`);
    expectProblem(res, 422, 'INVALID_REQUEST');
  });
});

describe('POST /developers/sandbox/offline-verification', () => {
  it('answers PASS, HOLD and FAIL for the published bundles, each result validating against its schema', async () => {
    const outcomes: Record<string, string> = {};
    for (const example of SANDBOX_EXAMPLES.filter((e) => e.path.endsWith('/offline-verification'))) {
      const res = await post(example.path, JSON.stringify(example.body));
      expect(res.status).toBe(200);
      outcomes[example.name] = OfflineVerificationResult.parse(res.body).outcome;
    }
    expect(outcomes).toEqual({ 'offline-verification-pass': 'PASS', 'offline-verification-hold': 'HOLD', 'offline-verification-fail': 'FAIL' });
  });

  it('422 naming the field for a bundle without trusted keys', async () => {
    const example = SANDBOX_EXAMPLES.find((e) => e.name === 'offline-verification-pass')!;
    const res = await post(example.path, JSON.stringify({ ...(example.body as object), trustedKeys: undefined }));
    expectProblem(res, 422, 'INVALID_REQUEST');
    expect(res.body.field).toBe('trustedKeys');
  });
});

describe('limits and methods on every sandbox route', () => {
  const paths = sandboxOperations.map((op) => op.path.replace('{providerId}', 'wallet'));

  it.each(paths)('%s: 413 problem for a body over 64 KiB', async (path) => {
    const res = await post(path, JSON.stringify({ pad: 'x'.repeat(MAX_BODY_BYTES) }));
    expectProblem(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.body.maxBodyBytes).toBe(MAX_BODY_BYTES);
  });

  it.each(paths)('%s: only POST (405 with Allow: POST, OPTIONS otherwise)', async (path) => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await getJson(`${service.url}${path}`, { method });
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    }
  });

  it('every error answer carries a correlation id, echoing a well-formed caller one', async () => {
    for (const call of sandboxCalls().filter((c) => c.expectStatus !== 200)) {
      const res = await getJson(`${service.url}${call.path}`, {
        method: call.method,
        body: call.body,
        headers: { 'x-correlation-id': 'sandbox-corr-0001', ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
      });
      expect(res.status).toBe(call.expectStatus);
      expect(res.body.correlationId).toBe('sandbox-corr-0001');
      expect(res.headers.get('x-correlation-id')).toBe('sandbox-corr-0001');
    }
  });
});
