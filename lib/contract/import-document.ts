import type { z } from 'zod';
import type { Operation } from '../../functions/contract/operation';
import { operations as contractOperations } from '../../functions/contract/operations';
import { CONTRACT_VERSION, SERVICE_NAME } from '../../functions/contract/service';
import { NEGATIVE_CACHE_CONTROL, NEVER_STORED } from '../../functions/contract/caching';
import { CORS_RESPONSE_HEADERS, preflightHeaders } from '../../functions/http/cors';
import { problemType, type ProblemCode } from '../../functions/http/problem';
import { errorStatuses, schemaRef } from './openapi';

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

/** `access-control-allow-origin` -> `Access-Control-Allow-Origin` (how the headers are declared on method responses). */
const headerName = (lower: string) => lower.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
/** A literal value in an API Gateway mapping: single-quoted. Values come from our own constants and hold no quote. */
const literal = (value: string) => {
  if (value.includes("'")) throw new Error(`a mapped header value cannot hold a single quote: ${value}`);
  return `'${value}'`;
};

/** CORS headers every answer API Gateway writes itself carries (documents, 405, gateway responses). */
const CORS_HEADERS: Record<string, string> = Object.fromEntries(Object.entries(CORS_RESPONSE_HEADERS).map(([k, v]) => [headerName(k), v]));

const declareHeaders = (names: string[]): Json => Object.fromEntries(names.map((name) => [name, { schema: { type: 'string' } }]));
const mapLiterals = (prefix: string, headers: Record<string, string>): Json =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [`${prefix}${name}`, literal(value)]));

/**
 * The detail of a gateway response that is API Gateway's own message. `$context.error.messageString`
 * is that message already quoted as a JSON string ("..."), so it stands in the template unquoted;
 * `"$context.error.messageString"` would be a string inside quotes, and the body no longer JSON.
 */
const GATEWAY_MESSAGE = Symbol('API Gateway message');

function problemTemplate(code: ProblemCode, status: number, title: string, detail: string | typeof GATEWAY_MESSAGE, endpoint: string | null): string {
  const marker = '\u0000gateway-message\u0000';
  const text = JSON.stringify({
    type: problemType(code),
    title,
    status,
    detail: detail === GATEWAY_MESSAGE ? marker : detail,
    instance: '$context.path',
    code,
    correlationId: '$context.requestId',
    service: SERVICE_NAME,
    endpoint,
  });
  return text.replace(JSON.stringify(marker), '$context.error.messageString');
}

/**
 * Gateway responses take only request parameters or literals as header values (no $context), so
 * the correlation id of a gateway-made problem is in its body (correlationId), not in a header.
 */
const PROBLEM_HEADERS = {
  'gatewayresponse.header.Content-Type': "'application/problem+json'",
  'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
  // The gateway's own refusals and faults are never stored by a cache (a stored 429 or 503 would outlive its cause).
  'gatewayresponse.header.Cache-Control': literal(NEVER_STORED),
  ...mapLiterals('gatewayresponse.header.', CORS_HEADERS),
};

/** A path no route serves: a 404 a shared cache may keep briefly, like every 404 to a read (functions/contract/caching.ts). */
const NOT_FOUND_HEADERS = { ...PROBLEM_HEADERS, 'gatewayresponse.header.Cache-Control': literal(NEGATIVE_CACHE_CONTROL) };

/** Unknown paths, throttling and gateway faults answer as problem details too, readable cross-origin. */
const GATEWAY_RESPONSES = {
  MISSING_AUTHENTICATION_TOKEN: {
    statusCode: 404,
    responseParameters: NOT_FOUND_HEADERS,
    responseTemplates: { 'application/json': problemTemplate('ROUTE_NOT_FOUND', 404, 'No such endpoint', 'No endpoint is published at this path.', null) },
  },
  RESOURCE_NOT_FOUND: {
    statusCode: 404,
    responseParameters: NOT_FOUND_HEADERS,
    responseTemplates: { 'application/json': problemTemplate('ROUTE_NOT_FOUND', 404, 'No such endpoint', 'No endpoint is published at this path.', null) },
  },
  THROTTLED: {
    statusCode: 429,
    responseParameters: { ...PROBLEM_HEADERS, 'gatewayresponse.header.Retry-After': "'1'" },
    responseTemplates: { 'application/json': problemTemplate('THROTTLED', 429, 'Too many requests', 'The request rate limit was exceeded. Retry shortly.', null) },
  },
  // The 405 catch-all takes JSON (or no) bodies only; another media type is refused before it, as 415.
  UNSUPPORTED_MEDIA_TYPE: {
    statusCode: 415,
    responseParameters: PROBLEM_HEADERS,
    responseTemplates: { 'application/json': problemTemplate('UNSUPPORTED_MEDIA_TYPE', 415, 'Unsupported media type', 'The request body\'s media type is not accepted here.', null) },
  },
  DEFAULT_4XX: {
    responseParameters: PROBLEM_HEADERS,
    responseTemplates: { 'application/json': problemTemplate('INVALID_PARAMETER', 400, 'Request refused', GATEWAY_MESSAGE, null) },
  },
  // A fixed status for every gateway fault (integration timeout or failure, configuration error):
  // the caller sees 503 with Retry-After, as the body says, never a bare 500/502/504.
  DEFAULT_5XX: {
    statusCode: 503,
    responseParameters: { ...PROBLEM_HEADERS, 'gatewayresponse.header.Retry-After': "'1'" },
    responseTemplates: { 'application/json': problemTemplate('DEPENDENCY_UNAVAILABLE', 503, 'Dependency temporarily unavailable', 'The service could not be reached. Retry shortly.', null) },
  },
};

/**
 * Parameters as API Gateway reads them: name, in, required, description and the type, nothing
 * else (it ignores every other attribute). Their constraints live in the public contract and are
 * enforced by the function. The receivers' required Standard Webhooks headers are declared too;
 * with no request validator configured API Gateway passes a delivery without them on, and the
 * function answers 401 problem details naming what is missing. Their security scheme is not: API
 * Gateway takes an apiKey scheme for its own API keys or an authorizer, while the function itself
 * verifies the signature (the public contract declares the scheme).
 */
function parameters(op: Operation): Json[] {
  const typeOf = (schema: z.ZodType) => {
    const json = schemaRef(schema, 'openapi-3.0');
    return { type: typeof json.type === 'string' ? json.type : 'string' };
  };
  const params: Json[] = [];
  for (const [name, schema] of Object.entries(op.pathParams ?? {})) params.push({ name, in: 'path', required: true, schema: typeOf(schema) });
  for (const [name, schema] of Object.entries(op.queryParams ?? {})) params.push({ name, in: 'query', required: op.requiredQueryParams?.includes(name) ?? false, schema: typeOf(schema) });
  for (const [name, schema] of Object.entries(op.requiredHeaders ?? {})) params.push({ name, in: 'header', required: true, schema: typeOf(schema) });
  return params;
}

/** Declared responses of a proxy method: documentation only (the function's answer passes as is), so no models. */
function proxyResponses(op: Operation): Json {
  const responses: Json = { [String(op.response.status ?? 200)]: { description: op.summary } };
  if (op.alsoAnswers) responses[String(op.alsoAnswers.status)] = { description: op.alsoAnswers.description };
  if (op.method === 'GET') responses['304'] = { description: 'Not modified' };
  for (const status of errorStatuses(op)) responses[String(status)] = { description: 'Problem details (application/problem+json)' };
  return responses;
}

function lambdaMethod(op: Operation, targets: IntegrationTargets, method: 'GET' | 'HEAD' | 'POST'): Json {
  return {
    ...(method === 'HEAD' ? { operationId: `${op.operationId}Head` } : { operationId: op.operationId }),
    summary: method === 'HEAD' ? `${op.summary} (headers only)` : op.summary,
    parameters: parameters(op),
    responses: proxyResponses(op),
    // The same function answers HEAD: the boundary gives the GET answer's status and headers without the body.
    'x-amazon-apigateway-integration': { type: 'aws_proxy', httpMethod: 'POST', uri: targets.lambdaUri(op), passthroughBehavior: 'when_no_match' },
  };
}

/** Time API Gateway waits for S3 (objects of at most a few hundred KiB, normally read in tens of ms). */
export const DOCUMENT_TIMEOUT_MS = 5_000;

const DOCUMENT_HEADERS = ['Content-Type', 'ETag', 'Cache-Control', 'X-Content-Type-Options', 'x-correlation-id', ...Object.keys(CORS_HEADERS)];

/**
 * An object straight from the bucket: ETag/Cache-Control/Content-Type passed through, If-None-Match
 * forwarded, CORS added. Developer documents (a fixed key; anything but 2xx/304 is the bucket not
 * answering, 503) and the ledger's tile log (keys with path parameters; a missing object, which S3
 * answers 403 or 404 to a reader without ListBucket, is 404).
 */
function documentMethod(op: Operation, key: string, targets: IntegrationTargets, method: 'GET' | 'HEAD'): Json {
  const passHeaders = {
    'method.response.header.Content-Type': 'integration.response.header.Content-Type',
    'method.response.header.ETag': 'integration.response.header.ETag',
    'method.response.header.Cache-Control': 'integration.response.header.Cache-Control',
    'method.response.header.X-Content-Type-Options': "'nosniff'",
    'method.response.header.x-correlation-id': 'context.requestId',
    ...mapLiterals('method.response.header.', CORS_HEADERS),
  };
  const problemHeaders = {
    'method.response.header.Content-Type': "'application/problem+json'",
    'method.response.header.x-correlation-id': 'context.requestId',
    'method.response.header.Retry-After': "'1'",
    'method.response.header.Cache-Control': literal(NEVER_STORED),
    ...mapLiterals('method.response.header.', CORS_HEADERS),
  };
  const notFoundHeaders = {
    ...Object.fromEntries(Object.entries(problemHeaders).filter(([name]) => !name.endsWith('Retry-After'))),
    'method.response.header.Cache-Control': literal(NEGATIVE_CACHE_CONTROL),
  };
  const pathParams = [...key.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const log = op.integration.kind === 'log';
  const problemBody = (code: ProblemCode, status: number, title: string, detail: string) =>
    // HEAD answers carry no body, so only GET renders the problem.
    method === 'GET' ? { responseTemplates: { 'application/json': problemTemplate(code, status, title, detail, op.path) } } : {};
  return {
    operationId: method === 'HEAD' ? `${op.operationId}Head` : op.operationId,
    summary: method === 'HEAD' ? `${op.summary} (headers only)` : op.summary,
    // API Gateway forwards only the request headers (and maps only the path parameters) a method declares.
    parameters: [
      ...pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
    ],
    responses: {
      '200': { description: op.summary, headers: declareHeaders(DOCUMENT_HEADERS) },
      '304': { description: 'Not modified', headers: declareHeaders(DOCUMENT_HEADERS) },
      ...(log ? { '404': { description: 'No such resource in the log', headers: declareHeaders(['Content-Type', 'x-correlation-id', 'Cache-Control', ...Object.keys(CORS_HEADERS)]) } } : {}),
      '503': { description: 'Catalogue store unavailable', headers: declareHeaders(['Content-Type', 'x-correlation-id', 'Retry-After', 'Cache-Control', ...Object.keys(CORS_HEADERS)]) },
    },
    'x-amazon-apigateway-integration': {
      type: 'aws',
      // S3 answers HEAD with the object's headers and no body; the role's s3:GetObject covers HeadObject.
      httpMethod: method,
      uri: targets.documentUri(key),
      // A bucket that does not answer becomes 503 problem details within seconds, not after API Gateway's 29 s.
      timeoutInMillis: DOCUMENT_TIMEOUT_MS,
      credentials: targets.documentRole,
      passthroughBehavior: 'when_no_match',
      requestParameters: {
        ...Object.fromEntries(pathParams.map((name) => [`integration.request.path.${name}`, `method.request.path.${name}`])),
        'integration.request.header.If-None-Match': 'method.request.header.If-None-Match',
      },
      responses: {
        '2\\d{2}': { statusCode: '200', responseParameters: passHeaders },
        '304': { statusCode: '304', responseParameters: passHeaders },
        ...(log
          ? {
              '40[34]': {
                statusCode: '404',
                responseParameters: notFoundHeaders,
                ...problemBody('ROUTE_NOT_FOUND', 404, 'No such resource', 'The log holds no resource at this path (yet): fetch the checkpoint first, then only the tiles its size needs.'),
              },
            }
          : {}),
        default: {
          statusCode: '503',
          responseParameters: problemHeaders,
          ...problemBody('DEPENDENCY_UNAVAILABLE', 503, 'Dependency temporarily unavailable', 'The catalogue store did not answer. Retry shortly.'),
        },
      },
    },
  };
}

/** The CORS preflight of a path: a mock answering 204 with the path's methods and the allowed request headers. */
function preflight(methods: string[]): Json {
  const headers = Object.fromEntries(Object.entries(preflightHeaders(methods)).map(([k, v]) => [headerName(k), v]));
  return {
    summary: 'CORS preflight',
    responses: { '204': { description: 'Preflight answer', headers: declareHeaders(Object.keys(headers)) } },
    'x-amazon-apigateway-integration': {
      type: 'mock',
      requestTemplates: { 'application/json': '{"statusCode": 204}' },
      passthroughBehavior: 'when_no_match',
      responses: { default: { statusCode: '204', responseParameters: mapLiterals('method.response.header.', headers) } },
    },
  };
}

/** Any method the path does not declare: 405 problem details with Allow (the path's methods, HEAD, OPTIONS). */
function methodNotAllowed(path: string, methods: string[]): Json {
  const allow = preflightHeaders(methods).allow;
  return {
    summary: 'Any other method on this path',
    responses: { '405': { description: 'Method not allowed', headers: declareHeaders(['Allow', 'Content-Type', 'x-correlation-id', 'Cache-Control', ...Object.keys(CORS_HEADERS)]) } },
    'x-amazon-apigateway-integration': {
      type: 'mock',
      requestTemplates: { 'application/json': '{"statusCode": 405}' },
      passthroughBehavior: 'when_no_templates',
      responses: {
        default: {
          statusCode: '405',
          responseParameters: {
            'method.response.header.Allow': literal(allow),
            'method.response.header.Content-Type': "'application/problem+json'",
            'method.response.header.Cache-Control': literal(NEVER_STORED),
            'method.response.header.x-correlation-id': 'context.requestId',
            ...mapLiterals('method.response.header.', CORS_HEADERS),
          },
          responseTemplates: { 'application/json': problemTemplate('METHOD_NOT_ALLOWED', 405, 'Method not allowed', `Allowed: ${allow}.`, path) },
        },
      },
    },
  };
}

/** The API Gateway resource path: a multi-segment parameter is greedy, `{name+}`. */
export const gatewayPath = (op: Pick<Operation, 'path' | 'multiSegmentParams'>): string =>
  op.path.replace(/\{(\w+)\}/g, (whole, name: string) => (op.multiSegmentParams?.includes(name) ? `{${name}+}` : whole));

/**
 * The API Gateway REST import document: OpenAPI 3.0.3 from the contract table, carrying only what
 * API Gateway uses (lib/contract/apigateway-rules.ts lints it against every documented restriction).
 * Per path: each operation with its integration, HEAD beside every GET (same function, or S3 HEAD
 * for documents), an OPTIONS preflight mock, and a 405 mock for any other method. No models: no
 * request validator is configured (the functions validate against the contract and answer problem
 * details) and proxy responses are never validated; the full schemas are in the public contract.
 */
export function buildImportDocument(targets: IntegrationTargets, operations: readonly Operation[] = contractOperations): Json {
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    const item = (paths[gatewayPath(op)] ??= {});
    const methods: ('GET' | 'HEAD' | 'POST')[] = op.method === 'GET' ? ['GET', 'HEAD'] : [op.method];
    for (const method of methods) {
      item[method.toLowerCase()] =
        op.integration.kind === 'lambda' ? lambdaMethod(op, targets, method) : documentMethod(op, op.integration.key, targets, method as 'GET' | 'HEAD');
    }
  }
  for (const [path, item] of Object.entries(paths)) {
    const methods = operations.filter((op) => gatewayPath(op) === path).map((op) => op.method);
    // OpenAPI requires every template expression of the path to be a declared parameter of each operation.
    const pathParameters = [...path.matchAll(/\{([^}+]+)\+?\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const withPathParameters = (object: Json) => (pathParameters.length > 0 ? { ...object, parameters: pathParameters } : object);
    item.options = withPathParameters(preflight(methods));
    item['x-amazon-apigateway-any-method'] = withPathParameters(methodNotAllowed(path, methods));
  }
  const template = targets === PLACEHOLDER_TARGETS;
  return {
    openapi: '3.0.3',
    info: {
      title: 'Public Trust and Verification Service',
      version: CONTRACT_VERSION,
      ...(template
        ? { description: 'TEMPLATE: the names in braces ({region}, {<operationId>FunctionArn}, {catalogueBucket}, {catalogueReadRoleArn}) are placeholders; the stack imports this document with the real ARNs.' }
        : {}),
    },
    paths,
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
