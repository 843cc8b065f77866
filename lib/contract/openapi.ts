import * as z from 'zod';
import { operations } from '../../functions/contract/operations';
import { LIVE_STATE_MEANINGS, refusesUnknownQueryParameters, type Operation } from '../../functions/contract/operation';
import { CACHE_CLASS_MEANINGS, CACHE_CONTROL, NEGATIVE_CACHE_CONTROL } from '../../functions/contract/caching';
import { contractRegistry } from '../../functions/contract/registry';
import { CONTRACT_VERSION, SERVICE_NAME } from '../../functions/contract/service';
import { PROBLEMS } from '../../functions/http/problem';
import { localOrigins, ORIGIN_DESCRIPTIONS, originsOfPath, originUrl, type OriginName, type Origins } from './origins';
import { X_SVC } from './x-svc';

export type Target = 'draft-2020-12' | 'openapi-3.0';
type Json = Record<string, any>;

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid input (reference, identifier or parameter), or a query parameter the operation does not read (UNKNOWN_PARAMETER)',
  401: 'Signature missing, invalid, or outside the replay window (receivers)',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'The reference exists but is not of the kind this operation reads',
  413: 'Request body too large',
  415: 'Unsupported media type',
  422: 'Request rejected',
  429: 'Too many requests (retry after the Retry-After seconds)',
  500: 'Unexpected error (no internals are disclosed)',
  503: 'Dependency temporarily unavailable',
};

/**
 * Problem statuses an operation can answer: its own, 429 from gateway throttling (every
 * operation), 400 on the JSON API for a query parameter it does not read, and 500 where a
 * function runs (an unexpected error; documents never answer 500).
 */
export function errorStatuses(op: Operation): number[] {
  const statuses = new Set([...op.errors, 429]);
  if (refusesUnknownQueryParameters(op)) statuses.add(400);
  if (op.integration.kind === 'lambda') statuses.add(500);
  return [...statuses].sort((a, b) => a - b);
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** Integer parameters bounded within 32 bits say so (format int32), as OpenAPI formats expect. */
function withIntegerFormat(schema: Json): Json {
  if (schema.type !== 'integer' || schema.format) return schema;
  const bounded = typeof schema.minimum === 'number' && typeof schema.maximum === 'number' && schema.minimum >= INT32.min && schema.maximum <= INT32.max;
  return { ...schema, format: bounded ? 'int32' : 'int64' };
}

/** RFC 9110 If-None-Match: "*" or a comma-separated list of (weak or strong) entity tags. */
const ENTITY_TAG_LIST = '^(\\*|(W/)?"[^"]*"(\\s*,\\s*(W/)?"[^"]*")*)$';

/** Headers of a read's 200 and 304 answers: how long it may be kept, its entity tag, and what it was negotiated on. */
function conditionalHeaders(op: Operation): Json {
  return {
    ETag: { description: 'Entity tag of the answer (weak, W/"...", where it names the instant it was evaluated at); send it back in If-None-Match.', schema: { type: 'string' } },
    'Cache-Control': { description: `How long the answer may be kept: ${cachingClasses(op).map((name) => `\`${CACHE_CONTROL[name]}\``).join(' or ')}.`, schema: { type: 'string' } },
    ...(op.varies?.length ? { Vary: { description: `The request headers the answer depends on: ${op.varies.join(', ')}.`, schema: { type: 'string' } } } : {}),
  };
}

const cachingClasses = (op: Operation) => op.caching ?? [];

/**
 * What a read's description says about its caching: each class its answers may have, with its
 * Cache-Control and meaning (functions/contract/caching.ts), and the rule for its errors.
 */
export function cachingText(op: Operation): string {
  if (op.method !== 'GET') return '';
  const classes = cachingClasses(op).map((name) => `\`${CACHE_CONTROL[name]}\` (${name}): ${CACHE_CLASS_MEANINGS[name]}`);
  const vary = op.varies?.length ? ` Answers vary on ${op.varies.join(' and ')}.` : '';
  return (
    `Caching: ${classes.join(' ')}${vary} Every 200 carries an ETag; If-None-Match with it gets 304. ` +
    `A 404 may be kept briefly (\`${NEGATIVE_CACHE_CONTROL}\`); no other error is ever stored (\`no-store\`).`
  );
}

function stripMeta(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** Every registered component schema, with cross-references as #/components/schemas/X. */
export function componentSchemas(target: Target): Record<string, Json> {
  const out = z.toJSONSchema(contractRegistry, { target, io: 'input', uri: (id) => `#/components/schemas/${id}`, unrepresentable: 'any' }) as { schemas: Record<string, Json> };
  return Object.fromEntries(Object.entries(out.schemas).map(([id, s]) => [id, stripMeta(s)]));
}

/** A schema as used inline (parameters) or by reference (registered components). */
export function schemaRef(schema: z.ZodType, target: Target): Json {
  const meta = contractRegistry.get(schema);
  if (meta) return { $ref: `#/components/schemas/${meta.id}` };
  return stripMeta(z.toJSONSchema(schema, { target, io: 'input', unrepresentable: 'any' }) as Json);
}

function parameters(op: Operation, target: Target): Json[] {
  const params: Json[] = [];
  for (const [name, schema] of Object.entries(op.pathParams ?? {})) {
    params.push({ name, in: 'path', required: true, description: schema.description, schema: schemaRef(schema, target) });
  }
  for (const [name, schema] of Object.entries(op.queryParams ?? {})) {
    params.push({ name, in: 'query', required: op.requiredQueryParams?.includes(name) ?? false, description: schema.description, schema: withIntegerFormat(schemaRef(schema, target)) });
  }
  for (const [name, schema] of Object.entries(op.requiredHeaders ?? {})) {
    params.push({ name, in: 'header', required: true, description: schema.description, schema: schemaRef(schema, target) });
  }
  if (op.method === 'GET') {
    params.push({ name: 'If-None-Match', in: 'header', required: false, description: 'An ETag from an earlier answer: 304 when the answer is unchanged.', schema: { type: 'string', maxLength: 1024, pattern: ENTITY_TAG_LIST } });
  }
  return params;
}

/** The OpenAPI Operation object for one row of the contract table. */
export function operationObject(op: Operation, target: Target): Json {
  const mediaType = op.response.mediaType ?? 'application/json';
  const responses: Json = {
    [String(op.response.status ?? 200)]: {
      description: op.summary,
      headers: { 'x-correlation-id': { $ref: '#/components/headers/CorrelationId' }, ...(op.method === 'GET' ? conditionalHeaders(op) : {}) },
      content: { [mediaType]: { schema: schemaRef(op.response.schema, target) } },
    },
  };
  if (op.alsoAnswers) {
    responses[String(op.alsoAnswers.status)] = {
      description: op.alsoAnswers.description,
      headers: { 'x-correlation-id': { $ref: '#/components/headers/CorrelationId' } },
      content: { 'application/json': { schema: schemaRef(op.alsoAnswers.schema, target) } },
    };
  }
  if (op.method === 'GET') {
    responses['304'] = { description: 'Not modified: the If-None-Match ETag matches.', headers: { 'x-correlation-id': { $ref: '#/components/headers/CorrelationId' }, ...conditionalHeaders(op) } };
  }
  for (const status of errorStatuses(op)) responses[String(status)] = { $ref: `#/components/responses/Problem${status}` };
  const object: Json = {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: [op.description, cachingText(op), `liveState ${op.liveState}: ${LIVE_STATE_MEANINGS[op.liveState]}`].filter(Boolean).join(' '),
    'x-svc-live-state': op.liveState,
    'x-svc-served-by': op.integration.kind === 'lambda' ? 'FUNCTION' : 'DOCUMENT',
    // Each caching class of a read, for tools that configure a cache in front of the service.
    ...(op.method === 'GET'
      ? { 'x-svc-caching': { classes: cachingClasses(op).map((name) => ({ name, cacheControl: CACHE_CONTROL[name] })), varies: [...(op.varies ?? [])] } }
      : {}),
    // Public unless the table names a scheme (the receivers' Standard Webhooks signature).
    security: op.security ? [{ [op.security.name]: [] }] : [],
    parameters: [...parameters(op, target), { $ref: '#/components/parameters/CorrelationId' }],
    responses,
  };
  if (op.requestBody) {
    const schema = schemaRef(op.requestBody.schema, target);
    const mediaTypes = op.requestBody.mediaTypes ?? ['application/json'];
    const alternatives = (op.requestBody.alternatives ?? []).map((a) => [a.mediaType, { schema: schemaRef(a.schema, target) }]);
    object.requestBody = { required: op.requestBody.required, content: Object.fromEntries([...mediaTypes.map((type) => [type, { schema }]), ...alternatives]) };
  }
  return object;
}

function sharedComponents(target: Target): Json {
  const statuses = [...new Set(operations.flatMap(errorStatuses))].sort((a, b) => a - b);
  const problemResponses: Json = {};
  for (const status of statuses) {
    const codes = Object.entries(PROBLEMS).filter(([, p]) => p.status === status).map(([code]) => code);
    problemResponses[`Problem${status}`] = {
      description: `${STATUS_TEXT[status] ?? 'Problem'} (codes: ${codes.join(', ')})`,
      headers: {
        'x-correlation-id': { $ref: '#/components/headers/CorrelationId' },
        ...(status === 429 || status === 503 ? { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 3600 } } } : {}),
      },
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
    };
  }
  const securitySchemes = Object.fromEntries(operations.flatMap((op) => (op.security ? [[op.security.name, op.security.scheme]] : [])));
  return {
    schemas: componentSchemas(target),
    responses: problemResponses,
    securitySchemes,
    parameters: {
      CorrelationId: {
        name: 'x-correlation-id',
        in: 'header',
        required: false,
        description: 'Correlation id to echo (8 to 128 of A-Z a-z 0-9 . _ : -); otherwise the request id is used.',
        schema: { type: 'string', minLength: 8, maxLength: 128, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$' },
      },
    },
    headers: {
      CorrelationId: { description: 'The correlation id of this request (also in every problem body and log line).', schema: { type: 'string' } },
    },
  };
}

/** Paths keyed by template, each with its operations, in table order. */
export function pathsOf(target: Target, decorate: (op: Operation, object: Json) => Json = (_op, o) => o): Json {
  const paths: Json = {};
  for (const op of operations) {
    paths[op.path] ??= {};
    paths[op.path][op.method.toLowerCase()] = decorate(op, operationObject(op, target));
  }
  return paths;
}

const INFO = {
  title: 'Public Trust and Verification Service',
  version: CONTRACT_VERSION,
  description:
    'Read-only public trust and verification information: living objects, commercial proof evidence, credential ' +
    'verification, developer catalogues, and a deterministic sandbox with no production side effects. ' +
    'Responses never contain customer personal data or payment account data. Ledger evidence proves integrity only.',
  license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
  contact: { name: SERVICE_NAME },
};

/**
 * One origin as a Server Object: public (x-internal false), and saying which environment it is:
 * the loopback URL of `npm start` is the local environment, any other URL a deployment.
 */
function server(origins: Origins, name: OriginName): Json {
  const url = originUrl(origins, name);
  const environment = /^http:\/\/127\.0\.0\.1(:\d+)?$/.test(url) ? 'Environment: local (npm start).' : 'Environment: production (a deployment of the stack).';
  return { url, description: `${ORIGIN_DESCRIPTIONS[name]} ${environment}`, 'x-internal': false, 'x-svc-origin': name };
}

/**
 * The public OpenAPI 3.1.0 contract (published at /developers/openapi.json). `servers` declares the
 * two origins; each path repeats the origin(s) it belongs to, so a client generator sends each
 * operation to its own origin.
 */
export function buildOpenApi(origins: Origins = localOrigins()): Json {
  const tags = [...new Set(operations.map((op) => op.tag))].map((name) => ({ name }));
  const paths = pathsOf('draft-2020-12');
  for (const [path, item] of Object.entries(paths as Record<string, Json>)) {
    paths[path] = { servers: originsOfPath(path).map((name) => server(origins, name)), ...item };
  }
  return {
    openapi: '3.1.0',
    info: INFO,
    servers: [server(origins, 'verification'), server(origins, 'general')],
    'x-svc': X_SVC,
    security: [],
    tags,
    paths,
    components: sharedComponents('draft-2020-12'),
  };
}
