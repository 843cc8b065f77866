import { correlationIdFrom } from '../../functions/http/correlation';
import { parseReference } from '../../functions/http/params';
import { Problem, problemBody, PROBLEMS } from '../../functions/http/problem';
import { buildRouter } from '../../lib/local/router';
import { operations } from '../../functions/contract/operations';

describe('correlation ids', () => {
  it('keeps a well-formed caller id', () => {
    expect(correlationIdFrom('3f2a9c1e-0b7d-4e55-9c1a-2d3e4f5a6b7c', 'req-1')).toBe('3f2a9c1e-0b7d-4e55-9c1a-2d3e4f5a6b7c');
    expect(correlationIdFrom('trace:abc.def_123', 'req-1')).toBe('trace:abc.def_123');
  });
  it('replaces anything else with the request id', () => {
    for (const bad of [undefined, '', 'short', 'has space in it', 'x'.repeat(129), 'new\nline-injected', '<script>alert(1)</script>']) {
      expect(correlationIdFrom(bad, 'req-1')).toBe('req-1');
    }
  });
});

describe('reference validation', () => {
  it('accepts 3 to 180 characters of the documented set', () => {
    expect(parseReference('ABC')).toBe('ABC');
    expect(parseReference('a'.repeat(180))).toBe('a'.repeat(180));
    expect(parseReference('ord-2026.01_x:y~z')).toBe('ord-2026.01_x:y~z');
  });
  it.each([
    ['too short', 'AB'],
    ['too long', 'a'.repeat(181)],
    ['a space', 'ORD 1'],
    ['a slash', 'ORD/1'],
    ['percent-encoding', 'ORD%201'],
    ['a leading dash', '-ORD1'],
    ['non-ASCII', 'ÖRD-1'],
    ['missing', undefined],
  ])('refuses %s with INVALID_REFERENCE', (_why, value) => {
    try {
      parseReference(value);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(Problem);
      expect((error as Problem).code).toBe('INVALID_REFERENCE');
      expect((error as Problem).status).toBe(400);
    }
  });
});

describe('problem details', () => {
  it('carries every ErrorResponse field and a type per code', () => {
    const body = problemBody(new Problem('NOT_FOUND', 'No living object is held under reference X.'), {
      correlationId: 'corr-12345678',
      instance: '/v1/objects/XYZ',
      endpoint: '/v1/objects/{reference}',
    });
    expect(body).toEqual({
      type: 'urn:svc:problem:not-found',
      title: 'Record not found',
      status: 404,
      detail: 'No living object is held under reference X.',
      instance: '/v1/objects/XYZ',
      code: 'NOT_FOUND',
      correlationId: 'corr-12345678',
      service: 'public-trust-verification-service',
      endpoint: '/v1/objects/{reference}',
    });
  });
  it('has a distinct type for every documented code', () => {
    const types = Object.keys(PROBLEMS).map((code) => problemBody(new Problem(code as keyof typeof PROBLEMS, 'x'), { correlationId: 'c', instance: '/', endpoint: null }).type);
    expect(new Set(types).size).toBe(types.length);
  });
});

describe('router from the contract table', () => {
  const match = buildRouter(operations);
  it('finds operations and decodes path parameters', () => {
    const m = match('GET', '/v1/objects/ORD-2026-0001');
    expect(m).toMatchObject({ kind: 'found', operation: { operationId: 'resolveObject' }, pathParameters: { reference: 'ORD-2026-0001' } });
  });
  it('answers method-not-allowed with the allowed methods for a known path', () => {
    expect(match('DELETE', '/v1/objects/ORD-1')).toEqual({ kind: 'method-not-allowed', allow: ['GET'], template: '/v1/objects/{reference}' });
  });
  it('answers not-found for unknown paths', () => {
    expect(match('GET', '/v2/objects/ORD-1')).toEqual({ kind: 'not-found' });
    expect(match('GET', '/v1/objects/ORD-1/extra')).toEqual({ kind: 'not-found' });
  });
  it('declares every operation id and method+path once', () => {
    const ids = operations.map((o) => o.operationId);
    const routes = operations.map((o) => `${o.method} ${o.path}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(routes).size).toBe(routes.length);
  });
});
