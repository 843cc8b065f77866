import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { answerClientError, encodeForClient, HEADERS_TIMEOUT_MS, readBody, singleHeader } from '../../local/http-edge';
import { listenOnLoopback } from '../../local/listen';
import { parseTarget, proxyEvent, type RequestTarget } from '../../local/proxy-event';
import type { Decision } from '../iam/evaluator';
import type { InvocationOutcome } from '../lambda/function-host';
import { gatewayResponse, type GatewayAnswer, type GatewayResponseType } from './gateway-responses';
import { mappedValue, renderTemplate, type MappingSources } from './mapping';
import { RestApiRoutes, type ApiMethod } from './rest-api';
import { TokenBucket } from './throttle';

/**
 * The REST API stage as API Gateway serves it, from the template alone: under
 * http://127.0.0.1:PORT/<stageName>/, each request throttled by the stage's limits, routed by the
 * import document, and integrated as its x-amazon-apigateway-integration says: a Lambda proxy
 * integration invokes the function it names (if the function's policy lets API Gateway invoke it
 * for this method and path), an S3 integration calls S3 as its credentials role, a mock answers
 * from its templates. API Gateway's own answers follow the gateway responses; answers of at least
 * the minimum compression size are compressed for clients that accept it (gzip, deflate).
 */

export interface GatewayBackends {
  /** A synchronous invocation of the function with this ARN; 'throttled' at its concurrency limit. */
  invokeFunction(functionArn: string, event: unknown): Promise<InvocationOutcome | 'throttled' | 'unknown-function'>;
  /** Whether the function's resource policy lets API Gateway invoke it from `sourceArn`. */
  mayInvoke(functionArn: string, sourceArn: string): Promise<Decision>;
  /** An S3 request signed with the credentials of `roleArn` (an integration's credentials role). */
  callS3(roleArn: string, method: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string>; body: Buffer }>;
}

export interface GatewayConfig {
  /** The import document, intrinsic functions resolved. */
  body: Record<string, any>;
  stageName: string;
  apiId: string;
  account: string;
  region: string;
  /** RestApi.MinimumCompressionSize; undefined: compression off. */
  minimumCompressionSize?: number;
  /** The stage's throttling (MethodSettings for every method and resource). */
  throttle?: { ratePerSecond: number; burst: number };
  /** The stage's access log format; each request's line goes to `accessLog`. */
  accessLogFormat?: string;
  port?: number;
}

export interface GatewayServer {
  /** http://127.0.0.1:PORT/<stageName> */
  invokeUrl: string;
  close(): Promise<void>;
}

/** API Gateway's payload limit for REST APIs (10 MB). */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** API Gateway's default (and largest regional) integration timeout. */
const DEFAULT_INTEGRATION_TIMEOUT_MS = 29_000;
/** The encodings API Gateway compresses with. */
const GATEWAY_ENCODINGS = ['gzip', 'deflate'] as const;

interface IntegrationAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** What the integration itself answered (integrationStatus), when one was reached. */
  integrationStatus?: number;
}

/** A request that reached a method of the API. */
interface RoutedRequest {
  method: ApiMethod;
  req: http.IncomingMessage;
  body: Buffer;
  /** The path below the stage, and the query. */
  target: RequestTarget;
  pathParameters: Record<string, string>;
  requestId: string;
  sources: MappingSources;
}

class GatewayError extends Error {
  constructor(
    readonly type: GatewayResponseType,
    message?: string,
  ) {
    super(message);
  }
}

function firstMatching<T>(responses: Record<string, T> | undefined, status: string): T | undefined {
  if (!responses) return undefined;
  for (const [pattern, response] of Object.entries(responses)) {
    if (pattern !== 'default' && new RegExp(`^(?:${pattern})$`, 's').test(status)) return response;
  }
  return responses.default;
}

/**
 * The method response an integration response makes: its status, the headers its parameters map,
 * and the body its template renders (without one, the integration's body passes through).
 */
function methodResponse(response: Record<string, any>, sources: MappingSources, integrationBody: Buffer, integrationStatus: number): IntegrationAnswer {
  const headers: Record<string, string> = {};
  for (const [to, from] of Object.entries((response.responseParameters ?? {}) as Record<string, string>)) {
    const name = /^method\.response\.header\.(.+)$/.exec(to)?.[1];
    const value = name ? mappedValue(from, sources) : undefined;
    if (name && value !== undefined) headers[name.toLowerCase()] = value;
  }
  headers['content-type'] ??= 'application/json';
  const template = response.responseTemplates?.['application/json'] as string | undefined;
  return { status: Number(response.statusCode), headers, body: template === undefined ? integrationBody : Buffer.from(renderTemplate(template, sources)), integrationStatus };
}

function requestTime(date: Date): string {
  const month = date.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${month}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

export async function startGatewayServer(config: GatewayConfig, backends: GatewayBackends, accessLog: (line: string) => void = () => undefined): Promise<GatewayServer> {
  const routes = new RestApiRoutes(config.body);
  const gatewayResponses = config.body['x-amazon-apigateway-gateway-responses'] as Record<string, any> | undefined;
  const bucket = config.throttle ? new TokenBucket(config.throttle.ratePerSecond, config.throttle.burst) : null;
  const stagePrefix = `/${config.stageName}`;

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const started = performance.now();
    const requestId = randomUUID();
    const method = req.method ?? 'GET';
    const raw = parseTarget(req.url);
    const context: Record<string, unknown> = {
      requestId,
      extendedRequestId: requestId.replace(/-/g, '').slice(0, 16),
      requestTime: requestTime(new Date()),
      requestTimeEpoch: Date.now(),
      httpMethod: method,
      path: raw.path,
      protocol: `HTTP/${req.httpVersion}`,
      stage: config.stageName,
      apiId: config.apiId,
      accountId: config.account,
      domainName: req.headers.host,
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: req.headers['user-agent'] },
    };
    let integrationLatency: number | undefined;
    let answer: GatewayAnswer | IntegrationAnswer;

    const methodRequest = (pathParameters: Record<string, string>, target: RequestTarget) => ({
      header: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, singleHeader(v) ?? ''])),
      path: pathParameters,
      querystring: Object.fromEntries([...target.query].map(([k, v]) => [k, v[v.length - 1]])),
    });

    try {
      if (raw.path !== stagePrefix && !raw.path.startsWith(`${stagePrefix}/`)) {
        // No stage of this API is there: API Gateway cannot tell which API was meant, so no gateway response applies.
        answer = { status: 403, headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'ForbiddenException' }, body: '{"message":"Forbidden"}' };
      } else if (bucket && !bucket.take()) {
        throw new GatewayError('THROTTLED');
      } else {
        const target: RequestTarget = { path: raw.path.slice(stagePrefix.length) || '/', query: raw.query };
        const found = routes.match(method, target.path);
        if (found.kind === 'missing') throw new GatewayError('MISSING_AUTHENTICATION_TOKEN');
        const { method: apiMethod, pathParameters } = found;
        context.resourcePath = apiMethod.resourcePath;
        const body = await readBody(req, MAX_PAYLOAD_BYTES);
        if (body.kind === 'aborted') return void res.destroy();
        if (body.kind === 'too-large') throw new GatewayError('REQUEST_TOO_LARGE');
        if (body.kind === 'timeout') throw new GatewayError('INTEGRATION_TIMEOUT', 'Request body not received in time');
        const integrationStarted = performance.now();
        const sources: MappingSources = { context, methodRequest: methodRequest(pathParameters, target) };
        try {
          answer = await integrate({ method: apiMethod, req, body: body.bytes, target, pathParameters, requestId, sources });
        } finally {
          integrationLatency = performance.now() - integrationStarted;
        }
      }
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      answer = gatewayResponse(gatewayResponses, error.type, { context }, error.message || undefined);
      context.error = { responseType: error.type, message: error.message || undefined };
    }

    let headers: Record<string, string> = { ...answer.headers, 'x-amzn-requestid': requestId, 'x-amz-apigw-id': String(context.extendedRequestId) };
    let bytes = Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body);
    if (answer.status === 204 || answer.status === 304) bytes = Buffer.alloc(0);
    else if (method !== 'HEAD' && config.minimumCompressionSize !== undefined) {
      ({ headers, body: bytes } = await encodeForClient(singleHeader(req.headers['accept-encoding']), headers, bytes, {
        minBytes: config.minimumCompressionSize,
        encodings: GATEWAY_ENCODINGS,
      }));
    }
    if (method !== 'HEAD' || bytes.length > 0) headers['content-length'] = String(bytes.length);
    if (!res.headersSent && !res.destroyed) {
      res.writeHead(answer.status, headers);
      res.end(method === 'HEAD' ? undefined : bytes);
    }
    if (config.accessLogFormat) {
      const done: Record<string, unknown> = {
        ...context,
        status: answer.status,
        responseLength: bytes.length,
        responseLatency: Math.round(performance.now() - started),
        integrationLatency: integrationLatency === undefined ? undefined : Math.round(integrationLatency),
        integrationStatus: 'integrationStatus' in answer ? answer.integrationStatus : undefined,
      };
      accessLog(renderTemplate(config.accessLogFormat, { context: done }, '-'));
    }
  }

  async function integrate(request: RoutedRequest): Promise<IntegrationAnswer> {
    const { integration } = request.method;
    const { sources } = request;
    const type = String(integration.type).toLowerCase();
    if (type === 'mock') return mock(integration, sources);
    const uri = String(integration.uri ?? '');
    if (type === 'aws_proxy') {
      const functionArn = /:lambda:path\/2015-03-31\/functions\/(.+)\/invocations$/.exec(uri)?.[1];
      if (!functionArn) throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: ${uri} is not a Lambda function URI`);
      return lambdaProxy(functionArn, request);
    }
    const s3Path = /:s3:path\/(.+)$/.exec(uri)?.[1];
    if (type === 'aws' && s3Path) return s3(integration, s3Path, sources);
    throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: ${type} integrations to ${uri} are not emulated`);
  }

  async function lambdaProxy(functionArn: string, { method: apiMethod, req, body, target, pathParameters, requestId }: RoutedRequest): Promise<IntegrationAnswer> {
    const sourceArn = `arn:aws:execute-api:${config.region}:${config.account}:${config.apiId}/${config.stageName}/${req.method}${target.path}`;
    const permission = await backends.mayInvoke(functionArn, sourceArn);
    if (!permission.allowed) throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: Invalid permissions on Lambda function (${permission.message})`);
    const event = proxyEvent(req, body, { path: apiMethod.resourcePath }, pathParameters, requestId, target, {
      stage: config.stageName,
      pathPrefix: stagePrefix,
      apiId: config.apiId,
      accountId: config.account,
    });
    const outcome = await withTimeout(backends.invokeFunction(functionArn, event), Number(apiMethod.integration.timeoutInMillis ?? DEFAULT_INTEGRATION_TIMEOUT_MS));
    if (outcome === 'unknown-function') throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: no function ${functionArn} in the template`);
    if (outcome === 'throttled') throw new GatewayError('LAMBDA_FUNCTION_ERROR', 'Internal server error');
    if (!outcome.ok) throw new GatewayError('LAMBDA_FUNCTION_ERROR', 'Internal server error');
    const result = outcome.value as Record<string, unknown> | null;
    const malformed = () => new GatewayError('LAMBDA_FUNCTION_ERROR', 'Internal server error');
    if (!result || typeof result !== 'object' || !Number.isInteger(Number(result.statusCode))) throw malformed();
    if (result.body !== undefined && result.body !== null && typeof result.body !== 'string') throw malformed();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries((result.headers ?? {}) as Record<string, unknown>)) {
      if (value === null || typeof value === 'object') throw malformed();
      headers[name.toLowerCase()] = String(value);
    }
    for (const [name, values] of Object.entries((result.multiValueHeaders ?? {}) as Record<string, unknown>)) {
      if (!Array.isArray(values)) throw malformed();
      headers[name.toLowerCase()] = values.map(String).join(', ');
    }
    headers['content-type'] ??= 'application/json';
    const text = (result.body as string | null | undefined) ?? '';
    const bytes = result.isBase64Encoded ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
    return { status: Number(result.statusCode), headers, body: bytes, integrationStatus: 200 };
  }

  async function s3(integration: Record<string, any>, pathTemplate: string, sources: MappingSources): Promise<IntegrationAnswer> {
    const params = (integration.requestParameters ?? {}) as Record<string, string>;
    const headers: Record<string, string> = {};
    let path = pathTemplate;
    for (const [to, from] of Object.entries(params)) {
      const value = mappedValue(from, sources);
      const header = /^integration\.request\.header\.(.+)$/.exec(to)?.[1];
      const pathParam = /^integration\.request\.path\.(.+)$/.exec(to)?.[1];
      if (header && value !== undefined) headers[header] = value;
      if (pathParam) path = path.replace(`{${pathParam}}`, value === undefined ? '' : value.split('/').map(encodeURIComponent).join('/'));
    }
    if (!integration.credentials) throw new GatewayError('API_CONFIGURATION_ERROR', 'Execution failed due to configuration error: an S3 integration without a credentials role');
    const out = await withTimeout(backends.callS3(String(integration.credentials), String(integration.httpMethod ?? 'GET'), `/${path}`, headers), Number(integration.timeoutInMillis ?? DEFAULT_INTEGRATION_TIMEOUT_MS));
    const response = firstMatching<Record<string, any>>(integration.responses, String(out.status));
    if (!response) throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: no integration response matches ${out.status}`);
    return methodResponse(response, { ...sources, integrationResponseHeaders: out.headers }, out.body, out.status);
  }

  function mock(integration: Record<string, any>, sources: MappingSources): IntegrationAnswer {
    const requestTemplate = integration.requestTemplates?.['application/json'] as string | undefined;
    let status = 200;
    if (requestTemplate) {
      try {
        status = Number(JSON.parse(renderTemplate(requestTemplate, sources)).statusCode ?? 200);
      } catch {
        throw new GatewayError('API_CONFIGURATION_ERROR', 'Execution failed due to configuration error: the mock request template is not JSON');
      }
    }
    const response = firstMatching<Record<string, any>>(integration.responses, String(status));
    if (!response) throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: no integration response matches ${status}`);
    return methodResponse(response, sources, Buffer.alloc(0), status);
  }

  async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new GatewayError('INTEGRATION_TIMEOUT')), ms);
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  const server = http.createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: 0, connectionsCheckingInterval: 250 }, (req, res) => {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    serve(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"Internal server error"}');
      else res.destroy();
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, randomUUID()));
  const listening = await listenOnLoopback(server, config.port);
  return { invokeUrl: `${listening.url}${stagePrefix}`, close: listening.close };
}
