import { operations } from '../../functions/contract/operations';
import { refusesUnknownQueryParameters } from '../../functions/contract/operation';
import { QUERY_LENIENT_PATHS, QUERY_PARAMETERS_READ, resolveObjectParams, getStatusListParams } from '../../functions/generated/params';
import { checkParam, referenceNotFound, refuseUnknownQueryParameters } from '../../functions/http/params';
import { Problem } from '../../functions/http/problem';
import { buildOpenApi } from '../../lib/contract/openapi';

/** The problem a call throws (fails the test when it throws nothing). */
function thrown(call: () => unknown): Problem {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(Problem);
    return error as Problem;
  }
  throw new Error('expected a problem, got none');
}

describe('query parameters an operation does not read', () => {
  test('a case slip is refused with the parameter meant and the ones the operation reads', () => {
    const problem = thrown(() => refuseUnknownQueryParameters('/v1/objects/{reference}', { asof: '2026-11-25T00:00:00Z' }));
    expect(problem.status).toBe(400);
    expect(problem.code).toBe('UNKNOWN_PARAMETER');
    expect(problem.detail).toBe("Unknown query parameter 'asof': did you mean 'asOf'? This endpoint reads 'asOf', 'limit'.");
    expect(problem.extra).toEqual({ parameter: 'asof', knownParameters: ['asOf', 'limit'], didYouMean: 'asOf' });
  });

  test('a name like none of them is refused naming those the route reads; of several, the first is named', () => {
    const foo = thrown(() => refuseUnknownQueryParameters('/v1/objects/{reference}', { foo: '1' }));
    expect(foo.detail).toBe("Unknown query parameter 'foo'. This endpoint reads 'asOf', 'limit'.");
    expect(foo.extra).not.toHaveProperty('didYouMean');
    const both = thrown(() => refuseUnknownQueryParameters('/v1/objects/{reference}', { asOf: '2026-11-25T00:00:00Z', LIMIT: '3', foo: '1' }));
    expect(both.extra).toEqual({ parameter: 'LIMIT', knownParameters: ['asOf', 'limit'], didYouMean: 'limit' });
  });

  test('an operation that reads none says so, POST operations too', () => {
    expect(thrown(() => refuseUnknownQueryParameters('/v1/ledger', { x: '1' })).detail).toBe("Unknown query parameter 'x'. This endpoint reads no query parameters.");
    expect(thrown(() => refuseUnknownQueryParameters('/developers/sandbox/test-clock', { debug: '1' })).code).toBe('UNKNOWN_PARAMETER');
  });

  test('parameters an operation reads pass, and so does any parameter of a page', () => {
    expect(() => refuseUnknownQueryParameters('/v1/objects/{reference}', { asOf: '2026-11-25T00:00:00Z', limit: '5' })).not.toThrow();
    expect(() => refuseUnknownQueryParameters('/v1/objects/{reference}', null)).not.toThrow();
    for (const page of ['/', '/developers', '/verify', '/trust-receipt/{reference}', '/studio', '/developers/reference']) {
      expect(() => refuseUnknownQueryParameters(page, { utm_source: 'receipt', utm_medium: 'qr' })).not.toThrow();
    }
  });

  test('a very long unknown name is cut in the answer', () => {
    const problem = thrown(() => refuseUnknownQueryParameters('/health', { ['n'.repeat(500)]: '1' }));
    expect(problem.extra.parameter).toBe('n'.repeat(64));
  });

  test('the generated tables hold for every Lambda operation exactly the rule and the query parameters of the contract', () => {
    for (const op of operations.filter((o) => o.integration.kind === 'lambda')) {
      const key = `${op.method} ${op.path}`;
      const read = (QUERY_PARAMETERS_READ[op.path] ?? '').split(' ').filter(Boolean);
      if (refusesUnknownQueryParameters(op)) expect([key, QUERY_LENIENT_PATHS.includes(op.path), read]).toEqual([key, false, Object.keys(op.queryParams ?? {})]);
      else expect([key, QUERY_LENIENT_PATHS.includes(op.path)]).toEqual([key, true]);
    }
    const pages = operations.filter((op) => op.integration.kind === 'lambda' && !refusesUnknownQueryParameters(op)).map((op) => op.path);
    expect(pages).toEqual(expect.arrayContaining(['/', '/developers', '/verify', '/trust-receipt/{reference}']));
  });

  test('the published contract lists the 400 on every operation that refuses unknown parameters', () => {
    const document = buildOpenApi() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const missing = operations
      .filter(refusesUnknownQueryParameters)
      .filter((op) => !document.paths[op.path][op.method.toLowerCase()].responses['400'])
      .map((op) => `${op.method} ${op.path}`);
    expect(missing).toEqual([]);
  });
});

describe("a '+' that arrived as a space", () => {
  test('an instant with its offset sent unencoded is told to send %2B', () => {
    const problem = thrown(() => checkParam(resolveObjectParams.asOf, 'asOf', '2026-11-25T10:00:00 02:00'));
    expect(problem.code).toBe('INVALID_PARAMETER');
    expect(problem.detail).toBe("Parameter 'asOf' is invalid: must be an RFC 3339 date-time with a time zone offset (Z or +hh:mm); its '+' arrived as a space: in a query string send it as %2B. " + resolveObjectParams.asOf.description);
    expect(thrown(() => checkParam(getStatusListParams.timestamp, 'timestamp', '2026-11-25T10:00:00 01:00')).detail).toContain('%2B');
  });

  test('a value that is wrong anyway gets no such hint', () => {
    expect(thrown(() => checkParam(resolveObjectParams.asOf, 'asOf', 'yesterday at noon')).detail).not.toContain('%2B');
    expect(thrown(() => checkParam(resolveObjectParams.asOf, 'asOf', '2026-11-25T10:00:00')).detail).not.toContain('%2B');
  });
});

describe('references are case-sensitive', () => {
  test('a miss whose upper-case form is held names it', async () => {
    const asked: string[] = [];
    const problem = await referenceNotFound('ord-2026-0001', "No living object is held under reference 'ord-2026-0001'.", async (candidate) => {
      asked.push(candidate);
      return true;
    });
    expect(asked).toEqual(['ORD-2026-0001']);
    expect([problem.status, problem.code, problem.extra]).toEqual([404, 'NOT_FOUND', { didYouMean: 'ORD-2026-0001' }]);
    expect(problem.detail).toBe("No living object is held under reference 'ord-2026-0001'. References are case-sensitive: did you mean 'ORD-2026-0001'?");
  });

  test('no hint when the upper-case form is not held, when there is no lower-case letter, or when the look-up fails', async () => {
    const plain = "No record is held under reference 'x'.";
    expect((await referenceNotFound('ord-9', plain, async () => false)).detail).toBe(plain);
    let asked = false;
    expect(
      (
        await referenceNotFound('ORD-9', plain, async () => {
          asked = true;
          return true;
        })
      ).extra,
    ).toEqual({});
    expect(asked).toBe(false);
    const failed = await referenceNotFound('ord-9', plain, async () => {
      throw new Error('store down');
    });
    expect([failed.code, failed.detail]).toEqual(['NOT_FOUND', plain]);
  });
});
