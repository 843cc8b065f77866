import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { SANDBOX_EXAMPLES } from '../../functions/domain/sandbox/examples';

export type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A REST proxy event as API Gateway sends it for a GET (only the fields the boundary reads are meaningful). */
export function getEvent(
  resource: string,
  path: string,
  pathParameters: Record<string, string> | null,
  query: Record<string, string> | null = null,
  headers: Record<string, string> = {},
): APIGatewayProxyEvent {
  return {
    resource,
    path,
    httpMethod: 'GET',
    headers: { host: 'bench.local', 'x-forwarded-proto': 'https', ...headers },
    multiValueHeaders: {},
    queryStringParameters: query,
    multiValueQueryStringParameters: query ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])) : null,
    pathParameters,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { path, requestId: 'bench-request', domainName: 'bench.local', stage: 'bench', httpMethod: 'GET' } as APIGatewayProxyEvent['requestContext'],
  };
}

/** A sandbox request as API Gateway sends it: a JSON POST to a sandbox route (the provider's id taken from the path). */
export function sandboxEvent(resource: string, path: string, body: unknown): APIGatewayProxyEvent {
  const providerId = /\/providers\/([^/]+)\/run$/.exec(path)?.[1];
  return {
    resource,
    path,
    httpMethod: 'POST',
    headers: { host: 'bench.local', 'x-forwarded-proto': 'http', 'content-type': 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: providerId ? { providerId } : null,
    stageVariables: null,
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { path, requestId: 'bench', domainName: 'bench.local' } as APIGatewayProxyEvent['requestContext'],
  };
}

/** The first published example of a sandbox route (`resource`, its path template), as API Gateway sends it. */
export function sandboxExampleEvent(resource: string): APIGatewayProxyEvent {
  const example = SANDBOX_EXAMPLES.find((e) => new RegExp(`^${resource.replace(/\{\w+\}/g, '[^/]+')}$`).test(e.path));
  if (!example) throw new Error(`no published sandbox example for ${resource}`);
  return sandboxEvent(resource, example.path, example.body);
}

export const lambdaContext = {
  functionName: 'bench',
  functionVersion: '$LATEST',
  awsRequestId: 'bench-request',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;
