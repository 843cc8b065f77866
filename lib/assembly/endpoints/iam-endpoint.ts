import { randomUUID } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import { keepingIdleConnections, listenOnLoopback } from '../../local/listen';
import type { CredentialIssuer, IssuedCredentials } from '../iam/credentials';
import type { Call, IamEvaluator } from '../iam/evaluator';
import { parseAuthorization, signatureMatches } from '../iam/sigv4';

/**
 * One local AWS endpoint in front of one stand-in (dynalite, s3rver, the KMS, Secrets Manager and
 * SQS stand-ins), doing what the service's front door does before the service itself: it knows
 * the caller from the access key id of the SigV4 signature, checks the signature and the session
 * token, maps the request to the IAM calls it makes (action, resource ARN, condition keys) and
 * evaluates each against the template's policies. A refused call is answered as the service
 * answers it (AccessDeniedException, AccessDenied) and never reaches the stand-in.
 */

export interface InboundRequest {
  method: string;
  /** The request target as sent (path and query). */
  target: string;
  /** The path, still percent-encoded. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Outbound {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

export type RefusalKind = 'AccessDenied' | 'UnrecognizedClient' | 'InvalidSignature' | 'MissingAuthentication' | 'InvalidToken' | 'Malformed';

export interface ServiceRules {
  /** The service name in the signature's credential scope (dynamodb, s3, kms, secretsmanager, sqs). */
  signingName: string;
  /** The IAM calls the request makes; throws MalformedRequest for what the service would refuse as such. */
  callsOf(request: InboundRequest): Call[];
  /** The service's own answer to a refused request. */
  refusal(kind: RefusalKind, message: string, requestId: string): Outbound;
}

export class MalformedRequest extends Error {}

export interface Denial {
  at: string;
  /** Who was refused: a function's name, "API Gateway", "loader". */
  label: string;
  action: string;
  resource: string;
  message: string;
}

export type Forward = (request: InboundRequest, caller: IssuedCredentials) => Promise<Outbound>;

export interface IamEndpoint {
  endpoint: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** One HTTP exchange with a local server, the answer read whole (status, headers, body). */
export function exchange(base: URL, method: string, target: string, headers: IncomingHttpHeaders | Record<string, string>, body: Buffer): Promise<Outbound> {
  return new Promise((resolve, reject) => {
    const out = http.request({ host: base.hostname, port: base.port, method, path: target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 500, headers: res.headers as Record<string, string | string[]>, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    out.on('error', reject);
    out.end(body);
  });
}

/** Sends a request on to a stand-in as it came (same method, target, headers and body). */
export function passThrough(backend: string): Forward {
  const base = new URL(backend);
  return (request) => exchange(base, request.method, request.target, { ...request.headers, host: base.host }, request.body);
}

function readAll(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : null));
    req.on('error', () => resolve(null));
  });
}

export async function startIamEndpoint(options: {
  rules: ServiceRules;
  forward: Forward;
  issuer: CredentialIssuer;
  evaluator: IamEvaluator;
  onDenied: (denial: Denial) => void;
}): Promise<IamEndpoint> {
  const { rules, issuer, evaluator } = options;

  async function handle(req: http.IncomingMessage): Promise<Outbound> {
    const requestId = randomUUID();
    const body = await readAll(req);
    if (body === null) return rules.refusal('Malformed', 'The request body is too large.', requestId);
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const request: InboundRequest = {
      method: req.method ?? 'GET',
      target,
      path: q >= 0 ? target.slice(0, q) : target,
      query: new URLSearchParams(q >= 0 ? target.slice(q + 1) : ''),
      headers: req.headers,
      body,
    };
    const auth = parseAuthorization(req.headers.authorization);
    if (!auth) return rules.refusal('MissingAuthentication', 'Request is missing Authentication Token', requestId);
    const credentials = issuer.lookup(auth.accessKeyId);
    if (!credentials) return rules.refusal('UnrecognizedClient', 'The security token included in the request is invalid.', requestId);
    if (req.headers['x-amz-security-token'] !== credentials.sessionToken) return rules.refusal('InvalidToken', 'The security token included in the request is invalid.', requestId);
    if (auth.service !== rules.signingName || !(await signatureMatches({ method: request.method, target, headers: req.headers, body }, auth, credentials.secretAccessKey))) {
      return rules.refusal(
        'InvalidSignature',
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
        requestId,
      );
    }
    let calls: Call[];
    try {
      calls = rules.callsOf(request);
    } catch (error) {
      if (error instanceof MalformedRequest) return rules.refusal('Malformed', error.message, requestId);
      throw error;
    }
    for (const call of calls) {
      const decision = await evaluator.decide(credentials.caller, call);
      if (!decision.allowed) {
        options.onDenied({ at: new Date().toISOString(), label: credentials.label, action: call.action, resource: call.resource, message: decision.message });
        return rules.refusal('AccessDenied', decision.message, requestId);
      }
    }
    return options.forward(request, credentials);
  }

  const server = http.createServer((req, res) => {
    handle(req).then(
      (out) => {
        const headers = { ...out.headers };
        delete headers['transfer-encoding'];
        delete headers.connection;
        // A HEAD answer keeps the length of what a GET would send.
        if (req.method !== 'HEAD') headers['content-length'] = String(out.body.length);
        res.writeHead(out.status, headers).end(req.method === 'HEAD' ? undefined : out.body);
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`the local endpoint failed: ${(error as Error).message}`);
      },
    );
  });
  const listening = await listenOnLoopback(keepingIdleConnections(server));
  return { endpoint: listening.url, close: listening.close };
}

/** How the services behind AWS's shared front end (DynamoDB, SQS) name their refusals; `malformed` is the service's own. */
export function coralRefusalTypes(malformed: string): Record<RefusalKind, string> {
  return {
    AccessDenied: 'com.amazon.coral.service#AccessDeniedException',
    UnrecognizedClient: 'com.amazon.coral.service#UnrecognizedClientException',
    InvalidSignature: 'com.amazon.coral.service#InvalidSignatureException',
    MissingAuthentication: 'com.amazon.coral.service#MissingAuthenticationTokenException',
    InvalidToken: 'com.amazon.coral.service#UnrecognizedClientException',
    Malformed: malformed,
  };
}

/** How KMS and Secrets Manager name their refusals (unqualified). */
export function plainRefusalTypes(malformed: string): Record<RefusalKind, string> {
  return {
    AccessDenied: 'AccessDeniedException',
    UnrecognizedClient: 'UnrecognizedClientException',
    InvalidSignature: 'InvalidSignatureException',
    MissingAuthentication: 'MissingAuthenticationTokenException',
    InvalidToken: 'UnrecognizedClientException',
    Malformed: malformed,
  };
}

/** AWS JSON-protocol refusals (DynamoDB, KMS, Secrets Manager, SQS): status 400 and `__type`. */
export function jsonRefusal(contentType: string, types: Record<RefusalKind, string>, options: { messageKey?: string; queryErrors?: Partial<Record<RefusalKind, string>> } = {}) {
  return (kind: RefusalKind, message: string, requestId: string): Outbound => ({
    status: kind === 'MissingAuthentication' ? 403 : 400,
    headers: {
      'content-type': contentType,
      'x-amzn-requestid': requestId,
      ...(options.queryErrors?.[kind] ? { 'x-amzn-query-error': `${options.queryErrors[kind]};Sender` } : {}),
    },
    body: Buffer.from(JSON.stringify({ __type: types[kind], [options.messageKey ?? 'message']: message })),
  });
}

/** Parsed bodies by request: the rules, the DynamoDB stream capture and the KMS forwarding all read the same one. */
const parsedBodies = new WeakMap<InboundRequest, Record<string, any>>();

/** The JSON body of a JSON-protocol request (parsed once per request; do not modify it), or a MalformedRequest. */
export function jsonBody(request: InboundRequest): Record<string, any> {
  let parsed = parsedBodies.get(request);
  if (parsed === undefined) {
    try {
      parsed = request.body.length === 0 ? {} : (JSON.parse(request.body.toString('utf8')) as Record<string, any>);
    } catch {
      throw new MalformedRequest('The request body is not valid JSON.');
    }
    parsedBodies.set(request, parsed);
  }
  return parsed;
}

/** The operation of a JSON-protocol request (`X-Amz-Target: Prefix.Operation`). */
export function operationOf(request: InboundRequest, prefix: string): string {
  const target = String(request.headers['x-amz-target'] ?? '');
  if (!target.startsWith(`${prefix}.`)) throw new MalformedRequest(`X-Amz-Target ${target || '(none)'} is not a ${prefix} operation.`);
  return target.slice(prefix.length + 1);
}
