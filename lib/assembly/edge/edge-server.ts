import { randomBytes } from 'node:crypto';
import http from 'node:http';
import vm from 'node:vm';
import { GetObjectCommand, HeadObjectCommand, NoSuchKey, NotFound, type S3Client } from '@aws-sdk/client-s3';
import { encodeForClient, readBody } from '../../local/http-edge';
import { listenOnLoopback } from '../../local/listen';
import { exchange } from '../endpoints/iam-endpoint';
import type { IamEvaluator } from '../iam/evaluator';
import { behaviourFor, type EdgeBehaviour, type EdgeDistribution, type Forwarding } from './distribution';

/**
 * The distribution served locally, request by request, as CloudFront handles one that misses its
 * cache: the behaviour chosen by path pattern; a method it does not allow refused (403); its
 * viewer-request CloudFront Function run on the viewer's request (its own code, in a context of
 * its own); then only what the behaviour's cache policy and origin request policy forward (query
 * parameters, headers; never Host, which is the origin's) sent to the origin: the local stage of
 * the REST API, or the bucket, read as `cloudfront.amazonaws.com` for this distribution
 * (aws:SourceArn) with the bucket policy evaluated like every other call here (a missing object
 * is 404 only if the distribution may list the bucket, else 403, as S3 answers). The answer gets
 * the response headers policy's CORS and nosniff headers and is compressed as the behaviour says.
 * Nothing is cached: every request reaches its origin.
 */

export interface EdgeServerOptions {
  distribution: EdgeDistribution;
  /** http://127.0.0.1:PORT of the local API Gateway (the stage is the origin's path). */
  gatewayOrigin: string;
  /** The local S3's administrative client (no IAM): used once IAM has allowed the distribution the read. */
  s3: S3Client;
  account: string;
  partition: string;
  evaluator: IamEvaluator;
  port?: number;
  log: (line: string) => void;
}

export interface EdgeServer {
  /** http://127.0.0.1:PORT: the distribution's domain here. */
  url: string;
  close(): Promise<void>;
}

/** Media types CloudFront compresses (a subset of its documented list: the ones this service answers with). */
const COMPRESSIBLE = /^(text\/|application\/(json|problem\+json|javascript|xml|xhtml\+xml)|image\/svg\+xml)/;
/** CloudFront compresses objects of 1,000 to 10,000,000 bytes. */
const COMPRESSION_MIN_BYTES = 1000;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);
const MAX_BODY_BYTES = 20 * 1024 * 1024;

type FunctionHeaders = Record<string, { value: string; multiValue?: Array<{ value: string }> }>;
interface FunctionRequest {
  method: string;
  uri: string;
  querystring: Record<string, { value: string; multiValue?: Array<{ value: string }> }>;
  headers: FunctionHeaders;
  cookies: Record<string, { value: string }>;
}
interface FunctionResponse {
  statusCode: number;
  statusDescription?: string;
  headers?: FunctionHeaders;
  body?: string | { data: string; encoding: 'text' | 'base64' };
}

/** A CloudFront Function's handler, compiled once, run per request. */
function compileFunction(code: string): (event: unknown) => FunctionRequest | FunctionResponse {
  const context = vm.createContext({ console: { log: () => undefined } });
  new vm.Script(`${code}\n;globalThis.__handler = handler;`).runInContext(context);
  return context.__handler as (event: unknown) => FunctionRequest | FunctionResponse;
}

function parseQuery(search: string): Array<[string, string]> {
  if (!search) return [];
  return search.split('&').filter(Boolean).map((pair) => {
    const i = pair.indexOf('=');
    return i < 0 ? [pair, ''] : [pair.slice(0, i), pair.slice(i + 1)];
  });
}

/** The query parameters the behaviour forwards: the cache key's and the origin request policy's, together. */
function forwardedQuery(pairs: Array<[string, string]>, policies: Forwarding[]): Array<[string, string]> {
  const keep = (name: string) =>
    policies.some(({ queryStrings: q }) => q.behavior === 'all' || (q.behavior === 'whitelist' && q.names.includes(name)) || (q.behavior === 'allExcept' && !q.names.includes(name)));
  return pairs.filter(([name]) => keep(decoded(name.replace(/\+/g, ' '))));
}

/** Percent-decoded text (a query parameter's name, an object key); a malformed escape is kept as sent. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function forwardedHeaders(headers: Record<string, string>, policies: Forwarding[]): Record<string, string> {
  const keep = (name: string) =>
    name !== 'host' &&
    !HOP_BY_HOP.has(name) &&
    policies.some(({ headers: h }) => h.behavior === 'allViewer' || h.behavior === 'allViewerAndWhitelistCloudFront' || (h.behavior === 'whitelist' && h.names.includes(name)) || (h.behavior === 'allExcept' && !h.names.includes(name)));
  return Object.fromEntries(Object.entries(headers).filter(([name]) => keep(name)));
}

/** What CloudFront sends as Accept-Encoding when the cache policy normalises it: the formats it enables that the viewer accepts. */
function normalisedAcceptEncoding(viewer: string | undefined, policy: Forwarding): string | undefined {
  const accepted = (viewer ?? '').toLowerCase();
  const formats = [policy.acceptEncoding.brotli && /\bbr\b/.test(accepted) ? 'br' : '', policy.acceptEncoding.gzip && /\bgzip\b/.test(accepted) ? 'gzip' : ''].filter(Boolean);
  return formats.length > 0 ? formats.join(',') : undefined;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

export async function startEdgeServer(options: EdgeServerOptions): Promise<EdgeServer> {
  const edge = new LocalEdge(options);
  const server = http.createServer((req, res) => {
    void edge.handle(req).then(
      (answer) => {
        res.writeHead(answer.status, answer.headers);
        res.end(req.method === 'HEAD' ? undefined : answer.body);
      },
      (error: Error) => {
        options.log(`CloudFront  ${req.method} ${req.url}: ${error.message}`);
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end('502 Bad Gateway: the origin could not be reached.');
      },
    );
  });
  const listening = await listenOnLoopback(server, options.port ?? 0);
  return { url: listening.url, close: () => listening.close() };
}

/** One request's way through the distribution. */
class LocalEdge {
  private readonly functions = new Map<string, ReturnType<typeof compileFunction>>();
  private readonly gateway: URL;

  constructor(private readonly options: EdgeServerOptions) {
    for (const b of options.distribution.behaviours) {
      if (b.viewerRequestFunction && !this.functions.has(b.viewerRequestFunction.logicalId)) this.functions.set(b.viewerRequestFunction.logicalId, compileFunction(b.viewerRequestFunction.code));
    }
    this.gateway = new URL(options.gatewayOrigin);
  }

  async handle(req: http.IncomingMessage): Promise<Answer> {
    const requestId = randomBytes(21).toString('base64url');
    const url = new URL(req.url ?? '/', 'http://edge.local');
    const method = req.method ?? 'GET';
    const behaviour = behaviourFor(this.options.distribution, url.pathname);
    const edgeHeaders = { via: `1.1 ${requestId.slice(0, 12)}.cloudfront.net (CloudFront)`, 'x-cache': 'Miss from cloudfront', 'x-amz-cf-pop': 'LOCAL', 'x-amz-cf-id': requestId };
    const text = (status: number, message: string): Answer => ({ status, headers: { 'content-type': 'text/plain', ...edgeHeaders }, body: Buffer.from(message) });
    if (!behaviour.allowedMethods.includes(method)) return text(403, 'This distribution is not configured to allow the HTTP request method that was used for this request.');
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body.kind !== 'body') return text(413, 'Request body too large for the edge.');

    const viewer = this.viewerRequest(req, method, url, behaviour, requestId);
    if ('statusCode' in viewer) {
      const bytes = typeof viewer.body === 'string' ? Buffer.from(viewer.body) : viewer.body ? Buffer.from(viewer.body.data, viewer.body.encoding === 'base64' ? 'base64' : 'utf8') : Buffer.alloc(0);
      return { status: viewer.statusCode, headers: { ...flatten(viewer.headers ?? {}), ...edgeHeaders }, body: bytes };
    }
    const flat = flatten(viewer.headers);
    const answer =
      behaviour.origin.target.kind === 'bucket'
        ? await this.fromBucket(behaviour, viewer, flat)
        : await this.fromApi(behaviour, viewer, this.originHeaders(behaviour, flat, req, edgeHeaders.via, requestId, body.bytes), body.bytes);
    return this.toViewer(behaviour, answer, flat, edgeHeaders);
  }

  /** The viewer's request as a CloudFront Function sees it (headers lower-cased, a repeated one as multiValue), after the behaviour's viewer-request function. */
  private viewerRequest(req: http.IncomingMessage, method: string, url: URL, behaviour: EdgeBehaviour, requestId: string): FunctionRequest | FunctionResponse {
    const headers: FunctionHeaders = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) addValue(headers, req.rawHeaders[i].toLowerCase(), req.rawHeaders[i + 1]);
    const querystring: FunctionRequest['querystring'] = {};
    for (const [name, value] of parseQuery(url.search.slice(1))) addValue(querystring, name, value);
    const request: FunctionRequest = { method, uri: url.pathname, querystring, headers, cookies: {} };
    if (!behaviour.viewerRequestFunction) return request;
    const { distribution } = this.options;
    return this.functions.get(behaviour.viewerRequestFunction.logicalId)!({
      version: '1.0',
      context: { distributionDomainName: distribution.domainName, distributionId: distribution.id, eventType: 'viewer-request', requestId },
      viewer: { ip: req.socket.remoteAddress ?? '127.0.0.1' },
      request,
    });
  }

  /** What CloudFront sends the origin: the forwarded headers, its own, the normalised Accept-Encoding. */
  private originHeaders(behaviour: EdgeBehaviour, viewer: Record<string, string>, req: http.IncomingMessage, via: string, requestId: string, body: Buffer): Record<string, string> {
    const policies = forwardingOf(behaviour);
    const headers: Record<string, string> = {
      ...forwardedHeaders(viewer, policies),
      'x-forwarded-for': req.socket.remoteAddress ?? '127.0.0.1',
      via,
      'x-amz-cf-id': requestId,
      'user-agent': viewer['user-agent'] && policies.some((p) => p.headers.behavior === 'allExcept' || p.headers.names.includes('user-agent')) ? viewer['user-agent'] : 'Amazon CloudFront',
    };
    const acceptEncoding = normalisedAcceptEncoding(viewer['accept-encoding'], behaviour.cachePolicy.forwarding);
    if (acceptEncoding) headers['accept-encoding'] = acceptEncoding;
    if (body.length > 0 && viewer['content-type']) headers['content-type'] = viewer['content-type'];
    return headers;
  }

  private async fromApi(behaviour: EdgeBehaviour, request: FunctionRequest, headers: Record<string, string>, body: Buffer): Promise<Answer> {
    const pairs = Object.entries(request.querystring).flatMap(([name, v]) => (v.multiValue ?? [{ value: v.value }]).map((m) => [name, m.value] as [string, string]));
    const search = forwardedQuery(pairs, forwardingOf(behaviour))
      .map(([k, v]) => (v === '' ? k : `${k}=${v}`))
      .join('&');
    const target = `${behaviour.origin.originPath}${request.uri}${search ? `?${search}` : ''}`;
    const out = await exchange(this.gateway, request.method, target, { ...headers, host: this.gateway.host, 'content-length': String(body.length) }, body);
    return { status: out.status, headers: out.headers, body: out.body };
  }

  private async fromBucket(behaviour: EdgeBehaviour, request: FunctionRequest, viewer: Record<string, string>): Promise<Answer> {
    const target = behaviour.origin.target;
    if (target.kind !== 'bucket') throw new Error('not a bucket origin');
    const { evaluator, partition, account, distribution, s3, log } = this.options;
    const key = decoded(`${behaviour.origin.originPath}${request.uri}`).replace(/^\//, '');
    const principal = { kind: 'service' as const, service: 'cloudfront.amazonaws.com' };
    const context = { 'aws:SourceArn': distribution.arn, 'aws:SourceAccount': account };
    const read = await evaluator.decide(principal, { action: 's3:GetObject', resource: `arn:${partition}:s3:::${target.bucketName}/${key}`, context });
    if (!read.allowed || !target.originAccessControl) {
      log(`CloudFront  ${target.bucketName}/${key}: AccessDenied (${read.message})`);
      return s3Error(403, 'AccessDenied', 'Access Denied');
    }
    try {
      const input = { Bucket: target.bucketName, Key: key };
      const object = request.method === 'HEAD' ? await s3.send(new HeadObjectCommand(input)) : await s3.send(new GetObjectCommand(input));
      const etag = object.ETag;
      const headers: Record<string, string> = {
        ...(object.ContentType ? { 'content-type': object.ContentType } : {}),
        ...(object.CacheControl ? { 'cache-control': object.CacheControl } : {}),
        ...(object.ContentEncoding ? { 'content-encoding': object.ContentEncoding } : {}),
        ...(etag ? { etag } : {}),
        ...(object.LastModified ? { 'last-modified': object.LastModified.toUTCString() } : {}),
      };
      if (etag && viewer['if-none-match']?.split(',').map((t) => t.trim()).includes(etag)) return { status: 304, headers, body: Buffer.alloc(0) };
      const bytes = 'Body' in object && object.Body ? Buffer.from(await object.Body.transformToByteArray()) : Buffer.alloc(0);
      return { status: 200, headers: { ...headers, 'content-length': String(request.method === 'HEAD' ? (object.ContentLength ?? 0) : bytes.length) }, body: bytes };
    } catch (error) {
      if (!(error instanceof NoSuchKey || error instanceof NotFound)) throw error;
      // S3 tells a missing key from a forbidden one only to a reader that may list the bucket.
      const list = await evaluator.decide(principal, { action: 's3:ListBucket', resource: `arn:${partition}:s3:::${target.bucketName}`, context });
      return list.allowed ? s3Error(404, 'NoSuchKey', 'The specified key does not exist.') : s3Error(403, 'AccessDenied', 'Access Denied');
    }
  }

  /** The origin's answer as the viewer gets it: CloudFront's headers, the response headers policy's, compressed as the behaviour says. */
  private async toViewer(behaviour: EdgeBehaviour, answer: Answer, viewer: Record<string, string>, edgeHeaders: Record<string, string>): Promise<Answer> {
    const headers: Record<string, string | string[]> = { ...answer.headers, ...edgeHeaders };
    for (const name of Object.keys(headers)) if (HOP_BY_HOP.has(name)) delete headers[name];
    const policy = behaviour.responseHeaders;
    if (policy?.noSniff) headers['x-content-type-options'] = 'nosniff';
    if (policy?.cors && viewer.origin && (policy.cors.originOverride || !headers['access-control-allow-origin'])) {
      headers['access-control-allow-origin'] = policy.cors.allowOrigins.includes('*') ? '*' : viewer.origin;
      if (policy.cors.exposeHeaders.length > 0) headers['access-control-expose-headers'] = policy.cors.exposeHeaders.join(',');
    }
    const { acceptEncoding } = behaviour.cachePolicy.forwarding;
    const formats = [acceptEncoding.brotli ? 'br' : '', acceptEncoding.gzip ? 'gzip' : ''].filter(Boolean) as Array<'br' | 'gzip'>;
    const compressible = COMPRESSIBLE.test(String(headers['content-type'] ?? '').toLowerCase()) && answer.body.length <= 10_000_000;
    if (!behaviour.compress || formats.length === 0 || !compressible) return { status: answer.status, headers, body: answer.body };
    const single = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
    const encoded = await encodeForClient(viewer['accept-encoding'], single, answer.body, { minBytes: COMPRESSION_MIN_BYTES, encodings: formats });
    if (encoded.body === answer.body) return { status: answer.status, headers, body: answer.body };
    return { status: answer.status, headers: { ...encoded.headers, 'content-length': String(encoded.body.length) }, body: encoded.body };
  }
}

/** The behaviour's cache key and origin request policy: what it forwards, together. */
const forwardingOf = (behaviour: EdgeBehaviour): Forwarding[] => [behaviour.cachePolicy.forwarding, ...(behaviour.originRequestPolicy ? [behaviour.originRequestPolicy.forwarding] : [])];

/** One more value of a header or query parameter, as CloudFront Functions see them (a repeated one as multiValue). */
function addValue(into: Record<string, { value: string; multiValue?: Array<{ value: string }> }>, name: string, value: string): void {
  const existing = into[name];
  if (existing) existing.multiValue = [...(existing.multiValue ?? [{ value: existing.value }]), { value }];
  else into[name] = { value };
}

/** S3's XML error answer. */
function s3Error(status: number, code: string, message: string): Answer {
  return { status, headers: { 'content-type': 'application/xml' }, body: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`) };
}

/** A CloudFront Function's headers as one value each (a repeated header joined with commas). */
function flatten(headers: FunctionHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, h]) => [name.toLowerCase(), h.multiValue && h.multiValue.length > 1 ? h.multiValue.map((m) => m.value).join(',') : h.value]));
}
