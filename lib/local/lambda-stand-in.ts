import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { listenOnLoopback } from './listen';

/**
 * A stand-in for AWS Lambda's Invoke API (REST-JSON: `POST /2015-03-31/functions/{FunctionName}/invocations`),
 * so the real SDK client (@aws-sdk/client-lambda, pointed here by `AWS_ENDPOINT_URL_LAMBDA` or an
 * explicit endpoint) invokes functions running on this machine: the sequencer its part writers
 * (functions/ledger-writer/lambda-parts.ts). Synchronous invocations only (RequestResponse, the
 * default). What it answers is what Lambda answers: 200 with the function's answer as JSON, or,
 * when the function threw, 200 with `X-Amz-Function-Error: Unhandled` and `{ errorType,
 * errorMessage }`; an unknown function 404 ResourceNotFoundException; another invocation type 400.
 */
export type LocalInvoke = (event: unknown, functionName: string) => Promise<unknown>;

export interface LambdaStandIn {
  /** `http://127.0.0.1:PORT` */
  endpoint: string;
  /** Every invocation received, in order: the function's name as given (name or ARN). */
  invocations: string[];
  close(): Promise<void>;
}

/** The name a request gives a function by (a name, a function ARN, a partial ARN), without a qualifier. */
export function functionNameOf(given: string): string {
  const arn = /^(?:arn:[^:]+:lambda:[^:]+:\d{12}:function:|\d{12}:function:)?([A-Za-z0-9_-]+)(?::[A-Za-z0-9$_-]+)?$/.exec(given);
  return arn ? arn[1] : given;
}

/** Serves `functions` (by name) until closed. */
export async function startLambdaStandIn(functions: Record<string, LocalInvoke> | ((name: string) => LocalInvoke | undefined)): Promise<LambdaStandIn> {
  const find = typeof functions === 'function' ? functions : (name: string) => (Object.hasOwn(functions, name) ? functions[name] : undefined);
  const invocations: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const requestId = randomUUID();
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-requestid': requestId, ...headers }).end(JSON.stringify(body));
      const path = /^\/2015-03-31\/functions\/([^/]+)\/invocations(?:\?.*)?$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !path) return answer(404, { Type: 'User', message: `no such operation: ${req.method} ${req.url}` }, { 'x-amzn-errortype': 'UnknownOperationException' });
      const given = decodeURIComponent(path[1]);
      const invoke = find(functionNameOf(given));
      if (!invoke) return answer(404, { Type: 'User', message: `Function not found: ${given}` }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
      const type = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse');
      if (type !== 'RequestResponse') return answer(400, { Type: 'User', message: `this stand-in invokes synchronously only, not ${type}` }, { 'x-amzn-errortype': 'InvalidParameterValueException' });
      invocations.push(given);
      let event: unknown;
      try {
        event = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return answer(400, { Type: 'User', message: 'Could not parse request body into json' }, { 'x-amzn-errortype': 'InvalidRequestContentException' });
      }
      try {
        answer(200, (await invoke(event, functionNameOf(given))) ?? null, { 'x-amz-executed-version': '$LATEST' });
      } catch (error) {
        answer(200, { errorType: (error as Error).name ?? 'Error', errorMessage: (error as Error).message ?? String(error) }, { 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' });
      }
    });
  });
  const listening = await listenOnLoopback(server);
  return { endpoint: listening.url, invocations, close: listening.close };
}
