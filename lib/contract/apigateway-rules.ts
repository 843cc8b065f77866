/**
 * What API Gateway's REST import accepts, as a linter over an import document. Each rule cites
 * the documented restriction it enforces (Amazon API Gateway developer guide), so a schema or
 * route change that would break a deployment fails a test instead of `cdk deploy`.
 *
 * Sources (developer guide pages, by their file name):
 *   KNOWN   api-gateway-known-issues ("Amazon API Gateway important notes for REST APIs")
 *   IMPORT  api-gateway-import-api ("supports OpenAPI v2.0 and OpenAPI v3.0 definition files")
 *   INTEG   api-gateway-swagger-extensions-integration (x-amazon-apigateway-integration)
 *   GWRESP  supported-gateway-response-types, api-gateway-swagger-extensions-gateway-responses.*
 *   ANY     api-gateway-swagger-extensions-any-method
 *   MODEL   API_Model ("name: Must be an alphanumeric string"; "JSON schema draft 4 model")
 *   MAPPING rest-api-parameter-mapping-sources (parameter mapping source reference for REST APIs)
 */

type Json = Record<string, any>;

export interface Finding {
  rule: string;
  /** JSON pointer-like location in the document. */
  at: string;
  message: string;
}

export interface Rule {
  id: string;
  /** The documented restriction, quoted or closely paraphrased, and where it is written. */
  cites: string;
  check(doc: Json): Finding[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const OPERATION_KEYS = [...HTTP_METHODS, 'x-amazon-apigateway-any-method'] as const;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const pointer = (parts: (string | number)[]) => `#/${parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** Every operation object of the document with its location. */
function operationsOf(doc: Json): { path: string; method: string; op: Json; at: (string | number)[] }[] {
  const out: { path: string; method: string; op: Json; at: (string | number)[] }[] = [];
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of OPERATION_KEYS) if (isObject(item[method])) out.push({ path, method, op: item[method], at: ['paths', path, method] });
  }
  return out;
}

/** Every schema object (models, and schemas inline in parameters, bodies, responses and headers). */
function schemasOf(doc: Json): { schema: Json; at: (string | number)[]; model: boolean }[] {
  const out: { schema: Json; at: (string | number)[]; model: boolean }[] = [];
  for (const [name, schema] of Object.entries(isObject(doc.components?.schemas) ? doc.components.schemas : {})) {
    if (isObject(schema)) out.push({ schema, at: ['components', 'schemas', name], model: true });
  }
  for (const [name, schema] of Object.entries(isObject(doc.definitions) ? doc.definitions : {})) {
    if (isObject(schema)) out.push({ schema, at: ['definitions', name], model: true });
  }
  for (const { op, at } of operationsOf(doc)) {
    (Array.isArray(op.parameters) ? op.parameters : []).forEach((p: Json, i: number) => {
      if (isObject(p?.schema)) out.push({ schema: p.schema, at: [...at, 'parameters', i, 'schema'], model: false });
    });
    for (const [type, media] of Object.entries(isObject(op.requestBody?.content) ? op.requestBody.content : {})) {
      if (isObject((media as Json)?.schema)) out.push({ schema: (media as Json).schema, at: [...at, 'requestBody', 'content', type, 'schema'], model: true });
    }
    for (const [status, response] of Object.entries(isObject(op.responses) ? op.responses : {})) {
      if (!isObject(response)) continue;
      for (const [type, media] of Object.entries(isObject(response.content) ? response.content : {})) {
        if (isObject((media as Json)?.schema)) out.push({ schema: (media as Json).schema, at: [...at, 'responses', status, 'content', type, 'schema'], model: true });
      }
      for (const [name, header] of Object.entries(isObject(response.headers) ? response.headers : {})) {
        if (isObject((header as Json)?.schema)) out.push({ schema: (header as Json).schema, at: [...at, 'responses', status, 'headers', name, 'schema'], model: false });
      }
    }
  }
  return out;
}

/** Every (keyword, location) inside a schema, nested schemas included. Extension (x-) subtrees are not schemas. */
function keywordsOf(schema: Json, at: (string | number)[]): { keyword: string; value: unknown; at: (string | number)[] }[] {
  const out: { keyword: string; value: unknown; at: (string | number)[] }[] = [];
  const visit = (node: unknown, where: (string | number)[]) => {
    if (Array.isArray(node)) return node.forEach((n, i) => visit(n, [...where, i]));
    if (!isObject(node)) return;
    for (const [k, v] of Object.entries(node)) {
      if (k.startsWith('x-')) continue;
      out.push({ keyword: k, value: v, at: [...where, k] });
      // `properties` maps names to schemas: the names are not keywords, their values are schemas.
      if (k === 'properties' || k === 'patternProperties' || k === 'definitions') {
        if (isObject(v)) for (const [name, sub] of Object.entries(v)) visit(sub, [...where, k, name]);
      } else if (k !== 'enum' && k !== 'required' && k !== 'default') {
        visit(v, [...where, k]);
      }
    }
  };
  visit(schema, at);
  return out;
}

function forbidKeyword(id: string, cites: string, keyword: string, scope: 'models' | 'all'): Rule {
  return {
    id,
    cites,
    check: (doc) =>
      schemasOf(doc)
        .filter((s) => scope === 'all' || s.model)
        .flatMap((s) => keywordsOf(s.schema, s.at))
        .filter((k) => k.keyword === keyword)
        .map((k) => ({ rule: id, at: pointer(k.at), message: `'${keyword}' is not supported${scope === 'models' ? ' in models' : ''}` })),
  };
}

/** Keywords of later JSON Schema drafts (6 to 2020-12) that draft 4 does not know. */
const NOT_DRAFT_4 = ['const', 'contains', 'propertyNames', 'if', 'then', 'else', '$defs', 'prefixItems', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'examples', '$comment', 'contentMediaType', 'contentEncoding', '$anchor', '$dynamicRef'];

const MAPPING_SOURCE = /^(method\.request\.(path|querystring|multivaluequerystring|header|multivalueheader)\.[^\s.]+|method\.request\.body(\.[^\s]+)?|stageVariables\.[A-Za-z0-9_]+|context\.[A-Za-z0-9_.]+|'[^']*')$/;
const GATEWAY_RESPONSE_SOURCE = /^(method\.request\.(path|querystring|header)\.[^\s.]+|stageVariables\.[A-Za-z0-9_]+|'[^']*')$/;
const GATEWAY_RESPONSE_TYPES = new Set([
  'DEFAULT_4XX', 'DEFAULT_5XX', 'RESOURCE_NOT_FOUND', 'UNAUTHORIZED', 'INVALID_API_KEY', 'ACCESS_DENIED', 'AUTHORIZER_FAILURE',
  'AUTHORIZER_CONFIGURATION_ERROR', 'INVALID_SIGNATURE', 'EXPIRED_TOKEN', 'MISSING_AUTHENTICATION_TOKEN', 'INTEGRATION_FAILURE',
  'INTEGRATION_TIMEOUT', 'API_CONFIGURATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'BAD_REQUEST_PARAMETERS', 'BAD_REQUEST_BODY',
  'REQUEST_TOO_LARGE', 'THROTTLED', 'QUOTA_EXCEEDED', 'WAF_FILTERED',
]);

export const APIGATEWAY_RULES: readonly Rule[] = [
  {
    id: 'openapi-version',
    cites: 'IMPORT: "API Gateway supports OpenAPI v2.0 and OpenAPI v3.0 definition files" (a 3.1 document is refused at deploy: "Invalid OpenAPI input").',
    check: (doc) =>
      doc.swagger === '2.0' || /^3\.0\.\d+$/.test(String(doc.openapi ?? ''))
        ? []
        : [{ rule: 'openapi-version', at: '#/openapi', message: `version ${doc.openapi ?? doc.swagger} is not OpenAPI 2.0 or 3.0.x` }],
  },
  {
    id: 'path-segments',
    cites:
      'KNOWN: "Path segments can only contain alphanumeric characters, hyphens, periods, commas, and curly braces. Path parameters must be separate path segments."',
    check: (doc) =>
      Object.keys(doc.paths ?? {}).flatMap((path) => {
        const findings: Finding[] = [];
        if (!path.startsWith('/')) findings.push({ rule: 'path-segments', at: pointer(['paths', path]), message: 'a path starts with /' });
        for (const segment of path.split('/').slice(1)) {
          if (path === '/' && segment === '') continue;
          const whole = /^\{[A-Za-z0-9_]+\+?\}$/.test(segment);
          const literal = /^[A-Za-z0-9.,-]+$/.test(segment);
          if (!whole && !literal) {
            findings.push({ rule: 'path-segments', at: pointer(['paths', path]), message: `segment '${segment}' is neither literal (letters, digits, - . ,) nor one whole {parameter}` });
          }
        }
        return findings;
      }),
  },
  {
    id: 'reserved-paths',
    cites: 'KNOWN (REST and WebSocket): "The /ping and /sping paths are reserved for the service health check" (with custom domains, which this stack supports).',
    check: (doc) =>
      Object.keys(doc.paths ?? {})
        .filter((p) => /^\/(ping|sping)(\/|$)/.test(p))
        .map((p) => ({ rule: 'reserved-paths', at: pointer(['paths', p]), message: `${p} is reserved by API Gateway` })),
  },
  {
    id: 'model-names',
    cites: 'KNOWN: "Model names can only contain alphanumeric characters." MODEL: "name: Must be an alphanumeric string."',
    check: (doc) =>
      [...Object.keys(doc.components?.schemas ?? {}), ...Object.keys(doc.definitions ?? {})]
        .filter((name) => !/^[A-Za-z0-9]+$/.test(name))
        .map((name) => ({ rule: 'model-names', at: pointer(['components', 'schemas', name]), message: `model name '${name}' is not alphanumeric` })),
  },
  {
    id: 'parameter-attributes',
    cites:
      'KNOWN: "For input parameters, only the following attributes are supported: name, in, required, type, description. Other attributes are ignored." ' +
      '(The import document carries only those, so it never appears to validate what API Gateway ignores; in OpenAPI 3.0 the type sits in schema.)',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) =>
        (Array.isArray(op.parameters) ? op.parameters : []).flatMap((p: Json, i: number) => {
          const where = [...at, 'parameters', i];
          if (!isObject(p)) return [];
          const extra = Object.keys(p).filter((k) => !['name', 'in', 'required', 'type', 'description', 'schema'].includes(k));
          const extraSchema = isObject(p.schema) ? Object.keys(p.schema).filter((k) => k !== 'type') : [];
          return [
            ...extra.map((k) => ({ rule: 'parameter-attributes', at: pointer([...where, k]), message: `parameter attribute '${k}' is ignored by API Gateway` })),
            ...extraSchema.map((k) => ({ rule: 'parameter-attributes', at: pointer([...where, 'schema', k]), message: `parameter schema keyword '${k}' is ignored by API Gateway` })),
          ];
        }),
      ),
  },
  {
    id: 'security-schemes',
    cites: 'KNOWN: "The securitySchemes type, if used, must be apiKey."',
    check: (doc) =>
      Object.entries({ ...(doc.components?.securitySchemes ?? {}), ...(doc.securityDefinitions ?? {}) })
        .filter(([, s]) => (s as Json)?.type !== 'apiKey')
        .map(([name]) => ({ rule: 'security-schemes', at: pointer(['components', 'securitySchemes', name]), message: 'only apiKey security schemes are supported' })),
  },
  {
    id: 'root-security',
    cites: 'KNOWN: "API Gateway doesn\'t use root level security defined in the OpenAPI specification. Hence security needs to be defined at an operation level."',
    check: (doc) =>
      Array.isArray(doc.security) && doc.security.length > 0 ? [{ rule: 'root-security', at: '#/security', message: 'root-level security is ignored; declare it per operation' }] : [],
  },
  {
    id: 'deprecated',
    cites: 'KNOWN: "The deprecated field is not supported and is dropped in exported APIs."',
    check: (doc) =>
      operationsOf(doc)
        .filter(({ op }) => 'deprecated' in op)
        .map(({ at }) => ({ rule: 'deprecated', at: pointer([...at, 'deprecated']), message: "'deprecated' is not supported" })),
  },
  {
    id: 'draft-4-models',
    cites: 'KNOWN: "API Gateway models are defined using JSON schema draft 4, instead of the JSON schema used by OpenAPI." MODEL: "this should be JSON schema draft 4 model".',
    check: (doc) =>
      schemasOf(doc)
        .filter((s) => s.model)
        .flatMap((s) => keywordsOf(s.schema, s.at))
        .filter((k) => NOT_DRAFT_4.includes(k.keyword) || (k.keyword === 'type' && Array.isArray(k.value)) || (k.keyword === 'exclusiveMaximum' && typeof k.value === 'number'))
        .map((k) => ({ rule: 'draft-4-models', at: pointer(k.at), message: `'${k.keyword}' (as written here) is not JSON Schema draft 4` })),
  },
  forbidKeyword('no-additional-properties', 'KNOWN: "The additionalProperties and anyOf fields are not supported in Models."', 'additionalProperties', 'models'),
  forbidKeyword('no-any-of', 'KNOWN: "The additionalProperties and anyOf fields are not supported in Models."', 'anyOf', 'models'),
  forbidKeyword('no-one-of', 'KNOWN: "oneOf is not supported by API Gateway."', 'oneOf', 'all'),
  forbidKeyword('no-discriminator', 'KNOWN: "The discriminator parameter is not supported in any schema object."', 'discriminator', 'all'),
  forbidKeyword('no-example', 'KNOWN: "The example tag is not supported."', 'example', 'all'),
  forbidKeyword('no-exclusive-minimum', 'KNOWN: "exclusiveMinimum is not supported by API Gateway."', 'exclusiveMinimum', 'all'),
  forbidKeyword('no-read-only', 'KNOWN: "The readOnly field is not supported."', 'readOnly', 'all'),
  {
    id: 'no-example-outside-schemas',
    cites: 'KNOWN: "The example tag is not supported." (Media types and parameters carry example/examples in OpenAPI 3.0 too.)',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) => {
        const found: Finding[] = [];
        (Array.isArray(op.parameters) ? op.parameters : []).forEach((p: Json, i: number) => {
          for (const k of ['example', 'examples']) if (isObject(p) && k in p) found.push({ rule: 'no-example-outside-schemas', at: pointer([...at, 'parameters', i, k]), message: `'${k}' is not supported` });
        });
        const media = [
          ...Object.entries(isObject(op.requestBody?.content) ? op.requestBody.content : {}).map(([t, m]) => ({ m, where: [...at, 'requestBody', 'content', t] })),
          ...Object.entries(isObject(op.responses) ? op.responses : {}).flatMap(([s, r]) =>
            Object.entries(isObject((r as Json)?.content) ? (r as Json).content : {}).map(([t, m]) => ({ m, where: [...at, 'responses', s, 'content', t] })),
          ),
        ];
        for (const { m, where } of media) for (const k of ['example', 'examples']) if (isObject(m) && k in m) found.push({ rule: 'no-example-outside-schemas', at: pointer([...where, k]), message: `'${k}' is not supported` });
        return found;
      }),
  },
  {
    id: 'number-formats',
    cites: 'KNOWN: "Numbers of the Int32 or Int64 type are not supported" ({"format": "int32", "type": "number"}); "Decimal number format type ("format": "decimal") is not supported".',
    check: (doc) =>
      schemasOf(doc).flatMap((s) => {
        const found: Finding[] = [];
        const visit = (node: unknown, where: (string | number)[]) => {
          if (Array.isArray(node)) return node.forEach((n, i) => visit(n, [...where, i]));
          if (!isObject(node)) return;
          if (node.format === 'decimal' || (node.type === 'number' && (node.format === 'int32' || node.format === 'int64'))) {
            found.push({ rule: 'number-formats', at: pointer([...where, 'format']), message: `type ${node.type} with format ${node.format} is not supported` });
          }
          for (const [k, v] of Object.entries(node)) if (!k.startsWith('x-') && k !== 'enum' && k !== 'default') visit(v, [...where, k]);
        };
        visit(s.schema, s.at);
        return found;
      }),
  },
  {
    id: 'response-refs',
    cites: 'KNOWN: "Response definitions of the \\"500\\": {\\"$ref\\": \\"#/responses/UnexpectedError\\"} form is not supported in the OpenAPI document root."',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) =>
        Object.entries(isObject(op.responses) ? op.responses : {})
          .filter(([, r]) => isObject(r) && typeof r.$ref === 'string')
          .map(([status]) => ({ rule: 'response-refs', at: pointer([...at, 'responses', status, '$ref']), message: 'a response must be written inline, not by $ref' })),
      ),
  },
  {
    id: 'response-schema-object',
    cites: 'KNOWN: "In method responses, schema definition must be of an object type and cannot be of primitive types."',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) =>
        Object.entries(isObject(op.responses) ? op.responses : {}).flatMap(([status, r]) =>
          Object.entries(isObject((r as Json)?.content) ? (r as Json).content : {})
            .filter(([, m]) => isObject((m as Json)?.schema) && !(m as Json).schema.$ref && (m as Json).schema.type !== 'object')
            .map(([type]) => ({ rule: 'response-schema-object', at: pointer([...at, 'responses', status, 'content', type, 'schema']), message: 'a method response schema must be an object (or a $ref to a model)' })),
        ),
      ),
  },
  {
    id: 'no-response-models-on-proxy',
    cites:
      'INTEG: with type aws_proxy the function\'s answer is returned as is and method responses are not applied, so a response model there validates nothing ' +
      '(this project carries only what API Gateway uses).',
    check: (doc) =>
      operationsOf(doc)
        .filter(({ op }) => String(op['x-amazon-apigateway-integration']?.type ?? '').toLowerCase() === 'aws_proxy')
        .flatMap(({ op, at }) =>
          Object.entries(isObject(op.responses) ? op.responses : {})
            .filter(([, r]) => isObject((r as Json)?.content))
            .map(([status]) => ({ rule: 'no-response-models-on-proxy', at: pointer([...at, 'responses', status, 'content']), message: 'a proxy integration needs no response model' })),
        ),
  },
  {
    id: 'models-only-where-validated',
    cites:
      'Request models are used only by a request validator that validates bodies (x-amazon-apigateway-request-validator with validateRequestBody); ' +
      'a model no validator reads is carried for nothing.',
    check: (doc) => {
      const validators: Json = doc['x-amazon-apigateway-request-validators'] ?? {};
      const validatesBody = (name: unknown) => typeof name === 'string' && validators[name]?.validateRequestBody === true;
      const rootValidator = doc['x-amazon-apigateway-request-validator'];
      const findings: Finding[] = operationsOf(doc)
        .filter(({ op }) => isObject(op.requestBody?.content) && Object.values(op.requestBody.content).some((m) => isObject((m as Json)?.schema)))
        .filter(({ op }) => !validatesBody(op['x-amazon-apigateway-request-validator'] ?? rootValidator))
        .map(({ at }) => ({ rule: 'models-only-where-validated', at: pointer([...at, 'requestBody']), message: 'a request model without a body validator validates nothing' }));
      const referenced = JSON.stringify(doc.paths ?? {});
      for (const name of Object.keys(doc.components?.schemas ?? {})) {
        if (!referenced.includes(`"#/components/schemas/${name}"`)) {
          findings.push({ rule: 'models-only-where-validated', at: pointer(['components', 'schemas', name]), message: `model ${name} is used by no operation` });
        }
      }
      return findings;
    },
  },
  {
    id: 'integration-present',
    cites: 'INTEG: every method needs an integration; a method without x-amazon-apigateway-integration is created unintegrated and cannot be deployed.',
    check: (doc) =>
      operationsOf(doc)
        .filter(({ op }) => !isObject(op['x-amazon-apigateway-integration']))
        .map(({ at }) => ({ rule: 'integration-present', at: pointer(at), message: 'no x-amazon-apigateway-integration' })),
  },
  {
    id: 'integration-shape',
    cites:
      'INTEG: type is one of aws, aws_proxy, http, http_proxy, mock; "For Lambda function invocations, the value [httpMethod] must be POST"; ' +
      'passthroughBehavior is when_no_templates, when_no_match or never; timeoutInMillis between 50 and 29,000.',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) => {
        const integration = op['x-amazon-apigateway-integration'];
        if (!isObject(integration)) return [];
        const where = pointer([...at, 'x-amazon-apigateway-integration']);
        const found: Finding[] = [];
        const type = String(integration.type ?? '').toLowerCase();
        if (!['aws', 'aws_proxy', 'http', 'http_proxy', 'mock'].includes(type)) found.push({ rule: 'integration-shape', at: where, message: `type '${integration.type}' is not an integration type` });
        const uri = JSON.stringify(integration.uri ?? '');
        if (uri.includes(':lambda:path/') && integration.httpMethod !== 'POST') found.push({ rule: 'integration-shape', at: where, message: 'a Lambda invocation must use httpMethod POST' });
        if (type !== 'mock' && !integration.uri) found.push({ rule: 'integration-shape', at: where, message: 'no uri' });
        if (integration.passthroughBehavior !== undefined && !['when_no_templates', 'when_no_match', 'never'].includes(integration.passthroughBehavior)) {
          found.push({ rule: 'integration-shape', at: where, message: `passthroughBehavior '${integration.passthroughBehavior}' is not supported` });
        }
        if (integration.timeoutInMillis !== undefined && !(integration.timeoutInMillis >= 50 && integration.timeoutInMillis <= 29_000)) {
          found.push({ rule: 'integration-shape', at: where, message: 'timeoutInMillis must be 50 to 29,000' });
        }
        return found;
      }),
  },
  {
    id: 'mapping-sources',
    cites:
      'MAPPING: request mappings read method.request.{path|querystring|multivaluequerystring|header|multivalueheader}.name, method.request.body[.JSONPath], ' +
      'stageVariables.name, context.name or a static value in single quotes; method response headers map "from any integration response header or ' +
      'integration response body, $context variables, or static values". A request mapping may read only a parameter the method declares.',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) => {
        const integration = op['x-amazon-apigateway-integration'];
        if (!isObject(integration)) return [];
        const found: Finding[] = [];
        const declared = new Set((Array.isArray(op.parameters) ? op.parameters : []).map((p: Json) => `${p.in === 'query' ? 'querystring' : p.in}.${p.name}`));
        for (const [target, source] of Object.entries(isObject(integration.requestParameters) ? integration.requestParameters : {})) {
          const where = pointer([...at, 'x-amazon-apigateway-integration', 'requestParameters', target]);
          if (!/^integration\.request\.(path|querystring|header)\.[^\s.]+$/.test(target)) found.push({ rule: 'mapping-sources', at: where, message: `'${target}' is not an integration request parameter` });
          if (typeof source !== 'string' || !MAPPING_SOURCE.test(source)) found.push({ rule: 'mapping-sources', at: where, message: `'${source}' is not a mapping source` });
          const m = typeof source === 'string' ? /^method\.request\.(path|querystring|header)\.(.+)$/.exec(source) : null;
          if (m && !declared.has(`${m[1]}.${m[2]}`)) found.push({ rule: 'mapping-sources', at: where, message: `${source} is not a declared parameter of the method` });
        }
        for (const [selection, response] of Object.entries(isObject(integration.responses) ? integration.responses : {})) {
          for (const [target, source] of Object.entries(isObject((response as Json)?.responseParameters) ? (response as Json).responseParameters : {})) {
            const where = pointer([...at, 'x-amazon-apigateway-integration', 'responses', selection, 'responseParameters', target]);
            if (!/^method\.response\.header\.[^\s]+$/.test(target)) found.push({ rule: 'mapping-sources', at: where, message: `'${target}' is not a method response header` });
            const valid = typeof source === 'string' && (MAPPING_SOURCE.test(source) || /^integration\.response\.(header|multivalueheader)\.[^\s]+$|^integration\.response\.body(\.[^\s]+)?$/.test(source));
            if (!valid) found.push({ rule: 'mapping-sources', at: where, message: `'${source}' is not a response mapping source` });
          }
        }
        return found;
      }),
  },
  {
    id: 'method-responses-declared',
    cites:
      'INTEG (responses): an integration response maps to a method response by statusCode, and each method.response.header.X it sets must be declared ' +
      'on that method response; otherwise the import fails ("Invalid mapping expression specified").',
    check: (doc) =>
      operationsOf(doc).flatMap(({ op, at }) => {
        const integration = op['x-amazon-apigateway-integration'];
        if (!isObject(integration) || !isObject(integration.responses)) return [];
        const found: Finding[] = [];
        for (const [selection, response] of Object.entries(integration.responses as Json)) {
          const status = String((response as Json)?.statusCode ?? '');
          const methodResponse = op.responses?.[status];
          const where = pointer([...at, 'x-amazon-apigateway-integration', 'responses', selection]);
          if (!isObject(methodResponse)) {
            found.push({ rule: 'method-responses-declared', at: where, message: `status ${status} is not a method response` });
            continue;
          }
          const headers = new Set(Object.keys(methodResponse.headers ?? {}).map((h) => h.toLowerCase()));
          for (const target of Object.keys((response as Json).responseParameters ?? {})) {
            const name = target.replace(/^method\.response\.header\./, '');
            if (!headers.has(name.toLowerCase())) found.push({ rule: 'method-responses-declared', at: where, message: `header ${name} is not declared on method response ${status}` });
          }
        }
        return found;
      }),
  },
  {
    id: 'mapping-template-size',
    cites: 'KNOWN (REST and WebSocket): "The maximum size of a mapping template is 300 KB."',
    check: (doc) => {
      const found: Finding[] = [];
      const visit = (node: unknown, where: (string | number)[]) => {
        if (Array.isArray(node)) return node.forEach((n, i) => visit(n, [...where, i]));
        if (!isObject(node)) return;
        for (const [k, v] of Object.entries(node)) {
          if ((k === 'requestTemplates' || k === 'responseTemplates') && isObject(v)) {
            for (const [type, template] of Object.entries(v)) {
              if (Buffer.byteLength(String(template)) > 300 * 1024) found.push({ rule: 'mapping-template-size', at: pointer([...where, k, type]), message: 'mapping template over 300 KB' });
            }
          } else visit(v, [...where, k]);
        }
      };
      visit(doc, []);
      return found;
    },
  },
  {
    id: 'gateway-responses',
    cites:
      'GWRESP: a response type is one of the documented types; "gatewayresponse.param-position.param-name" with position header, path or querystring; ' +
      'values "can take any incoming request parameter value or a static custom value"; statusCode matches [1-5]\\d\\d; ' +
      'KNOWN: "Customizing the default gateway response for 413 REQUEST_TOO_LARGE isn\'t currently supported."',
    check: (doc) => {
      const found: Finding[] = [];
      for (const [type, response] of Object.entries(isObject(doc['x-amazon-apigateway-gateway-responses']) ? doc['x-amazon-apigateway-gateway-responses'] : {})) {
        const where = ['x-amazon-apigateway-gateway-responses', type];
        if (!GATEWAY_RESPONSE_TYPES.has(type)) found.push({ rule: 'gateway-responses', at: pointer(where), message: `${type} is not a gateway response type` });
        if (type === 'REQUEST_TOO_LARGE') found.push({ rule: 'gateway-responses', at: pointer(where), message: 'REQUEST_TOO_LARGE cannot be customised' });
        const r = response as Json;
        if (r?.statusCode !== undefined && !/^[1-5]\d\d$/.test(String(r.statusCode))) found.push({ rule: 'gateway-responses', at: pointer([...where, 'statusCode']), message: 'statusCode must match [1-5]\\d\\d' });
        for (const [target, source] of Object.entries(isObject(r?.responseParameters) ? r.responseParameters : {})) {
          if (!/^gatewayresponse\.(header|path|querystring)\.[^\s.]+$/.test(target)) found.push({ rule: 'gateway-responses', at: pointer([...where, 'responseParameters', target]), message: `'${target}' is not a gateway response parameter` });
          if (typeof source !== 'string' || !GATEWAY_RESPONSE_SOURCE.test(source)) {
            found.push({ rule: 'gateway-responses', at: pointer([...where, 'responseParameters', target]), message: `'${source}' is neither a request parameter nor a static value` });
          }
        }
      }
      return found;
    },
  },
  {
    id: 'any-method-does-not-shadow',
    cites:
      'ANY: the catch-all method "will catch any HTTP method that wasn\'t explicitly declared"; so every path with GET declares HEAD, and every path declares OPTIONS, ' +
      'or the 405 mock would answer them (this service\'s rule: HEAD on every GET route, CORS preflight on every path).',
    check: (doc) =>
      Object.entries(isObject(doc.paths) ? doc.paths : {}).flatMap(([path, item]) => {
        if (!isObject(item) || !item['x-amazon-apigateway-any-method']) return [];
        const missing = [...(item.get ? ['head'] : []), 'options'].filter((m) => !isObject(item[m]));
        return missing.map((m) => ({ rule: 'any-method-does-not-shadow', at: pointer(['paths', path]), message: `${m.toUpperCase()} is not declared, so the catch-all method answers it` }));
      }),
  },
];

/** Every finding of every rule (empty when API Gateway's documented restrictions are all met). */
export function lintImportDocument(doc: Json, rules: readonly Rule[] = APIGATEWAY_RULES): Finding[] {
  return rules.flatMap((rule) => rule.check(doc));
}
