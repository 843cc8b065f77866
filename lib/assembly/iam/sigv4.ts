import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * Signature Version 4 at the local endpoints: who signed a request (the access key id of its
 * Authorization header), and whether the signature is right, checked by signing the same request
 * again with the SDK's own signer (@smithy/signature-v4) and the caller's secret.
 */

export interface SigV4Authorization {
  accessKeyId: string;
  /** yyyymmdd of the credential scope. */
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** `AWS4-HMAC-SHA256 Credential=AKID/20261124/eu-central-1/dynamodb/aws4_request, SignedHeaders=a;b, Signature=hex` */
export function parseAuthorization(header: string | undefined): SigV4Authorization | null {
  if (!header) return null;
  const match = /^AWS4-HMAC-SHA256\s+Credential=([^/\s,]+)\/(\d{8})\/([^/\s,]+)\/([^/\s,]+)\/aws4_request,\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})\s*$/.exec(header);
  if (!match) return null;
  const [, accessKeyId, date, region, service, signedHeaders, signature] = match;
  return { accessKeyId, date, region, service, signedHeaders: signedHeaders.split(';'), signature };
}

/** The Checksum the signer needs, on node:crypto (what @smithy/hash-node does). */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytesOf = (data: SourceData): string | Uint8Array =>
  typeof data === 'string' ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);

class Sha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    throw new Error('not resettable');
  }
}

export interface SignableRequest {
  method: string;
  /** The raw request target: path and query as sent. */
  target: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The request as the signer takes it: path as sent, the query decoded, only the `keep` headers. */
function httpRequestOf(request: SignableRequest, keep: (name: string) => boolean) {
  const q = request.target.indexOf('?');
  const rawPath = q >= 0 ? request.target.slice(0, q) : request.target;
  const query: Record<string, string | string[]> = {};
  if (q >= 0) {
    for (const part of request.target.slice(q + 1).split('&')) {
      if (!part) continue;
      const eq = part.indexOf('=');
      const key = decodeURIComponent(eq >= 0 ? part.slice(0, eq) : part);
      const value = eq >= 0 ? decodeURIComponent(part.slice(eq + 1)) : '';
      const existing = query[key];
      query[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    }
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || !keep(name.toLowerCase())) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return {
    method: request.method,
    protocol: 'http:',
    hostname: String(request.headers.host ?? '').replace(/:\d+$/, ''),
    // As on the wire: the SDK's request path is already URI-encoded (the signer encodes it once more, except for S3).
    path: rawPath,
    query,
    headers,
    body: request.body,
  };
}

/** S3 signs the path as sent (no second URI-encoding) and a declared payload hash. */
function signer(service: string, region: string, credentials: Credentials): SignatureV4 {
  return new SignatureV4({ service, region, credentials, sha256: Sha256, uriEscapePath: service !== 's3', applyChecksum: service === 's3' });
}

function signingDateOf(headers: SignableRequest['headers']): Date | null {
  const amzDate = headers['x-amz-date'];
  const text = Array.isArray(amzDate) ? amzDate[0] : amzDate;
  const match = text ? /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text) : null;
  return match ? new Date(Date.UTC(+match[1], +match[2] - 1, +match[3], +match[4], +match[5], +match[6])) : null;
}

/** True when `auth.signature` is what the SDK signer makes of this request with `secretAccessKey`. */
export async function signatureMatches(request: SignableRequest, auth: SigV4Authorization, secretAccessKey: string): Promise<boolean> {
  const signingDate = signingDateOf(request.headers);
  if (!signingDate) return false;
  const signed = new Set(auth.signedHeaders);
  const httpRequest = httpRequestOf(request, (name) => signed.has(name));
  // The signer leaves out headers it never signs (user-agent and a few others); a caller's SDK does the same.
  const resigned = (await signer(auth.service, auth.region, { accessKeyId: auth.accessKeyId, secretAccessKey }).sign(httpRequest as never, {
    signingDate,
    signingRegion: auth.region,
    signingService: auth.service,
    signableHeaders: signed,
  })) as unknown as { headers: Record<string, string> };
  const again = parseAuthorization(resigned.headers.authorization);
  return again?.signature === auth.signature;
}

/**
 * A request signed with `credentials` (the session token included when they have one): to sign a
 * call the runner makes itself, or to sign a request again for a stand-in that checks signatures
 * with keys of its own.
 */
export async function signRequest(request: SignableRequest, service: string, region: string, credentials: Credentials): Promise<Record<string, string>> {
  const dropped = new Set(['authorization', 'x-amz-security-token', 'x-amz-date', 'connection', 'content-length', 'transfer-encoding']);
  const httpRequest = httpRequestOf(request, (name) => !dropped.has(name));
  const out = (await signer(service, region, credentials).sign(httpRequest as never, { signingDate: new Date() })) as unknown as { headers: Record<string, string> };
  return out.headers;
}
