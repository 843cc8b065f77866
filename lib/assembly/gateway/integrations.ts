import type http from 'node:http';
import { proxyEvent, type RequestTarget } from '../../local/proxy-event';
import type { Decision } from '../iam/evaluator';
import type { InvocationOutcome } from '../lambda/function-host';
import type { GatewayResponseType } from './gateway-responses';
import { mappedValue, renderTemplate, type MappingSources } from './mapping';
import type { ApiMethod } from './rest-api';

/**
 * A method's integration as API Gateway runs it, from its x-amazon-apigateway-integration: a Lambda
 * proxy integration invokes the function it names (if the function's policy lets API Gateway invoke
 * it for this method and path), an S3 integration calls S3 as its credentials role, a mock answers
 * from its templates. A failure is a GatewayError: the stage answers it with its gateway response.
 */

export interface GatewayBackends {
  /** A synchronous invocation of the function with this ARN; 'throttled' at its concurrency limit. */
  invokeFunction(functionArn: string, event: unknown): Promise<InvocationOutcome | 'throttled' | 'unknown-function'>;
  /** Whether the function's resource policy lets API Gateway invoke it from `sourceArn`. */
  mayInvoke(functionArn: string, sourceArn: string): Promise<Decision>;
  /** An S3 request signed with the credentials of `roleArn` (an integration's credentials role). */
  callS3(roleArn: string, method: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string>; body: Buffer }>;
}

/** The stage, as a Lambda proxy integration names it (its event, the source ARN its permission is checked for). */
export interface StageIdentity {
  stageName: string;
  apiId: string;
  account: string;
  region: string;
}

export interface IntegrationAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** What the integration itself answered (integrationStatus), when one was reached. */
  integrationStatus?: number;
}

/** A request that reached a method of the API. */
export interface RoutedRequest {
  method: ApiMethod;
  req: http.IncomingMessage;
  body: Buffer;
  /** The path below the stage, and the query. */
  target: RequestTarget;
  pathParameters: Record<string, string>;
  requestId: string;
  sources: MappingSources;
}

/** API Gateway's default (and largest regional) integration timeout. */
const DEFAULT_INTEGRATION_TIMEOUT_MS = 29_000;

/** A failure API Gateway answers with the gateway response of its type. */
export class GatewayError extends Error {
  constructor(
    readonly type: GatewayResponseType,
    message?: string,
  ) {
    super(message);
  }
}

function firstMatching<T>(responses: Record<string, T> | undefined, status: string): T | undefined {
  if (!responses) return undefined;
  for (const [pattern, response] of Object.entries(responses)) {
    if (pattern !== 'default' && new RegExp(`^(?:${pattern})$`, 's').test(status)) return response;
  }
  return responses.default;
}

/**
 * The method response an integration response makes: its status, the headers its parameters map,
 * and the body its template renders (without one, the integration's body passes through).
 */
function methodResponse(response: Record<string, any>, sources: MappingSources, integrationBody: Buffer, integrationStatus: number): IntegrationAnswer {
  const headers: Record<string, string> = {};
  for (const [to, from] of Object.entries((response.responseParameters ?? {}) as Record<string, string>)) {
    const name = /^method\.response\.header\.(.+)$/.exec(to)?.[1];
    const value = name ? mappedValue(from, sources) : undefined;
    if (name && value !== undefined) headers[name.toLowerCase()] = value;
  }
  headers['content-type'] ??= 'application/json';
  const template = response.responseTemplates?.['application/json'] as string | undefined;
  return { status: Number(response.statusCode), headers, body: template === undefined ? integrationBody : Buffer.from(renderTemplate(template, sources)), integrationStatus };
}

/** What the method's integration answers (a mock, a Lambda proxy invocation, an S3 call as its credentials role). */
export async function integrate(request: RoutedRequest, stage: StageIdentity, backends: GatewayBackends): Promise<IntegrationAnswer> {
  const { integration } = request.method;
  const { sources } = request;
  const type = String(integration.type).toLowerCase();
  if (type === 'mock') return mock(integration, sources);
  const uri = String(integration.uri ?? '');
  if (type === 'aws_proxy') {
    const functionArn = /:lambda:path\/2015-03-31\/functions\/(.+)\/invocations$/.exec(uri)?.[1];
    if (!functionArn) throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: ${uri} is not a Lambda function URI`);
    return lambdaProxy(functionArn, request, stage, backends);
  }
  const s3Path = /:s3:path\/(.+)$/.exec(uri)?.[1];
  if (type === 'aws' && s3Path) return s3(integration, s3Path, sources, backends);
  throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: ${type} integrations to ${uri} are not emulated`);
}

async function lambdaProxy(
  functionArn: string,
  { method: apiMethod, req, body, target, pathParameters, requestId }: RoutedRequest,
  stage: StageIdentity,
  backends: GatewayBackends,
): Promise<IntegrationAnswer> {
  const sourceArn = `arn:aws:execute-api:${stage.region}:${stage.account}:${stage.apiId}/${stage.stageName}/${req.method}${target.path}`;
  const permission = await backends.mayInvoke(functionArn, sourceArn);
  if (!permission.allowed) throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: Invalid permissions on Lambda function (${permission.message})`);
  const event = proxyEvent(req, body, { path: apiMethod.resourcePath }, pathParameters, requestId, target, {
    stage: stage.stageName,
    pathPrefix: `/${stage.stageName}`,
    apiId: stage.apiId,
    accountId: stage.account,
  });
  const outcome = await withTimeout(backends.invokeFunction(functionArn, event), Number(apiMethod.integration.timeoutInMillis ?? DEFAULT_INTEGRATION_TIMEOUT_MS));
  if (outcome === 'unknown-function') throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: no function ${functionArn} in the template`);
  if (outcome === 'throttled') throw new GatewayError('LAMBDA_FUNCTION_ERROR', 'Internal server error');
  if (!outcome.ok) throw new GatewayError('LAMBDA_FUNCTION_ERROR', 'Internal server error');
  const result = outcome.value as Record<string, unknown> | null;
  const malformed = () => new GatewayError('LAMBDA_FUNCTION_ERROR', 'Internal server error');
  if (!result || typeof result !== 'object' || !Number.isInteger(Number(result.statusCode))) throw malformed();
  if (result.body !== undefined && result.body !== null && typeof result.body !== 'string') throw malformed();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries((result.headers ?? {}) as Record<string, unknown>)) {
    if (value === null || typeof value === 'object') throw malformed();
    headers[name.toLowerCase()] = String(value);
  }
  for (const [name, values] of Object.entries((result.multiValueHeaders ?? {}) as Record<string, unknown>)) {
    if (!Array.isArray(values)) throw malformed();
    headers[name.toLowerCase()] = values.map(String).join(', ');
  }
  headers['content-type'] ??= 'application/json';
  const text = (result.body as string | null | undefined) ?? '';
  const bytes = result.isBase64Encoded ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  return { status: Number(result.statusCode), headers, body: bytes, integrationStatus: 200 };
}

async function s3(integration: Record<string, any>, pathTemplate: string, sources: MappingSources, backends: GatewayBackends): Promise<IntegrationAnswer> {
  const params = (integration.requestParameters ?? {}) as Record<string, string>;
  const headers: Record<string, string> = {};
  let path = pathTemplate;
  for (const [to, from] of Object.entries(params)) {
    const value = mappedValue(from, sources);
    const header = /^integration\.request\.header\.(.+)$/.exec(to)?.[1];
    const pathParam = /^integration\.request\.path\.(.+)$/.exec(to)?.[1];
    if (header && value !== undefined) headers[header] = value;
    if (pathParam) path = path.replace(`{${pathParam}}`, value === undefined ? '' : value.split('/').map(encodeURIComponent).join('/'));
  }
  if (!integration.credentials) throw new GatewayError('API_CONFIGURATION_ERROR', 'Execution failed due to configuration error: an S3 integration without a credentials role');
  const out = await withTimeout(backends.callS3(String(integration.credentials), String(integration.httpMethod ?? 'GET'), `/${path}`, headers), Number(integration.timeoutInMillis ?? DEFAULT_INTEGRATION_TIMEOUT_MS));
  const response = firstMatching<Record<string, any>>(integration.responses, String(out.status));
  if (!response) throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: no integration response matches ${out.status}`);
  return methodResponse(response, { ...sources, integrationResponseHeaders: out.headers }, out.body, out.status);
}

function mock(integration: Record<string, any>, sources: MappingSources): IntegrationAnswer {
  const requestTemplate = integration.requestTemplates?.['application/json'] as string | undefined;
  let status = 200;
  if (requestTemplate) {
    try {
      status = Number(JSON.parse(renderTemplate(requestTemplate, sources)).statusCode ?? 200);
    } catch {
      throw new GatewayError('API_CONFIGURATION_ERROR', 'Execution failed due to configuration error: the mock request template is not JSON');
    }
  }
  const response = firstMatching<Record<string, any>>(integration.responses, String(status));
  if (!response) throw new GatewayError('API_CONFIGURATION_ERROR', `Execution failed due to configuration error: no integration response matches ${status}`);
  return methodResponse(response, sources, Buffer.alloc(0), status);
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new GatewayError('INTEGRATION_TIMEOUT')), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
