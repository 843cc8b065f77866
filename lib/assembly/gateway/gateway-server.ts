import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { answerClientError, encodeForClient, HEADERS_TIMEOUT_MS, readBody, singleHeader } from '../../local/http-edge';
import { listenOnLoopback } from '../../local/listen';
import { parseTarget, type RequestTarget } from '../../local/proxy-event';
import { gatewayResponse, type GatewayAnswer } from './gateway-responses';
import { GatewayError, integrate, type GatewayBackends, type IntegrationAnswer } from './integrations';
import { renderTemplate, type MappingSources } from './mapping';
import { RestApiRoutes } from './rest-api';
import { TokenBucket } from './throttle';

/**
 * The REST API stage as API Gateway serves it, from the template alone: under
 * http://127.0.0.1:PORT/<stageName>/, each request throttled by the stage's limits, routed by the
 * import document, and integrated as its x-amazon-apigateway-integration says (integrations.ts).
 * API Gateway's own answers follow the gateway responses; answers of at least
 * the minimum compression size are compressed for clients that accept it (gzip, deflate).
 */

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
  /** From now on, serve: until then every request is answered 503 (the stack is still being brought up: its data not yet loaded). */
  open(): void;
  close(): Promise<void>;
}

/** What the stage answers before the deployment is complete: no read can be taken for an answer about data not yet loaded. */
export const NOT_YET_OPEN = {
  type: 'about:blank',
  title: 'Service Unavailable',
  status: 503,
  detail: 'the deployment is still being brought up (its data is being loaded): retry shortly',
};

function answerNotYetOpen(res: http.ServerResponse): void {
  res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1', 'cache-control': 'no-store' }).end(JSON.stringify(NOT_YET_OPEN));
}

/** API Gateway's payload limit for REST APIs (10 MB). */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** The encodings API Gateway compresses with. */
const GATEWAY_ENCODINGS = ['gzip', 'deflate'] as const;

/** $context.requestTime as API Gateway writes it: 24/Nov/2026:10:00:00 +0000. */
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
          answer = await integrate({ method: apiMethod, req, body: body.bytes, target, pathParameters, requestId, sources }, config, backends);
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

  let opened = false;
  const server = http.createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: 0, connectionsCheckingInterval: 250 }, (req, res) => {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    if (!opened) return answerNotYetOpen(res);
    serve(req, res).catch(() => {
      if (!res.headersSent && !res.destroyed) res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"Internal server error"}');
      else res.destroy();
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, randomUUID()));
  const listening = await listenOnLoopback(server, config.port);
  return { invokeUrl: `${listening.url}${stagePrefix}`, open: () => void (opened = true), close: listening.close };
}
