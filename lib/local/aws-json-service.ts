import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { keepingIdleConnections, listenOnLoopback } from './listen';

/**
 * A small server for the AWS JSON protocols (`X-Amz-Target: <Prefix>.<Operation>`, a JSON body,
 * errors as `{ "__type": ..., "message": ... }` with status 400), which is how the SDK talks to
 * Secrets Manager and SQS. The stand-ins built on it answer what the service answers for the
 * operations they hold and refuse every other one as the service refuses an unknown operation.
 */
export class AwsServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
    /** The query-protocol error code SQS also sends (`x-amzn-query-error`), for SDKs that read it. */
    readonly queryError?: string,
  ) {
    super(message);
  }
}

export type AwsJsonHandler = (body: Record<string, any>) => Record<string, unknown> | Promise<Record<string, unknown>>;

export interface AwsJsonService {
  endpoint: string;
  close(): Promise<void>;
}

export async function startAwsJsonService(options: {
  targetPrefix: string;
  contentType: string;
  handlers: Record<string, AwsJsonHandler>;
}): Promise<AwsJsonService> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const requestId = randomUUID();
      const answer = (status: number, body: unknown, extra: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': options.contentType, 'x-amzn-requestid': requestId, ...extra }).end(JSON.stringify(body));
      };
      const target = String(req.headers['x-amz-target'] ?? '');
      const operation = target.startsWith(`${options.targetPrefix}.`) ? target.slice(options.targetPrefix.length + 1) : '';
      const handler = Object.hasOwn(options.handlers, operation) ? options.handlers[operation] : undefined;
      try {
        if (!handler) throw new AwsServiceError('UnknownOperationException', `${target || 'no X-Amz-Target'} is not an operation this stand-in serves`);
        let body: Record<string, unknown>;
        try {
          body = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          throw new AwsServiceError('SerializationException', 'the request body is not JSON');
        }
        answer(200, await handler(body));
      } catch (error) {
        if (!(error instanceof AwsServiceError)) return answer(500, { __type: 'InternalFailure', message: 'the stand-in failed' });
        answer(error.status, { __type: error.type, message: error.message }, error.queryError ? { 'x-amzn-query-error': `${error.queryError};Sender` } : {});
      }
    });
  });
  const listening = await listenOnLoopback(keepingIdleConnections(server));
  return { endpoint: listening.url, close: listening.close };
}
