import { isObject, operationsOf, pointer, type Finding, type Json, type Rule } from './document';

/** Where a parameter mapping may take its value from (MAPPING). */
const MAPPING_SOURCE = /^(method\.request\.(path|querystring|multivaluequerystring|header|multivalueheader)\.[^\s.]+|method\.request\.body(\.[^\s]+)?|stageVariables\.[A-Za-z0-9_]+|context\.[A-Za-z0-9_.]+|'[^']*')$/;
/** Where a gateway response's header may take its value from (GWRESP). */
const GATEWAY_RESPONSE_SOURCE = /^(method\.request\.(path|querystring|header)\.[^\s.]+|stageVariables\.[A-Za-z0-9_]+|'[^']*')$/;
/** The gateway response types API Gateway knows (GWRESP). */
const GATEWAY_RESPONSE_TYPES = new Set([
  'DEFAULT_4XX', 'DEFAULT_5XX', 'RESOURCE_NOT_FOUND', 'UNAUTHORIZED', 'INVALID_API_KEY', 'ACCESS_DENIED', 'AUTHORIZER_FAILURE',
  'AUTHORIZER_CONFIGURATION_ERROR', 'INVALID_SIGNATURE', 'EXPIRED_TOKEN', 'MISSING_AUTHENTICATION_TOKEN', 'INTEGRATION_FAILURE',
  'INTEGRATION_TIMEOUT', 'API_CONFIGURATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'BAD_REQUEST_PARAMETERS', 'BAD_REQUEST_BODY',
  'REQUEST_TOO_LARGE', 'THROTTLED', 'QUOTA_EXCEEDED', 'WAF_FILTERED',
]);

/** Every operation that has an integration object, with it. */
function integrationsOf(doc: Json): { op: Json; at: (string | number)[]; integration: Json }[] {
  return operationsOf(doc).flatMap(({ op, at }) => (isObject(op['x-amazon-apigateway-integration']) ? [{ op, at, integration: op['x-amazon-apigateway-integration'] }] : []));
}

/** Integrations, their parameter mappings and templates, the gateway responses and the catch-all method (sources in ../apigateway-rules.ts). */
export const INTEGRATION_RULES: readonly Rule[] = [
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
      integrationsOf(doc).flatMap(({ at, integration }) => {
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
      integrationsOf(doc).flatMap(({ op, at, integration }) => {
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
      integrationsOf(doc).flatMap(({ op, at, integration }) => {
        if (!isObject(integration.responses)) return [];
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
