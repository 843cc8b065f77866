import fc from 'fast-check';
import type { Operation } from '../../functions/contract/operation';
import { operations } from '../../functions/contract/operations';
import { firstMatchingPattern, pathPatternMatcher } from '../../lib/assembly/edge/path-pattern';
import { edgeRouting, MAX_CACHE_BEHAVIOURS, routeClassId, routeClassOf, samplePath } from '../../lib/stack/route-classes';

/** The route classes and the edge's behaviours, derived from the contract table alone. */

const byId = (id: string) => operations.find((op) => op.operationId === id)!;

describe('route classes', () => {
  test('every operation has one; receivers and sandbox POSTs are never cached, the tile log goes to the bucket', () => {
    for (const op of operations) {
      const c = routeClassOf(op);
      if (op.method === 'POST') {
        expect([op.operationId, c.key]).toEqual([op.operationId, null]);
        expect(c.name).toBe(op.integration.kind === 'lambda' && op.integration.access === 'ingress-write' ? 'receiver' : 'sandbox');
      }
      expect([op.operationId, c.origin]).toEqual([op.operationId, op.integration.kind === 'log' ? 'log-bucket' : 'api']);
    }
    expect(operations.filter((op) => routeClassOf(op).name === 'receiver').map((op) => op.operationId).sort()).toEqual(['receiveLifecycleEvent', 'receiveSourceWebhook']);
  });

  test('a page keys on exactly the query parameters it declares, a JSON read on all of them, a document on none', () => {
    for (const op of operations.filter((o) => o.method === 'GET')) {
      const { name, key } = routeClassOf(op);
      if (name === 'page') expect([op.operationId, key!.queryStrings]).toEqual([op.operationId, op.queryParams ? Object.keys(op.queryParams).sort() : 'none']);
      if (name === 'read') expect(key!.queryStrings).toBe('all');
      if (name === 'document' || name === 'log' || name === 'landing') expect(key!.queryStrings).toBe('none');
    }
    expect(routeClassOf(byId('getVerifyPage')).key).toEqual({ queryStrings: ['lang', 'reference'], headers: ['accept', 'accept-language'] });
    expect(routeClassOf(byId('getTrustReceipt')).key).toEqual({ queryStrings: ['lang'], headers: ['accept', 'accept-language'] });
    // English-only pages negotiate only the form of their errors.
    expect(routeClassOf(byId('getStudio')).key).toEqual({ queryStrings: 'none', headers: ['accept'] });
    expect(routeClassOf(byId('getLanding')).key).toEqual({ queryStrings: 'none', headers: ['accept'] });
    expect(routeClassOf(byId('resolveObject')).key).toEqual({ queryStrings: 'all', headers: [] });
  });

  test('a POST that is neither a receiver nor a sandbox operation has no class', () => {
    const writer = { ...byId('runTestClock'), operationId: 'writeSomething', integration: { kind: 'lambda', entry: 'x.ts', access: 'table-read' } } as Operation;
    expect(() => routeClassOf(writer)).toThrow('writeSomething');
  });
});

describe('CloudFront path patterns', () => {
  test('`*` spans slashes, `?` is one character, matching is case-sensitive and whole', () => {
    expect(pathPatternMatcher('/ledger/*')('/ledger/tile/0/x001/234')).toBe(true);
    expect(pathPatternMatcher('/ledger/*')('/ledger')).toBe(false);
    expect(pathPatternMatcher('/Ledger/*')('/ledger/checkpoint')).toBe(false);
    expect(pathPatternMatcher('/v1/portable-credentials/*/vc.json')('/v1/portable-credentials/C-1/vc.json')).toBe(true);
    expect(pathPatternMatcher('/v1/portable-credentials/*/vc.json')('/v1/portable-credentials/C-1/vc.jsonx')).toBe(false);
    expect(pathPatternMatcher('/a?c')('/abc')).toBe(true);
    expect(pathPatternMatcher('ledger/*')('/ledger/checkpoint')).toBe(true);
    expect(firstMatchingPattern(['/v1/webhooks/*', '/v1/*'], '/v1/webhooks/commerce')).toBe('/v1/webhooks/*');
  });
});

describe('the edge behaviours of the contract table', () => {
  const routing = edgeRouting(operations);

  test('every operation reaches its class by the first pattern matching its path (the default behaviour takes `/`)', () => {
    const patterns = routing.behaviours.map((b) => b.pathPattern);
    for (const op of operations) {
      const pattern = firstMatchingPattern(patterns, samplePath(op));
      const routed = pattern ? routing.behaviours.find((b) => b.pathPattern === pattern)!.routeClass : routing.defaultClass;
      expect([op.operationId, routeClassId(routed)]).toEqual([op.operationId, routeClassId(routeClassOf(op))]);
    }
    expect(routing.defaultClass.name).toBe('landing');
  });

  test('within CloudFront\'s quota of cache behaviours, and no pattern twice', () => {
    expect(routing.behaviours.length).toBeLessThan(MAX_CACHE_BEHAVIOURS);
    expect(new Set(routing.behaviours.map((b) => b.pathPattern)).size).toBe(routing.behaviours.length);
  });

  test('the tile log has one pattern, to the bucket, and no API route falls under it', () => {
    const log = routing.behaviours.filter((b) => b.routeClass.origin === 'log-bucket');
    expect(log.map((b) => b.pathPattern)).toEqual(['/ledger/*']);
    for (const op of operations.filter((o) => o.integration.kind !== 'log')) expect([op.path, pathPatternMatcher('/ledger/*')(samplePath(op))]).toEqual([op.path, false]);
  });

  test('any part of the table, in any order, is routed (the derivation does not depend on today\'s paths)', () => {
    const root = byId('getLanding');
    const others = operations.filter((op) => op !== root);
    fc.assert(
      fc.property(fc.shuffledSubarray(others), (subset) => {
        const table = [root, ...subset];
        const derived = edgeRouting(table);
        for (const op of table) {
          const pattern = firstMatchingPattern(
            derived.behaviours.map((b) => b.pathPattern),
            samplePath(op),
          );
          const routed = pattern ? derived.behaviours.find((b) => b.pathPattern === pattern)!.routeClass : derived.defaultClass;
          expect(routeClassId(routed)).toBe(routeClassId(routeClassOf(op)));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('a new page below a JSON prefix gets a pattern of its own, before the prefix\'s wildcard', () => {
    const page = { ...byId('getTrustReceipt'), operationId: 'getObjectPage', path: '/v1/objects/{reference}/page' };
    const derived = edgeRouting([...operations, page]);
    const patterns = derived.behaviours.map((b) => b.pathPattern);
    const classOf = (path: string) => {
      const pattern = firstMatchingPattern(patterns, path);
      return { pattern, name: derived.behaviours.find((b) => b.pathPattern === pattern)?.routeClass.name };
    };
    const own = classOf('/v1/objects/ORD-1/page');
    expect(own.name).toBe('page');
    expect(patterns.indexOf(own.pattern!)).toBeLessThan(patterns.indexOf('/v1/*'));
    expect(classOf('/v1/objects/ORD-1')).toEqual({ pattern: '/v1/*', name: 'read' });
  });

  test('a GET and a POST on one path that the edge would handle differently stop the derivation, naming both', () => {
    const clash = { ...byId('runTestClock'), operationId: 'postObject', path: '/v1/objects/{reference}' };
    expect(() => edgeRouting([...operations, clash])).toThrow(/resolveObject and postObject share the path/);
  });

  test('a table without a landing has no default behaviour', () => {
    expect(() => edgeRouting(operations.filter((op) => op.path !== '/'))).toThrow('no GET /');
  });
});
