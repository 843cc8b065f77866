import { decode } from '../../local/router';

/**
 * The REST API that the template's import document (the Body of AWS::ApiGateway::RestApi, OpenAPI
 * with x-amazon-apigateway-* extensions) defines: its resources as API Gateway builds them from
 * the paths, and which method and integration a request reaches. A request path is matched segment
 * by segment, a literal segment before a {parameter} and a {parameter} before a greedy {proxy+}; a
 * method falls back to the path's x-amazon-apigateway-any-method; nothing found is API Gateway's
 * MISSING_AUTHENTICATION_TOKEN.
 */

export interface ApiMethod {
  /** The resource's path template, e.g. /v1/objects/{reference}. */
  resourcePath: string;
  httpMethod: string;
  operationId?: string;
  integration: Record<string, any>;
}

export type RouteMatch = { kind: 'found'; method: ApiMethod; pathParameters: Record<string, string> } | { kind: 'missing' };

interface ResourceNode {
  literal: Map<string, ResourceNode>;
  parameter?: { name: string; node: ResourceNode };
  greedy?: { name: string; node: ResourceNode };
  methods: Map<string, ApiMethod>;
  path: string;
}

const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function newNode(path: string): ResourceNode {
  return { literal: new Map(), methods: new Map(), path };
}

export class RestApiRoutes {
  private readonly root = newNode('/');
  readonly methods: ApiMethod[] = [];

  constructor(body: Record<string, any>) {
    for (const [path, item] of Object.entries((body.paths ?? {}) as Record<string, Record<string, any>>)) {
      const node = this.nodeFor(path);
      for (const [key, operation] of Object.entries(item)) {
        const httpMethod = key === 'x-amazon-apigateway-any-method' ? 'ANY' : OPENAPI_METHODS.includes(key) ? key.toUpperCase() : null;
        if (!httpMethod) continue;
        const integration = operation['x-amazon-apigateway-integration'];
        if (!integration) throw new Error(`${httpMethod} ${path} has no x-amazon-apigateway-integration: API Gateway would refuse the import`);
        const method: ApiMethod = { resourcePath: path, httpMethod, operationId: operation.operationId, integration };
        node.methods.set(httpMethod, method);
        this.methods.push(method);
      }
    }
  }

  private nodeFor(path: string): ResourceNode {
    let node = this.root;
    const segments = path.split('/').filter(Boolean);
    segments.forEach((segment, i) => {
      const here = `/${segments.slice(0, i + 1).join('/')}`;
      const greedy = /^\{(\w+)\+\}$/.exec(segment);
      const parameter = /^\{(\w+)\}$/.exec(segment);
      if (greedy) {
        node.greedy ??= { name: greedy[1], node: newNode(here) };
        node = node.greedy.node;
      } else if (parameter) {
        node.parameter ??= { name: parameter[1], node: newNode(here) };
        node = node.parameter.node;
      } else {
        if (!node.literal.has(segment)) node.literal.set(segment, newNode(here));
        node = node.literal.get(segment)!;
      }
    });
    return node;
  }

  /** The method a request reaches; `path` is the path below the stage, still percent-encoded. */
  match(httpMethod: string, path: string): RouteMatch {
    const segments = path.split('/').slice(1);
    if (segments.length === 1 && segments[0] === '') segments.length = 0;
    const found = this.walk(this.root, segments, {});
    if (!found) return { kind: 'missing' };
    const method = found.node.methods.get(httpMethod) ?? found.node.methods.get('ANY');
    return method ? { kind: 'found', method, pathParameters: found.parameters } : { kind: 'missing' };
  }

  private walk(node: ResourceNode, segments: string[], parameters: Record<string, string>): { node: ResourceNode; parameters: Record<string, string> } | null {
    if (segments.length === 0) return node.methods.size > 0 ? { node, parameters } : null;
    const [first, ...rest] = segments;
    const literal = node.literal.get(decode(first)) ?? node.literal.get(first);
    if (literal) {
      const found = this.walk(literal, rest, parameters);
      if (found) return found;
    }
    if (node.parameter && first !== '') {
      const found = this.walk(node.parameter.node, rest, { ...parameters, [node.parameter.name]: decode(first) });
      if (found) return found;
    }
    if (node.greedy && node.greedy.node.methods.size > 0) {
      return { node: node.greedy.node, parameters: { ...parameters, [node.greedy.name]: segments.map(decode).join('/') } };
    }
    return null;
  }
}
