import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { keepingIdleConnections, listenOnLoopback } from './listen';

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

/** Invoke's path, the function as given in its one group (the query apart). Shared with the assembly's Lambda endpoint (lib/assembly/endpoints/lambda.ts). */
export const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;
/** A FunctionName as Invoke takes it (Lambda's API reference): a name, a partial ARN `account:function:name` or an ARN, then an optional `:qualifier`. */
const FUNCTION_NAME = /^(?:(?:arn:([a-z-]+):lambda:([a-z0-9-]+):)?(\d{12}):function:)?([A-Za-z0-9_-]{1,64})(?::([A-Za-z0-9$_-]{1,128}))?$/;

/** A FunctionName taken apart: what it says of the function's ARN, its name, its qualifier. */
export interface GivenFunctionName {
  partition?: string;
  region?: string;
  account?: string;
  name: string;
  qualifier?: string;
}

/** `given` taken apart as Lambda reads a FunctionName; null for one Lambda would refuse. */
export function parseFunctionName(given: string): GivenFunctionName | null {
  const parsed = FUNCTION_NAME.exec(given);
  if (!parsed) return null;
  const [, partition, region, account, name, qualifier] = parsed;
  return { partition, region, account, name, qualifier };
}

/** The name a request gives a function by (a name, a function ARN, a partial ARN), without a qualifier. */
export const functionNameOf = (given: string): string => parseFunctionName(given)?.name ?? given;

/** A Lambda REST error as the SDK reads it: its type in `x-amzn-errortype`, `{ Type, message }` as the body. */
export function lambdaErrorReply(type: string, message: string, extra: Record<string, unknown> = {}): { headers: Record<string, string>; body: string } {
  return { headers: { 'x-amzn-errortype': type }, body: JSON.stringify({ Type: 'User', message, ...extra }) };
}

/** An invocation the function failed, as Invoke answers it (200): `X-Amz-Function-Error: Unhandled`, `{ errorType, errorMessage }` as the body. */
export function unhandledReply(errorType: string, errorMessage: string): { headers: Record<string, string>; body: string } {
  return { headers: { 'x-amz-function-error': 'Unhandled', 'x-amz-executed-version': '$LATEST' }, body: JSON.stringify({ errorType, errorMessage }) };
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
      const send = (status: number, reply: { headers: Record<string, string>; body: string }) =>
        res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-requestid': requestId, ...reply.headers }).end(reply.body);
      const path = INVOKE_PATH.exec((req.url ?? '').split('?')[0]);
      if (req.method !== 'POST' || !path) return send(404, lambdaErrorReply('UnknownOperationException', `no such operation: ${req.method} ${req.url}`));
      const given = decodeURIComponent(path[1]);
      const invoke = find(functionNameOf(given));
      if (!invoke) return send(404, lambdaErrorReply('ResourceNotFoundException', `Function not found: ${given}`));
      const type = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse');
      if (type !== 'RequestResponse') return send(400, lambdaErrorReply('InvalidParameterValueException', `this stand-in invokes synchronously only, not ${type}`));
      invocations.push(given);
      let event: unknown;
      try {
        event = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, lambdaErrorReply('InvalidRequestContentException', 'Could not parse request body into json'));
      }
      try {
        send(200, { headers: { 'x-amz-executed-version': '$LATEST' }, body: JSON.stringify((await invoke(event, functionNameOf(given))) ?? null) });
      } catch (error) {
        send(200, unhandledReply((error as Error).name ?? 'Error', (error as Error).message ?? String(error)));
      }
    });
  });
  const listening = await listenOnLoopback(keepingIdleConnections(server));
  return { endpoint: listening.url, invocations, close: listening.close };
}
