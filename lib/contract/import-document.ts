import type { Operation } from '../../functions/contract/operation';
import { SERVICE_NAME } from '../../functions/contract/service';
import { problemType } from '../../functions/http/problem';
import { operations } from '../../functions/contract/operations';
import { buildOpenApi30Base } from './openapi';

type Json = Record<string, any>;

/** Where each operation is integrated; the stack passes CDK tokens, `npm run contract` passes placeholders. */
export interface IntegrationTargets {
  /** Lambda invocation URI for an operation's function. */
  lambdaUri(op: Operation): string;
  /** S3 object path URI (arn:aws:apigateway:REGION:s3:path/BUCKET/KEY) for a published document. */
  documentUri(key: string): string;
  /** Role API Gateway assumes to read the catalogue bucket. */
  documentRole: string;
}

/** API Gateway's REST import rejects some JSON Schema keywords; drop or rewrite them. */
function sanitizeForApiGateway(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(sanitizeForApiGateway);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === 'example' || k === 'examples' || k === 'discriminator' || k === 'const') continue;
    out[k === 'oneOf' ? 'anyOf' : k] = sanitizeForApiGateway(v);
  }
  return out;
}

function problemTemplate(code: string, status: number, title: string, detail: string, endpoint: string | null): string {
  return JSON.stringify({
    type: problemType(code as never),
    title,
    status,
    detail,
    instance: '$context.path',
    code,
    correlationId: '$context.requestId',
    service: SERVICE_NAME,
    endpoint,
  });
}

const PROBLEM_HEADERS = {
  'gatewayresponse.header.Content-Type': "'application/problem+json'",
  'gatewayresponse.header.x-correlation-id': 'context.requestId',
  'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
};

/** Unknown paths, throttling and gateway faults answer as problem details too. */
const GATEWAY_RESPONSES = {
  MISSING_AUTHENTICATION_TOKEN: {
    statusCode: 404,
    responseParameters: PROBLEM_HEADERS,
    responseTemplates: { 'application/json': problemTemplate('ROUTE_NOT_FOUND', 404, 'No such endpoint', 'No endpoint is published at this path.', null) },
  },
  THROTTLED: {
    statusCode: 429,
    responseParameters: { ...PROBLEM_HEADERS, 'gatewayresponse.header.Retry-After': "'1'" },
    responseTemplates: { 'application/json': problemTemplate('THROTTLED', 429, 'Too many requests', 'The request rate limit was exceeded. Retry shortly.', null) },
  },
  DEFAULT_4XX: {
    responseParameters: PROBLEM_HEADERS,
    responseTemplates: { 'application/json': problemTemplate('INVALID_PARAMETER', 400, 'Request refused', '$context.error.messageString', null) },
  },
  DEFAULT_5XX: {
    responseParameters: { ...PROBLEM_HEADERS, 'gatewayresponse.header.Retry-After': "'1'" },
    responseTemplates: { 'application/json': problemTemplate('DEPENDENCY_UNAVAILABLE', 503, 'Dependency temporarily unavailable', 'The service could not be reached. Retry shortly.', null) },
  },
};

function lambdaIntegration(op: Operation, targets: IntegrationTargets): Json {
  return { type: 'aws_proxy', httpMethod: 'POST', uri: targets.lambdaUri(op), passthroughBehavior: 'when_no_match' };
}

/** A document straight from the bucket: ETag/Cache-Control/Content-Type passed through, If-None-Match forwarded. */
function documentIntegration(op: Operation, key: string, targets: IntegrationTargets): Json {
  const passHeaders = {
    'method.response.header.Content-Type': 'integration.response.header.Content-Type',
    'method.response.header.ETag': 'integration.response.header.ETag',
    'method.response.header.Cache-Control': 'integration.response.header.Cache-Control',
    'method.response.header.X-Content-Type-Options': "'nosniff'",
    'method.response.header.x-correlation-id': 'context.requestId',
  };
  return {
    type: 'aws',
    httpMethod: 'GET',
    uri: targets.documentUri(key),
    credentials: targets.documentRole,
    passthroughBehavior: 'when_no_match',
    requestParameters: { 'integration.request.header.If-None-Match': 'method.request.header.If-None-Match' },
    responses: {
      '2\\d{2}': { statusCode: '200', responseParameters: passHeaders },
      '304': { statusCode: '304', responseParameters: passHeaders },
      default: {
        statusCode: '503',
        responseParameters: { 'method.response.header.Content-Type': "'application/problem+json'", 'method.response.header.x-correlation-id': 'context.requestId' },
        responseTemplates: {
          'application/json': problemTemplate('DEPENDENCY_UNAVAILABLE', 503, 'Dependency temporarily unavailable', 'The catalogue store did not answer. Retry shortly.', op.path),
        },
      },
    },
  };
}

function documentMethodResponses(object: Json): Json {
  const headers = {
    'Content-Type': { schema: { type: 'string' } },
    ETag: { schema: { type: 'string' } },
    'Cache-Control': { schema: { type: 'string' } },
    'X-Content-Type-Options': { schema: { type: 'string' } },
    'x-correlation-id': { schema: { type: 'string' } },
  };
  const parameters: Json[] = object.parameters ?? [];
  return {
    ...object,
    // The published contract already declares If-None-Match on conditional operations; API Gateway needs it declared to forward it.
    parameters: parameters.some((p) => p.name === 'If-None-Match') ? parameters : [...parameters, { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }],
    responses: {
      ...object.responses,
      '200': { ...object.responses['200'], headers },
      '304': { description: 'Not modified', headers },
      '503': { description: 'Catalogue store unavailable', headers: { 'x-correlation-id': { schema: { type: 'string' } } } },
    },
  };
}

function methodNotAllowed(path: string, allow: string[]): Json {
  const allowList = allow.join(', ');
  return {
    summary: 'Any other method on this path',
    responses: { '405': { description: 'Method not allowed', headers: { Allow: { schema: { type: 'string' } }, 'x-correlation-id': { schema: { type: 'string' } } } } },
    'x-amazon-apigateway-integration': {
      type: 'mock',
      requestTemplates: { 'application/json': '{"statusCode": 405}' },
      passthroughBehavior: 'when_no_templates',
      responses: {
        default: {
          statusCode: '405',
          responseParameters: {
            'method.response.header.Allow': `'${allowList}'`,
            'method.response.header.x-correlation-id': 'context.requestId',
          },
          responseTemplates: {
            'application/json': problemTemplate('METHOD_NOT_ALLOWED', 405, 'Method not allowed', `Allowed: ${allowList}.`, path),
          },
        },
      },
    },
  };
}

/**
 * The API Gateway REST import document: OpenAPI 3.0.3 from the same contract table, with
 * x-amazon-apigateway-integration on every operation, a 405 problem for any other method on a
 * known path, and problem-details gateway responses for unknown paths, throttling and faults.
 */
export function buildImportDocument(targets: IntegrationTargets): Json {
  const base = buildOpenApi30Base();
  for (const op of operations) {
    const pathItem = base.paths[op.path];
    const method = op.method.toLowerCase();
    let object = pathItem[method];
    if (op.integration.kind === 'lambda') {
      object['x-amazon-apigateway-integration'] = lambdaIntegration(op, targets);
    } else {
      object = documentMethodResponses(object);
      object['x-amazon-apigateway-integration'] = documentIntegration(op, op.integration.key, targets);
    }
    pathItem[method] = object;
  }
  for (const [path, pathItem] of Object.entries(base.paths as Record<string, Json>)) {
    pathItem['x-amazon-apigateway-any-method'] = methodNotAllowed(path, Object.keys(pathItem).map((m) => m.toUpperCase()));
  }
  return {
    ...(sanitizeForApiGateway(base) as Json),
    'x-amazon-apigateway-gateway-responses': GATEWAY_RESPONSES,
    'x-amazon-apigateway-api-key-source': 'HEADER',
  };
}

/** Placeholders for the published copy (`npm run contract`); the stack substitutes real ARNs. */
export const PLACEHOLDER_TARGETS: IntegrationTargets = {
  lambdaUri: (op) => `arn:aws:apigateway:{region}:lambda:path/2015-03-31/functions/{${op.operationId}FunctionArn}/invocations`,
  documentUri: (key) => `arn:aws:apigateway:{region}:s3:path/{catalogueBucket}/${key}`,
  documentRole: '{catalogueReadRoleArn}',
};
