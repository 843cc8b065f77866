import { INVOKE_PATH, lambdaErrorReply, parseFunctionName } from '../../local/lambda-stand-in';
import type { Call } from '../iam/evaluator';
import { MalformedRequest, plainRefusalTypes, type InboundRequest, type Outbound, type RefusalKind, type ServiceRules } from './iam-endpoint';

/**
 * Lambda's Invoke (REST-JSON: `POST /2015-03-31/functions/{FunctionName}/invocations`) as IAM sees
 * it: `lambda:InvokeFunction` on the ARN of the function the request names, which Lambda builds
 * from the name as given (a name, a partial ARN `account:function:name`, an ARN; each with an
 * optional `:qualifier`, or `?Qualifier=`) and the caller's account and region. The ARN is built
 * from the request alone, so a function that is not here is judged like any other: IAM answers
 * before Lambda looks the function up (an unknown function is 404 only to a caller allowed to
 * invoke it). The endpoint serves Invoke only; every other operation is refused as malformed.
 * Refusals are Lambda's REST errors: the type in `x-amzn-errortype`, a JSON `{ Type, message }`.
 */

/** Where the local functions live: an ARN given without its region or account is taken to be here. */
export interface LambdaScope {
  partition: string;
  region: string;
  account: string;
}

/** One invocation as the request names it. */
export interface InvocationTarget {
  /** The function's ARN, without its qualifier. */
  functionArn: string;
  /** `$LATEST`, a version or an alias, when the request names one. */
  qualifier?: string;
  /** The resource IAM evaluates: the function's ARN, qualified when the request is. */
  resource: string;
}

/** The function an Invoke request names; throws MalformedRequest for another operation or a name Lambda would refuse. */
export function invocationTarget(request: InboundRequest, scope: LambdaScope): InvocationTarget {
  const path = INVOKE_PATH.exec(request.path);
  if (request.method !== 'POST' || !path) throw new MalformedRequest(`${request.method} ${request.path} is not an operation the local Lambda endpoint serves (Invoke only).`);
  const given = decodeURIComponent(path[1]);
  const parsed = parseFunctionName(given);
  if (!parsed) throw new MalformedRequest(`1 validation error detected: Value '${given}' at 'functionName' failed to satisfy constraint: Member must satisfy regular expression pattern`);
  const { partition = scope.partition, region = scope.region, account = scope.account, name, qualifier: inName } = parsed;
  const inQuery = request.query.get('Qualifier') ?? undefined;
  if (inName && inQuery && inName !== inQuery) throw new MalformedRequest('The derived qualifier from the function name does not match the specified qualifier.');
  const qualifier = inName ?? inQuery;
  const functionArn = `arn:${partition}:lambda:${region}:${account}:function:${name}`;
  return { functionArn, qualifier, resource: qualifier ? `${functionArn}:${qualifier}` : functionArn };
}

/** A Lambda REST error: the type in `x-amzn-errortype` (which the SDK reads first), `Type` and `message` in the body. */
export function lambdaError(status: number, type: string, message: string, requestId: string, extra: Record<string, unknown> = {}): Outbound {
  const reply = lambdaErrorReply(type, message, extra);
  return { status, headers: { 'content-type': 'application/json', 'x-amzn-requestid': requestId, ...reply.headers }, body: Buffer.from(reply.body) };
}

const REFUSAL_TYPES = plainRefusalTypes('InvalidParameterValueException');

export function lambdaRules(scope: LambdaScope): ServiceRules {
  return {
    signingName: 'lambda',
    callsOf(request: InboundRequest): Call[] {
      return [{ action: 'lambda:InvokeFunction', resource: invocationTarget(request, scope).resource }];
    },
    // Lambda refuses every caller it does not let in with 403 (a malformed request with 400).
    refusal: (kind: RefusalKind, message: string, requestId: string) => lambdaError(kind === 'Malformed' ? 400 : 403, REFUSAL_TYPES[kind], message, requestId),
  };
}
