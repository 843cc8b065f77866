import type { Operation } from '../../functions/contract/operation';

export interface Route {
  operation: Operation;
  pattern: RegExp;
  paramNames: string[];
}

export type Match =
  | { kind: 'found'; operation: Operation; pathParameters: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[]; template: string }
  | { kind: 'not-found' };

/** A percent-encoded path segment decoded (as it came when it is not valid percent-encoding). */
export function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Routes built from the contract table; literal paths win over templated ones, as in API Gateway. */
export function buildRouter(operations: readonly Operation[]) {
  const routes: Route[] = operations
    .map((operation) => {
      const paramNames: string[] = [];
      const source = operation.path
        .split('/')
        .map((segment) => {
          const m = /^\{(\w+)\}$/.exec(segment);
          if (m) {
            paramNames.push(m[1]);
            // A multi-segment parameter (a tile path) takes the rest of the path, slashes included.
            return operation.multiSegmentParams?.includes(m[1]) ? '(.+)' : '([^/]+)';
          }
          return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        })
        .join('/');
      return { operation, pattern: new RegExp(`^${source}$`), paramNames };
    })
    .sort((a, b) => a.paramNames.length - b.paramNames.length);

  return function match(method: string, path: string): Match {
    const candidates = routes.filter((r) => r.pattern.test(path));
    if (candidates.length === 0) return { kind: 'not-found' };
    const template = candidates[0].operation.path;
    const sameTemplate = candidates.filter((r) => r.operation.path === template);
    const route = sameTemplate.find((r) => r.operation.method === method);
    if (!route) return { kind: 'method-not-allowed', allow: sameTemplate.map((r) => r.operation.method), template };
    const values = route.pattern.exec(path)!.slice(1);
    const pathParameters: Record<string, string> = {};
    route.paramNames.forEach((name, i) => (pathParameters[name] = decode(values[i])));
    return { kind: 'found', operation: route.operation, pathParameters };
  };
}
