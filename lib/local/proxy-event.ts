import type http from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Operation } from '../../functions/contract/operation';
import { FUNCTION_TIMEOUT_SECONDS } from '../stack/bundling';

/** A request target split as API Gateway sees it; never throws, whatever the bytes. */
export interface RequestTarget {
  /** The path as sent (percent-encoding kept), always starting with '/'. */
  path: string;
  /** Every query parameter with all its values, in order. */
  query: Map<string, string[]>;
}

/**
 * Splits a request target into path and query without the WHATWG URL parser, which reads a
 * target such as `//x@]` as an authority and throws. Absolute-form targets (`http://host/p`)
 * keep only their path, as a server must accept them (RFC 9112 3.2.2).
 */
export function parseTarget(raw: string | undefined): RequestTarget {
  let target = raw ?? '/';
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (absolute) target = target.slice(absolute[0].length) || '/';
  const hash = target.indexOf('#');
  if (hash >= 0) target = target.slice(0, hash);
  const q = target.indexOf('?');
  const path = q >= 0 ? target.slice(0, q) : target;
  const query = new Map<string, string[]>();
  if (q >= 0) {
    // URLSearchParams decodes leniently (a lone % stays as it is) and never throws.
    for (const [k, v] of new URLSearchParams(target.slice(q + 1))) {
      const values = query.get(k);
      if (values) values.push(v);
      else query.set(k, [v]);
    }
  }
  return { path: path.startsWith('/') ? path : `/${path}`, query };
}

/** Where the API is served: the local host, or a stage of a REST API (lib/assembly serves the synthesized one). */
export interface ApiStage {
  /** The stage name (requestContext.stage). */
  stage: string;
  /** What sits in front of the resource path in the URL: '' locally, '/<stage>' under a stage. */
  pathPrefix: string;
  apiId: string;
  accountId: string;
}

const LOCAL_STAGE: ApiStage = { stage: 'local', pathPrefix: '', apiId: 'local', accountId: '000000000000' };

/**
 * The API Gateway REST proxy event for a node:http request, as API Gateway builds it: `resource`
 * is the route's path template, `target.path` the path below the stage (event.path), and
 * requestContext.path the whole path, stage included.
 */
export function proxyEvent(
  req: http.IncomingMessage,
  body: Buffer,
  route: { path: string },
  pathParameters: Record<string, string>,
  requestId: string,
  target: RequestTarget = parseTarget(req.url),
  api: ApiStage = LOCAL_STAGE,
): APIGatewayProxyEvent {
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
  for (const [k, values] of target.query) {
    query[k] = values[values.length - 1];
    multiQuery[k] = values;
  }
  const hasQuery = target.query.size > 0;
  const method = req.method ?? 'GET';
  return {
    resource: route.path,
    path: target.path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
    stageVariables: null,
    body: body.length > 0 ? body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: api.accountId,
      apiId: api.apiId,
      authorizer: null,
      protocol: `HTTP/${req.httpVersion}`,
      httpMethod: method,
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? null } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `${api.pathPrefix}${target.path}`,
      stage: api.stage,
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: route.path,
      domainName: headers.host,
    },
  };
}

/** The context Lambda gives a handler, with the deployed time limit counting down from now. */
export function lambdaContext(operation: Operation, requestId: string): Context {
  const deadline = Date.now() + FUNCTION_TIMEOUT_SECONDS * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: operation.operationId,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${operation.operationId}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/local/${operation.operationId}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
