import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { operations } from '../../functions/contract/operations';
import { INGRESS_BATCH_MAX_BODY_BYTES } from '../../functions/contract/ingress-values';
import { MAX_BODY_BYTES } from '../../functions/http/request-guards';
import { problemResult } from '../../functions/http/problem-details';
import { answerMayBeShared, correlationIdFrom } from '../../functions/http/correlation';
import { CORS_RESPONSE_HEADERS, preflightHeaders } from '../../functions/http/cors';
import { Problem } from '../../functions/http/problem';
import { LEDGER_LOG } from '../../functions/contract/site-paths';
import { routeCachingOf } from '../contract/generate-caching';
import { readDocument, readLogResource, SITE_DIR } from './documents';
import { answerClientError, BODY_TIMEOUT_MS, encodeForClient, HEADERS_TIMEOUT_MS, readBody, singleHeader } from './http-edge';
import { concurrentInvocations } from './invocation-scope';
import { listenOnLoopback } from './listen';
import { lambdaContext, parseTarget, proxyEvent } from './proxy-event';
import { buildRouter } from './router';

type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const ROOT = path.resolve(__dirname, '../..');
const handlerCache = new Map<string, LambdaHandler>();

/** Loads the same module the Lambda runs (its `handler` export). */
function handlerFor(entry: string): LambdaHandler {
  let handler = handlerCache.get(entry);
  if (!handler) {
    // biome-ignore lint/style/noCommonJs: synchronous, as the Lambda runtime loads a CommonJS handler; the entry is known only at run time.
    handler = require(path.join(ROOT, entry)).handler as LambdaHandler;
    handlerCache.set(entry, handler);
  }
  return handler;
}

/**
 * Invocations that run at once; later ones wait for a turn before their handler starts, as a
 * request waits for a free environment. Everything here shares one thread, the embedded store
 * included: with every request of a burst in flight, each store call's time budget
 * (functions/store/client.ts: 250 ms to connect, 1 s to answer) is spent on the other
 * invocations' work, and reads fail as if the store were down (200 reads at once: a quarter
 * answered 503). The work is CPU on one thread, so more turns add no throughput; a few keep each
 * call's wait to about its own, even on a machine whose cores are busy with other things.
 */
export const MAX_CONCURRENT_INVOCATIONS = 4;

/** Hands out `limit` turns at once, the rest in arrival order. */
function turns(limit: number): <T>(run: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (run) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await run();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

interface Answer {
  statusCode: number;
  headers?: Record<string, unknown>;
  body: string | Buffer | null;
}

/** Statuses that never carry a body (RFC 9110): compressing or sending one would be wrong. */
const BODYLESS = new Set([204, 304]);

export interface LocalServerOptions {
  port?: number;
  host?: string;
  siteDir?: string;
  /** Folder of the ledger's tile log (the loader writes it), served under LEDGER_LOG.path; none: those paths answer 404. */
  tilesDir?: string;
  /** Time a client has to send a body once its headers arrived (default BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
  /** Time a client has to send its request line and headers (default HEADERS_TIMEOUT_MS). */
  headersTimeoutMs?: number;
  /** Lambda invocations run at once (default MAX_CONCURRENT_INVOCATIONS). */
  maxConcurrentInvocations?: number;
}

export interface LocalServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves every operation of the contract table: Lambda operations through the very handler
 * modules the functions run, document operations from the build output as the bucket serves them.
 * In front of them, what API Gateway does on AWS: HEAD for every GET route, CORS preflights,
 * bounded bodies, time limits and compression. No request, however malformed, ends the process
 * or gets anything but a well-formed answer (4xx problem details for what the caller got wrong).
 */
export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const match = buildRouter(operations);
  const siteDir = options.siteDir ?? SITE_DIR;
  const concurrency = options.maxConcurrentInvocations ?? MAX_CONCURRENT_INVOCATIONS;
  const inTurn = turns(concurrency);
  const asInvocation = concurrentInvocations(concurrency);

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const target = parseTarget(req.url);
    const method = req.method ?? 'GET';
    // HEAD is GET without the body; OPTIONS is a preflight for the path's methods.
    const routedMethod = method === 'HEAD' ? 'GET' : method;
    const found = match(method === 'OPTIONS' ? 'GET' : routedMethod, target.path);
    // The caller's id only where no cache keeps the answer, as the functions decide (functions/http/correlation.ts).
    const correlationHeader = req.headers['x-correlation-id'];
    const caching = found.kind === 'found' ? routeCachingOf(found.operation) : undefined;
    // A method the path does not have is refused (405, never stored): that answer is never shared.
    const shared = found.kind !== 'method-not-allowed' && answerMayBeShared(method, caching);
    const correlationId = shared ? requestId : correlationIdFrom(typeof correlationHeader === 'string' ? correlationHeader : undefined, requestId);

    const send = async (answer: Answer, closeAfter = false): Promise<void> => {
      if (res.headersSent || res.destroyed) return;
      let headers: Record<string, string> = { ...CORS_RESPONSE_HEADERS, ...(answer.headers as Record<string, string>), 'x-correlation-id': correlationId };
      let body: Buffer = answer.body === null ? Buffer.alloc(0) : Buffer.from(answer.body);
      if (method !== 'HEAD' && !BODYLESS.has(answer.statusCode)) ({ headers, body } = await encodeForClient(req.headers['accept-encoding'], headers, body));
      else {
        // A 304 or HEAD says what the full answer would (RFC 9110 15.4.5): it too depends on Accept-Encoding.
        if (BODYLESS.has(answer.statusCode)) body = Buffer.alloc(0);
        headers.vary = headers.vary ? `${headers.vary}, Accept-Encoding` : 'Accept-Encoding';
      }
      if (closeAfter) headers.connection = 'close';
      // HEAD: the headers of the GET answer; its length is known when the handler gave the body.
      if (!BODYLESS.has(answer.statusCode) && (method !== 'HEAD' || body.length > 0)) headers['content-length'] = String(body.length);
      res.writeHead(answer.statusCode, headers);
      res.end(method === 'HEAD' ? undefined : body);
    };
    const refuse = (problem: Problem, endpoint: string | null, closeAfter = false) =>
      send(problemResult(problem, { method, correlationId, path: target.path, endpoint: endpoint ?? '' }, caching), closeAfter);
    if (found.kind === 'not-found') return refuse(new Problem('ROUTE_NOT_FOUND', 'No endpoint is published at this path.'), null);
    if (method === 'OPTIONS') {
      const methods = found.kind === 'found' ? [found.operation.method] : found.allow;
      return send({ statusCode: 204, headers: preflightHeaders(methods), body: null });
    }
    if (found.kind === 'method-not-allowed') {
      const allow = preflightHeaders(found.allow).allow;
      return refuse(new Problem('METHOD_NOT_ALLOWED', `${method.slice(0, 32)} is not allowed here; allowed: ${allow}.`, {}, { allow }), found.template);
    }
    const { operation } = found;

    // The receivers take batches of events (their own limit, checked again by the function); every other operation MAX_BODY_BYTES.
    const maxBodyBytes = operation.integration.kind === 'lambda' && operation.integration.access === 'ingress-write' ? INGRESS_BATCH_MAX_BODY_BYTES : MAX_BODY_BYTES;
    const body = await readBody(req, maxBodyBytes, options.bodyTimeoutMs ?? BODY_TIMEOUT_MS);
    if (body.kind === 'aborted') return void res.destroy();
    if (body.kind === 'too-large') {
      return refuse(new Problem('PAYLOAD_TOO_LARGE', `The request body exceeds ${maxBodyBytes} bytes.`, { maxBodyBytes }), operation.path, true);
    }
    if (body.kind === 'timeout') return refuse(new Problem('REQUEST_TIMEOUT', 'The request body was not received in time.'), operation.path, true);

    if (operation.integration.kind === 'document') {
      const doc = await readDocument(operation.integration.key, singleHeader(req.headers['if-none-match']), siteDir);
      if (!doc) return refuse(new Problem('ROUTE_NOT_FOUND', 'This document has not been built (run npm run build).'), operation.path);
      return send({ statusCode: doc.status, headers: doc.headers, body: doc.body });
    }
    if (operation.integration.kind === 'log') {
      const key = operation.integration.key.replace(/\{(\w+)\}/g, (_, name: string) => found.pathParameters[name] ?? '');
      const resource = options.tilesDir ? await readLogResource(key.slice(LEDGER_LOG.keyPrefix.length), singleHeader(req.headers['if-none-match']), options.tilesDir) : null;
      if (!resource) return refuse(new Problem('ROUTE_NOT_FOUND', 'The log holds no such resource.'), operation.path);
      return send({ statusCode: resource.status, headers: resource.headers, body: resource.body });
    }
    const event = proxyEvent(req, body.bytes, operation, found.pathParameters, requestId, target);
    const handler = handlerFor(operation.integration.entry);
    const answer = await inTurn(() => asInvocation(requestId, () => handler(event, lambdaContext(operation, requestId))));
    return send(answer);
  }

  const server = http.createServer({ headersTimeout: options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS, requestTimeout: 0, connectionsCheckingInterval: 250 }, (req, res) => {
    // A client may reset the connection at any moment: that is its business, never a crash.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    serve(req, res).catch((error: unknown) => {
      // Handlers answer their own failures; this is the last line for a fault in the host itself.
      const fallback = problemResult(error, { correlationId: randomUUID(), path: '/', endpoint: '' });
      if (!res.headersSent && !res.destroyed) res.writeHead(fallback.statusCode, { ...CORS_RESPONSE_HEADERS, ...(fallback.headers as Record<string, string>) }).end(fallback.body);
      else res.destroy();
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, randomUUID()));
  const listening = await listenOnLoopback(server, options.port, options.host);
  // The handlers make their links from the configured origin only (PUBLIC_BASE_URL, as the stack
  // sets it for a deployment): here, this server's own URL, never the Host a request came with.
  // Put back on close, so a server started and stopped inside another's lifetime leaves its URL.
  const before = process.env.PUBLIC_BASE_URL;
  process.env.PUBLIC_BASE_URL = listening.url;
  return {
    url: listening.url,
    close: async () => {
      if (process.env.PUBLIC_BASE_URL === listening.url) {
        if (before === undefined) delete process.env.PUBLIC_BASE_URL;
        else process.env.PUBLIC_BASE_URL = before;
      }
      await listening.close();
    },
  };
}
