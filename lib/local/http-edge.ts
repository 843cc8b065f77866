import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { SERVICE_NAME } from '../../functions/contract/service';
import { CORS_RESPONSE_HEADERS } from '../../functions/http/cors';
import { PROBLEMS, problemType, type ProblemCode } from '../../functions/http/problem';

/**
 * The local host's edge: what API Gateway does in front of the functions on AWS (bounded
 * bodies, time limits, malformed-request answers, compression), so that no request can stop the
 * process or get anything but a well-formed answer.
 */

/** Time a client has to send the whole body once its headers arrived. */
export const BODY_TIMEOUT_MS = 10_000;
/** Time a client has to send the request line and headers. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Answers at least this large are compressed when the client accepts it (API Gateway's minimum compression size in the stack). */
export const COMPRESSION_MIN_BYTES = 1024;

export type BodyOutcome = { kind: 'body'; bytes: Buffer } | { kind: 'too-large' } | { kind: 'timeout' } | { kind: 'aborted' };

/**
 * Reads a request body up to `maxBytes`. Past the cap it stops at once (pauses the stream and
 * stops buffering) and reports too-large; a Content-Length over the cap is refused before any
 * byte is read. A client that stalls gets timeout; one that hangs up gets aborted.
 */
export function readBody(req: http.IncomingMessage, maxBytes: number, timeoutMs = BODY_TIMEOUT_MS): Promise<BodyOutcome> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      req.pause();
      return resolve({ kind: 'too-large' });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: BodyOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      if (outcome.kind !== 'body') req.pause();
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return settle({ kind: 'too-large' });
      chunks.push(chunk);
    };
    const timer = setTimeout(() => settle({ kind: 'timeout' }), timeoutMs);
    req.on('data', onData);
    req.once('end', () => settle({ kind: 'body', bytes: Buffer.concat(chunks) }));
    req.once('aborted', () => settle({ kind: 'aborted' }));
    req.once('error', () => settle({ kind: 'aborted' }));
    req.once('close', () => settle(req.complete ? { kind: 'body', bytes: Buffer.concat(chunks) } : { kind: 'aborted' }));
  });
}

export type ContentEncoding = 'br' | 'gzip' | 'deflate';
type Encoding = ContentEncoding | 'identity';

/** The local server's encodings, best first (API Gateway itself offers gzip and deflate: lib/assembly/gateway). */
const LOCAL_ENCODINGS: readonly ContentEncoding[] = ['br', 'gzip'];

/** The best encoding the client accepts among `offered` (RFC 9110 12.5.3 weights; ties go to the earlier one). */
export function negotiateEncoding(acceptEncoding: string | undefined, offered: readonly ContentEncoding[] = LOCAL_ENCODINGS): Encoding {
  if (!acceptEncoding) return 'identity';
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    const weight = q ? Number(q[1]) : 1;
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  const candidates = offered.filter((e) => weightOf(e) > 0);
  if (candidates.length === 0) return 'identity';
  return candidates.reduce((best, e) => (weightOf(e) > weightOf(best) ? e : best));
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const deflate = promisify(zlib.deflate);

/**
 * Compresses an answer body for the client when it is worth it: a body of at least `minBytes`
 * (COMPRESSION_MIN_BYTES unless told), not already encoded, for a client that accepts one of
 * `encodings`. Vary tells caches the answer depends on Accept-Encoding.
 */
export async function encodeForClient(
  acceptEncoding: string | undefined,
  headers: Record<string, string>,
  body: Buffer,
  options: { minBytes?: number; encodings?: readonly ContentEncoding[] } = {},
): Promise<{ headers: Record<string, string>; body: Buffer }> {
  const vary = headers.vary ? `${headers.vary}, Accept-Encoding` : 'Accept-Encoding';
  if (body.length < (options.minBytes ?? COMPRESSION_MIN_BYTES) || headers['content-encoding']) return { headers: { ...headers, vary }, body };
  const encoding = negotiateEncoding(acceptEncoding, options.encodings);
  if (encoding === 'identity') return { headers: { ...headers, vary }, body };
  const encoded =
    encoding === 'br' ? await brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }) : encoding === 'gzip' ? await gzip(body, { level: 6 }) : await deflate(body, { level: 6 });
  return { headers: { ...headers, vary, 'content-encoding': encoding }, body: encoded };
}

/** A header node:http may give as a list (duplicates): the last value, as API Gateway keeps it. */
export function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/** A problem-details body for the edge's own answers (no function was reached). */
export function edgeProblem(code: ProblemCode, detail: string, instance: string, correlationId: string, endpoint: string | null = null): string {
  const { status, title } = PROBLEMS[code];
  return JSON.stringify({ type: problemType(code), title, status, detail, instance, code, correlationId, service: SERVICE_NAME, endpoint });
}

const CLIENT_ERRORS: Record<string, { code: ProblemCode; status: number; reason: string; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', status: 408, reason: 'Request Timeout', detail: 'The request was not received in time.' },
  HPE_HEADER_OVERFLOW: { code: 'HEADERS_TOO_LARGE', status: 431, reason: 'Request Header Fields Too Large', detail: 'The request headers are too large.' },
};

/**
 * Answers a request node:http could not even parse (bad request line, bad header, headers too
 * large, headers not sent in time) with problem details on the raw socket, then closes it. This
 * is node's 'clientError' hook: without it node answers a bare 400 with no body.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, correlationId: string): void {
  // A response already under way on this socket (node keeps it as _httpMessage) cannot be replaced.
  if (!socket.writable || (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const known = CLIENT_ERRORS[error.code ?? ''];
  const code: ProblemCode = known?.code ?? 'MALFORMED_REQUEST';
  const status = known?.status ?? 400;
  const body = edgeProblem(code, known?.detail ?? 'The request is not well-formed HTTP/1.1.', '/', correlationId);
  const headers = {
    'content-type': 'application/problem+json',
    'content-length': String(Buffer.byteLength(body)),
    'x-correlation-id': correlationId,
    'x-content-type-options': 'nosniff',
    ...CORS_RESPONSE_HEADERS,
    connection: 'close',
  };
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n');
  socket.end(`HTTP/1.1 ${status} ${known?.reason ?? 'Bad Request'}\r\n${head}\r\n\r\n${body}`);
}
