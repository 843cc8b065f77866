import type { Call } from '../iam/evaluator';
import { signRequest } from '../iam/sigv4';
import { exchange, MalformedRequest, type Forward, type InboundRequest, type Outbound, type RefusalKind, type ServiceRules } from './iam-endpoint';

/**
 * S3 requests (path-style, as the SDK sends them to an endpoint given by IP address) as IAM sees
 * them: GET and HEAD of an object are s3:GetObject on `arn:aws:s3:::bucket/key`, PUT is
 * s3:PutObject (a copy also reads its source), DELETE s3:DeleteObject, a listing s3:ListBucket on
 * the bucket with s3:prefix; refusals are S3's XML errors (403 AccessDenied).
 */

function xmlEscape(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

const S3_ERRORS: Record<RefusalKind, { code: string; status: number }> = {
  AccessDenied: { code: 'AccessDenied', status: 403 },
  UnrecognizedClient: { code: 'InvalidAccessKeyId', status: 403 },
  InvalidSignature: { code: 'SignatureDoesNotMatch', status: 403 },
  MissingAuthentication: { code: 'AccessDenied', status: 403 },
  InvalidToken: { code: 'InvalidToken', status: 400 },
  Malformed: { code: 'InvalidRequest', status: 400 },
};

export function s3Rules(partition = 'aws'): ServiceRules {
  return {
    signingName: 's3',
    callsOf(request: InboundRequest): Call[] {
      const [, bucket = '', ...rest] = request.path.split('/');
      if (!bucket) return [{ action: 's3:ListAllMyBuckets', resource: '*' }];
      const key = decodeURIComponent(rest.join('/'));
      const bucketArn = `arn:${partition}:s3:::${decodeURIComponent(bucket)}`;
      const q = request.query;
      if (!key) {
        if (request.method === 'GET' && q.has('versions')) return [{ action: 's3:ListBucketVersions', resource: bucketArn }];
        if (request.method === 'GET' && q.has('location')) return [{ action: 's3:GetBucketLocation', resource: bucketArn }];
        if (request.method === 'GET' || request.method === 'HEAD') {
          const context: Record<string, string> = {};
          for (const name of ['prefix', 'delimiter', 'max-keys']) if (q.has(name)) context[`s3:${name}`] = q.get(name)!;
          return [{ action: 's3:ListBucket', resource: bucketArn, context }];
        }
        if (request.method === 'PUT') return [{ action: 's3:CreateBucket', resource: bucketArn }];
        if (request.method === 'DELETE') return [{ action: 's3:DeleteBucket', resource: bucketArn }];
        if (request.method === 'POST' && q.has('delete')) {
          const keys = [...request.body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]);
          return keys.map((k) => ({ action: 's3:DeleteObject', resource: `${bucketArn}/${k}` }));
        }
        throw new MalformedRequest(`${request.method} on a bucket is not served by the local S3 endpoint`);
      }
      const objectArn = `${bucketArn}/${key}`;
      switch (request.method) {
        case 'GET':
        case 'HEAD':
          return [{ action: q.has('versionId') ? 's3:GetObjectVersion' : 's3:GetObject', resource: objectArn }];
        case 'PUT': {
          const calls: Call[] = [{ action: 's3:PutObject', resource: objectArn }];
          const source = request.headers['x-amz-copy-source'];
          if (typeof source === 'string') calls.push({ action: 's3:GetObject', resource: `arn:${partition}:s3:::${decodeURIComponent(source.replace(/^\//, '').split('?')[0])}` });
          return calls;
        }
        case 'POST':
          return [{ action: 's3:PutObject', resource: objectArn }];
        case 'DELETE':
          return [{ action: 's3:DeleteObject', resource: objectArn }];
        default:
          throw new MalformedRequest(`${request.method} is not an S3 object operation`);
      }
    },
    refusal(kind, message, requestId): Outbound {
      const { code, status } = S3_ERRORS[kind];
      const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message><RequestId>${requestId}</RequestId><HostId>${requestId}</HostId></Error>`;
      return { status, headers: { 'content-type': 'application/xml', 'x-amz-request-id': requestId }, body: Buffer.from(body) };
    },
  };
}

/**
 * Sends an allowed request on to s3rver, signed again with s3rver's own credentials (it checks
 * signatures and knows only its S3RVER key).
 */
export function s3rverForward(backend: string, region: string, credentials: { accessKeyId: string; secretAccessKey: string }): Forward {
  const base = new URL(backend);
  return async (request) => {
    const headers = await signRequest({ method: request.method, target: request.target, headers: { ...request.headers, host: base.host }, body: request.body }, 's3', region, credentials);
    return exchange(base, request.method, request.target, { ...headers, 'content-length': String(request.body.length) }, request.body);
  };
}
