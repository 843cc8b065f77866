import { randomUUID } from 'node:crypto';
import { unhandledReply } from '../../local/lambda-stand-in';
import type { Forward, InboundRequest, Outbound } from '../endpoints/iam-endpoint';
import { invocationTarget, lambdaError, type LambdaScope } from '../endpoints/lambda';
import { TooManyRequests, type FunctionHost } from './function-host';

/**
 * Lambda's Invoke API, answered by the functions running here: what the IAM endpoint lets through
 * (endpoints/lambda.ts) invokes the function's host synchronously, as a caller's Invoke does
 * (TooManyRequests at its reserved concurrency, never queued), and answers as Lambda does: 200 with
 * the function's answer as the body, or 200 with `X-Amz-Function-Error: Unhandled` and `{ errorType,
 * errorMessage }` when the invocation failed (the handler threw, the environment died or timed
 * out). Only RequestResponse, the SDK's default; asynchronous invocations reach a function here
 * through its triggers, never through this API.
 */

/** Lambda's limit on a synchronous invocation's request and on its answer (6 MB each). */
const REQUEST_LIMIT_BYTES = 6_291_456;
const RESPONSE_LIMIT_BYTES = 6_291_556;

/** The function running here under an unqualified ARN (undefined: none, or none yet). */
export type FunctionFinder = (functionArn: string) => FunctionHost | undefined;

function answer(reply: { headers: Record<string, string>; body: string }, requestId: string): Outbound {
  return { status: 200, headers: { 'content-type': 'application/json', 'x-amzn-requestid': requestId, 'x-amz-executed-version': '$LATEST', ...reply.headers }, body: Buffer.from(reply.body) };
}

/** The invocation's event, or Lambda's refusal of a payload it does not take. */
function eventOf(request: InboundRequest, requestId: string): { event: unknown } | { refused: Outbound } {
  if (request.body.length > REQUEST_LIMIT_BYTES) {
    return { refused: lambdaError(413, 'RequestEntityTooLargeException', `Request must be smaller than ${REQUEST_LIMIT_BYTES} bytes for the InvokeFunction operation`, requestId) };
  }
  try {
    return { event: request.body.length === 0 ? {} : JSON.parse(request.body.toString('utf8')) };
  } catch (error) {
    return { refused: lambdaError(400, 'InvalidRequestContentException', `Could not parse request body into json: ${(error as Error).message}`, requestId) };
  }
}

/** Answers the Invoke requests the IAM endpoint allowed with the function `find` gives (bound late: the functions start after the endpoints). */
export function invokeForward(scope: LambdaScope, find: FunctionFinder): Forward {
  return async (request) => {
    const requestId = randomUUID();
    const target = invocationTarget(request, scope);
    const host = target.qualifier === undefined || target.qualifier === '$LATEST' ? find(target.functionArn) : undefined;
    if (!host) return lambdaError(404, 'ResourceNotFoundException', `Function not found: ${target.resource}`, requestId);
    const type = String(request.headers['x-amz-invocation-type'] ?? 'RequestResponse');
    if (type !== 'RequestResponse') return lambdaError(400, 'InvalidParameterValueException', `The local Lambda endpoint invokes synchronously only (RequestResponse), not ${type}.`, requestId);
    const payload = eventOf(request, requestId);
    if ('refused' in payload) return payload.refused;
    let outcome: Awaited<ReturnType<FunctionHost['invoke']>>;
    try {
      outcome = await host.invoke(payload.event);
    } catch (error) {
      if (!(error instanceof TooManyRequests)) throw error;
      return lambdaError(429, 'TooManyRequestsException', 'Rate Exceeded.', requestId, { Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded' });
    }
    if (!outcome.ok) return answer(unhandledReply(outcome.errorType, outcome.errorMessage), requestId);
    const body = JSON.stringify(outcome.value ?? null);
    if (Buffer.byteLength(body) > RESPONSE_LIMIT_BYTES) {
      return answer(unhandledReply('Function.ResponseSizeTooLarge', `Response payload size exceeded maximum allowed payload size (${RESPONSE_LIMIT_BYTES} bytes).`), requestId);
    }
    return answer({ headers: {}, body }, requestId);
  };
}
