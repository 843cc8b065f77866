import { copiedBySync, fnmatch } from '../../lib/assembly/bucket-deployments';
import type { CfnTemplate } from '../../lib/assembly/cloud-assembly';
import { GATEWAY_RESPONSE_DEFAULTS, gatewayResponse, type GatewayResponseType } from '../../lib/assembly/gateway/gateway-responses';
import { mappedValue, renderTemplate } from '../../lib/assembly/gateway/mapping';
import { RestApiRoutes } from '../../lib/assembly/gateway/rest-api';
import { IntrinsicResolver } from '../../lib/assembly/intrinsics';
import { physicalResources } from '../../lib/assembly/physical-names';
import { buildImportDocument } from '../../lib/contract/import-document';

/**
 * The runner's reading of a template, piece by piece: the REST API's routes and gateway responses
 * as API Gateway builds them from the import document, its parameter mappings, CloudFormation's
 * intrinsic functions, and which files a bucket deployment copies.
 */

const integration = { type: 'mock' };
const routes = new RestApiRoutes({
  paths: {
    '/v1/objects/{reference}': { get: { 'x-amazon-apigateway-integration': integration } },
    '/v1/objects/special': { get: { 'x-amazon-apigateway-integration': integration } },
    '/ledger/tile/{tilePath+}': { get: { 'x-amazon-apigateway-integration': integration } },
    '/health': { get: { 'x-amazon-apigateway-integration': integration }, 'x-amazon-apigateway-any-method': { 'x-amazon-apigateway-integration': integration } },
    '/': { get: { 'x-amazon-apigateway-integration': integration } },
  },
});

describe('routes from the import document', () => {
  test('a literal segment wins over a parameter, a parameter takes one segment, decoded', () => {
    expect(routes.match('GET', '/v1/objects/special')).toMatchObject({ kind: 'found', method: { resourcePath: '/v1/objects/special' }, pathParameters: {} });
    expect(routes.match('GET', '/v1/objects/ORD%2D1')).toMatchObject({ kind: 'found', method: { resourcePath: '/v1/objects/{reference}' }, pathParameters: { reference: 'ORD-1' } });
    expect(routes.match('GET', '/v1/objects/a/b')).toEqual({ kind: 'missing' });
  });

  test('a greedy parameter takes the rest of the path, slashes included', () => {
    expect(routes.match('GET', '/ledger/tile/0/000.p/34')).toMatchObject({ kind: 'found', pathParameters: { tilePath: '0/000.p/34' } });
  });

  test('a method the path does not declare falls to its ANY method, or is missing (MISSING_AUTHENTICATION_TOKEN)', () => {
    expect(routes.match('DELETE', '/health')).toMatchObject({ kind: 'found', method: { httpMethod: 'ANY' } });
    expect(routes.match('DELETE', '/v1/objects/x')).toEqual({ kind: 'missing' });
    expect(routes.match('GET', '/')).toMatchObject({ kind: 'found', method: { resourcePath: '/' } });
    expect(routes.match('GET', '/nowhere')).toEqual({ kind: 'missing' });
  });

  test('an operation without an integration is refused, as API Gateway refuses the import', () => {
    expect(() => new RestApiRoutes({ paths: { '/x': { get: {} } } })).toThrow(/no x-amazon-apigateway-integration/);
  });
});

describe("the stack's gateway responses", () => {
  const document = buildImportDocument({ lambdaUri: () => 'arn:lambda', documentUri: () => 'arn:s3', documentRole: 'arn:role' }) as Record<string, any>;
  const definitions = document['x-amazon-apigateway-gateway-responses'];
  const context = { requestId: 'req-1', path: '/live/nowhere' };

  test.each(Object.keys(GATEWAY_RESPONSE_DEFAULTS) as GatewayResponseType[])('%s renders a JSON body, CORS headers included', (type) => {
    const answer = gatewayResponse(definitions, type, { context }, 'Message with "quotes" in it');
    expect(() => JSON.parse(answer.body)).not.toThrow();
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(answer.body).correlationId).toBe('req-1');
  });

  test('a 4XX falling to DEFAULT_4XX keeps its own status and carries API Gateway\'s message as the detail', () => {
    const answer = gatewayResponse(definitions, 'REQUEST_TOO_LARGE', { context });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ detail: 'Request Too Long', instance: '/live/nowhere' });
  });

  test('DEFAULT_5XX sets every gateway fault to 503 with Retry-After', () => {
    for (const type of ['LAMBDA_FUNCTION_ERROR', 'INTEGRATION_TIMEOUT', 'API_CONFIGURATION_ERROR'] as const) {
      const answer = gatewayResponse(definitions, type, { context });
      expect([answer.status, answer.headers['retry-after'], JSON.parse(answer.body).code]).toEqual([503, '1', 'DEPENDENCY_UNAVAILABLE']);
    }
  });

  test('unknown paths are 404 problem details, throttling 429 with Retry-After', () => {
    expect(gatewayResponse(definitions, 'MISSING_AUTHENTICATION_TOKEN', { context }).status).toBe(404);
    const throttled = gatewayResponse(definitions, 'THROTTLED', { context });
    expect([throttled.status, throttled.headers['retry-after'], throttled.headers['content-type']]).toEqual([429, '1', 'application/problem+json']);
  });

  test("without customisation, API Gateway's own answer: the type's status and {\"message\": ...}", () => {
    expect(gatewayResponse(undefined, 'THROTTLED', { context })).toEqual({ status: 429, headers: { 'content-type': 'application/json' }, body: '{"message":"Too Many Requests"}' });
  });
});

test('mapping expressions: literals, context, method request and integration response headers', () => {
  const sources = {
    context: { requestId: 'r-1', error: { message: 'm' } },
    methodRequest: { header: { 'if-none-match': '"abc"' }, path: { tilePath: '0/001' }, querystring: {} },
    integrationResponseHeaders: { 'Content-Type': 'application/json', etag: '"e"' },
  };
  expect(mappedValue("'GET, HEAD'", sources)).toBe('GET, HEAD');
  expect(mappedValue('context.requestId', sources)).toBe('r-1');
  expect(mappedValue('method.request.header.If-None-Match', sources)).toBe('"abc"');
  expect(mappedValue('method.request.path.tilePath', sources)).toBe('0/001');
  expect(mappedValue('integration.response.header.ETag', sources)).toBe('"e"');
  expect(mappedValue('integration.response.header.Missing', sources)).toBeUndefined();
  expect(() => mappedValue('stage.unknown', sources)).toThrow(/not emulated/);
  expect(renderTemplate('{"a":"$context.requestId","b":"$context.error.message","c":"$context.none"}', sources)).toBe('{"a":"r-1","b":"m","c":""}');
});

describe('intrinsic functions', () => {
  const template: CfnTemplate = {
    Parameters: { Stage: { Type: 'String', Default: 'live' } },
    Conditions: { IsLive: { 'Fn::Equals': [{ Ref: 'Stage' }, 'live'] } },
    Resources: {
      Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
      Named: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'records' } },
      Fn: { Type: 'AWS::Lambda::Function', Properties: {} },
      Key: { Type: 'AWS::KMS::Key', Properties: {} },
      Api: { Type: 'AWS::ApiGateway::RestApi', Properties: {} },
    },
  };
  const account = { account: '123456789012', region: 'eu-central-1', partition: 'aws', urlSuffix: 'amazonaws.com', stackName: 'Stack' };
  const resolver = new IntrinsicResolver(template, account, physicalResources(template, account, (name) => `http://sqs/${name}`));

  test('Ref and Fn::GetAtt give CloudFormation-shaped local names', () => {
    expect(resolver.resolve({ Ref: 'Named' })).toBe('records');
    expect(resolver.resolve({ 'Fn::GetAtt': ['Named', 'Arn'] })).toBe('arn:aws:dynamodb:eu-central-1:123456789012:table/records');
    expect(resolver.resolve({ 'Fn::GetAtt': 'Named.StreamArn' })).toMatch(/^arn:aws:dynamodb:eu-central-1:123456789012:table\/records\/stream\//);
    expect(resolver.resolve({ Ref: 'Table' })).toMatch(/^Stack-Table-[A-Z0-9]{12}$/);
    expect(resolver.resolve({ 'Fn::GetAtt': ['Key', 'Arn'] })).toMatch(/^arn:aws:kms:eu-central-1:123456789012:key\/[0-9a-f-]{36}$/);
  });

  test('Fn::Join, Fn::Sub (both forms, ${!literal}), Fn::Select and Fn::Split, Fn::If on a condition', () => {
    expect(resolver.resolve({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':x']] })).toBe('arn:aws:x');
    expect(resolver.resolve({ 'Fn::Sub': 'https://${Api}.execute-api.${AWS::Region}.${AWS::URLSuffix}/${Stage}' })).toMatch(/^https:\/\/[a-z0-9]{10}\.execute-api\.eu-central-1\.amazonaws\.com\/live$/);
    expect(resolver.resolve({ 'Fn::Sub': ['${A}-${Named.Arn}-${!Literal}', { A: { Ref: 'Named' } }] })).toBe('records-arn:aws:dynamodb:eu-central-1:123456789012:table/records-${Literal}');
    expect(resolver.resolve({ 'Fn::Select': [1, { 'Fn::Split': ['/', 'a/b/c'] }] })).toBe('b');
    expect(resolver.resolve({ 'Fn::If': ['IsLive', 'yes', 'no'] })).toBe('yes');
  });

  test('what cannot be known locally fails naming itself', () => {
    expect(() => resolver.resolve({ Ref: 'Nothing' })).toThrow(/Nothing/);
    expect(() => resolver.resolve({ 'Fn::GetAtt': ['Fn', 'SnapStartResponse'] })).toThrow(/Fn\.SnapStartResponse/);
    expect(() => resolver.resolve({ 'Fn::ImportValue': 'Other' })).toThrow(/another stack/);
  });
});

test("bucket deployment filters as `aws s3 sync --exclude '*' --include '*.json'` applies them", () => {
  expect(fnmatch('*.json', 'developers/sandbox/examples.json')).toBe(true);
  expect(fnmatch('*.json', 'developers/reference/start.js')).toBe(false);
  expect(fnmatch('developers/[!x]*.svg', 'developers/favicon.svg')).toBe(true);
  expect(copiedBySync('developers/openapi.json', ['*'], ['*.json'])).toBe(true);
  expect(copiedBySync('developers/reference/swagger-ui.css', ['*'], ['*.json'])).toBe(false);
  expect(copiedBySync('a.json', ['*.json'])).toBe(false);
  expect(copiedBySync('a.json')).toBe(true);
});
