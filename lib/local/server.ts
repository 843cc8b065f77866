import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { operations } from '../../functions/contract/operations';
import type { Operation } from '../../functions/contract/operation';
import { problemResult } from '../../functions/http/boundary';
import { correlationIdFrom } from '../../functions/http/correlation';
import { Problem } from '../../functions/http/problem';
import { readDocument, SITE_DIR } from './documents';
import { buildRouter } from './router';

type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const ROOT = path.resolve(__dirname, '../..');
const handlerCache = new Map<string, LambdaHandler>();

/** Loads the same module the Lambda runs (its `handler` export). */
function handlerFor(entry: string): LambdaHandler {
  let handler = handlerCache.get(entry);
  if (!handler) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    handler = require(path.join(ROOT, entry)).handler as LambdaHandler;
    handlerCache.set(entry, handler);
  }
  return handler;
}

function lambdaContext(operation: Operation, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: operation.operationId,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${operation.operationId}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/local/${operation.operationId}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The API Gateway REST proxy event for a node:http request, as API Gateway builds it. */
export function proxyEvent(
  req: http.IncomingMessage,
  body: Buffer,
  operation: Operation,
  pathParameters: Record<string, string>,
  requestId: string,
): APIGatewayProxyEvent {
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = { 'x-forwarded-proto': 'http' };
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    const values = Array.isArray(v) ? v : [v];
    headers[k] = values[values.length - 1];
    multiValueHeaders[k] = values;
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [k, v] of url.searchParams) {
    query[k] = v;
    (multiQuery[k] ??= []).push(v);
  }
  const hasQuery = Object.keys(query).length > 0;
  return {
    resource: operation.path,
    path: url.pathname,
    httpMethod: req.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
    stageVariables: null,
    body: body.length > 0 ? body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: `HTTP/${req.httpVersion}`,
      httpMethod: req.method ?? 'GET',
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' } as APIGatewayProxyEvent['requestContext']['identity'],
      path: url.pathname,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: operation.path,
      domainName: headers.host,
    },
  };
}

function send(res: http.ServerResponse, result: { statusCode: number; headers?: Record<string, unknown>; body: string | Buffer | null }): void {
  res.writeHead(result.statusCode, result.headers as http.OutgoingHttpHeaders);
  res.end(result.body ?? undefined);
}

export interface LocalServerOptions {
  port?: number;
  host?: string;
  siteDir?: string;
}

export interface LocalServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves every operation of the contract table: Lambda operations through the very handler
 * modules the functions run, document operations from the build output as the bucket serves them.
 */
export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const match = buildRouter(operations);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const requestId = randomUUID();
        const pathname = new URL(req.url ?? '/', 'http://local').pathname;
        const correlationId = correlationIdFrom(req.headers['x-correlation-id'] as string | undefined, requestId);
        const refuse = (problem: Problem, endpoint: string | null) =>
          send(res, problemResult(problem, { correlationId, path: pathname, endpoint: endpoint ?? '' }));
        try {
          const found = match(req.method ?? 'GET', pathname);
          if (found.kind === 'not-found') return refuse(new Problem('ROUTE_NOT_FOUND', `No endpoint is published at ${pathname}.`), null);
          if (found.kind === 'method-not-allowed') {
            return refuse(
              new Problem('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; allowed: ${found.allow.join(', ')}.`, {}, { allow: found.allow.join(', ') }),
              found.template,
            );
          }
          const { operation } = found;
          if (operation.integration.kind === 'document') {
            const doc = await readDocument(operation.integration.key, req.headers['if-none-match'], options.siteDir ?? SITE_DIR);
            if (!doc) return refuse(new Problem('ROUTE_NOT_FOUND', `The document ${pathname} has not been built (run npm run build).`), operation.path);
            return send(res, { statusCode: doc.status, headers: { ...doc.headers, 'x-correlation-id': correlationId }, body: doc.body });
          }
          const event = proxyEvent(req, Buffer.concat(chunks), operation, found.pathParameters, requestId);
          const result = await handlerFor(operation.integration.entry)(event, lambdaContext(operation, requestId));
          send(res, result);
        } catch (error) {
          send(res, problemResult(error, { correlationId, path: pathname, endpoint: '' }));
        }
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
