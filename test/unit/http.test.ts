import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { httpHandler } from '../../functions/http/boundary';
import { collectLogLines, loadedWithLogLevel } from '../support/log-lines';
import { StoreNotConfigured, StoreUnavailable } from '../../functions/store/errors';
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

describe('the Lambda boundary', () => {
  const event = (overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent =>
    ({
      resource: '/x',
      path: '/x',
      httpMethod: 'GET',
      headers: { 'x-correlation-id': 'boundary-test-0001' },
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'req-1', path: '/x' },
      ...overrides,
    }) as unknown as APIGatewayProxyEvent;
  const context = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs, functionName: 'f', awsRequestId: 'req-1' }) as unknown as Context;

  it('answers 503 with Retry-After when the function runs out of time, not a bare failure', async () => {
    const handler = httpHandler(() => new Promise(() => undefined));
    const result = await handler(event(), context(80));
    expect(result.statusCode).toBe(503);
    expect(result.headers!['retry-after']).toBe('1');
    expect(JSON.parse(result.body)).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', correlationId: 'boundary-test-0001' });
  });

  it('maps the store conditions to 503s and anything unexpected to a 500 that says nothing', async () => {
    const unavailable = await httpHandler(async () => {
      throw new StoreUnavailable('Query');
    })(event(), context(5000));
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.headers!['retry-after']).toBe('1');
    const gated = await httpHandler(async () => {
      throw new StoreNotConfigured();
    })(event(), context(5000));
    expect(JSON.parse(gated.body).code).toBe('PERSISTENCE_NOT_CONFIGURED');
    const fault = await httpHandler(async () => {
      throw new TypeError('secret internals at /work/x.ts:1');
    })(event(), context(5000));
    expect(fault.statusCode).toBe(500);
    expect(fault.body).not.toContain('secret');
  });

  /** The boundary, the logger and the store's errors as a function logging at INFO loads them. */
  const atInfo = () =>
    loadedWithLogLevel('INFO', () => ({
      ...(require('../../functions/http/boundary') as typeof import('../../functions/http/boundary')),
      ...(require('../../functions/logging/logger') as typeof import('../../functions/logging/logger')),
      ...(require('../../functions/store/errors') as typeof import('../../functions/store/errors')),
      ...(require('../../functions/http/problem') as typeof import('../../functions/http/problem')),
    }));

  it('logs a 503 with the store operation and the error underneath it, by name, code and message', async () => {
    const { httpHandler, StoreUnavailable } = atInfo();
    const collected = collectLogLines();
    try {
      const missingCredentials = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
      await httpHandler(async () => {
        throw new StoreUnavailable('Query record window', { cause: missingCredentials });
      })(event(), context(5000));
      const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });
      await httpHandler(async () => {
        throw new StoreUnavailable('GetItem ledger head', { cause: refused });
      })(event(), context(5000));
      await httpHandler(async () => {
        throw new StoreUnavailable('BatchGetItem left keys unprocessed 3 times');
      })(event(), context(5000));
    } finally {
      collected.restore();
    }
    const warnings = collected.lines.filter((line) => line.message === 'dependency problem');
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 'WARN',
        code: 'DEPENDENCY_UNAVAILABLE',
        operation: 'Query record window',
        cause: { name: 'CredentialsProviderError', message: 'Could not load credentials from any providers' },
        correlation_id: 'boundary-test-0001',
      }),
      expect.objectContaining({ operation: 'GetItem ledger head', cause: { name: 'Error', code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:8000' } }),
      expect.objectContaining({ level: 'WARN', code: 'DEPENDENCY_UNAVAILABLE', operation: 'BatchGetItem left keys unprocessed 3 times' }),
    ]);
    expect(warnings[2]).not.toHaveProperty('cause');
  });

  it('logs a refusal as one JSON line with its status, problem code, correlation id, endpoint and invocation, and no key of an earlier request; an answer at INFO not at all', async () => {
    const { httpHandler, logger, Problem: LoadedProblem } = atInfo();
    const collected = collectLogLines();
    try {
      const handler = httpHandler(async (request) => {
        if (request.endpoint === '/first') logger.appendKeys({ onlyFirst: true });
        if (request.endpoint === '/served') return { status: 200, body: {} };
        throw new LoadedProblem('NOT_FOUND', 'nothing here');
      });
      await handler(event({ resource: '/first' }), context(5000));
      await handler(event({ resource: '/served' }), context(5000));
      await handler(event({ headers: { 'x-correlation-id': 'boundary-test-0002' } }), { ...context(5000), functionName: 'g', awsRequestId: 'req-2' } as Context);
    } finally {
      collected.restore();
    }
    const logged = collected.lines;
    expect(logged).toEqual([
      expect.objectContaining({ level: 'INFO', message: 'request refused', status: 404, problem: 'NOT_FOUND', correlation_id: 'boundary-test-0001', endpoint: '/first', function_request_id: 'req-1', onlyFirst: true }),
      expect.objectContaining({ level: 'INFO', message: 'request refused', status: 404, problem: 'NOT_FOUND', correlation_id: 'boundary-test-0002', endpoint: '/x', function_request_id: 'req-2' }),
    ]);
    expect(logged[1]).not.toHaveProperty('onlyFirst');
    // The log group names the function: its name is not repeated on every line.
    expect(logged[1]).not.toHaveProperty('function_name');
  });

  it('answers HEAD like GET without the body', async () => {
    const handler = httpHandler(async () => ({ status: 200, body: { hello: 'world' } }));
    const get = await handler(event(), context(5000));
    const head = await handler(event({ httpMethod: 'HEAD' }), context(5000));
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers).toEqual({ ...get.headers, 'x-correlation-id': head.headers!['x-correlation-id'] });
  });
});
