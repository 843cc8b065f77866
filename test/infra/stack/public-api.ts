import { Match } from 'aws-cdk-lib/assertions';
import { operations } from '../../../functions/contract/operations';
import { LEDGER_LOG } from '../../../functions/contract/site-paths';
import { CORS_RESPONSE_HEADERS, preflightHeaders } from '../../../functions/http/cors';
import { lintImportDocument } from '../../../lib/contract/apigateway-rules';
import { DOCUMENT_TIMEOUT_MS, gatewayPath } from '../../../lib/contract/import-document';
import { ACCESS_LOG_FIELDS } from '../../../lib/stack/public-api';
import { DEFAULT_SETTINGS } from '../../../lib/stack/settings';
import { documentKeys, grantsOf, logicalIdOf, referencedIds } from '../support';
import { bucketId, functionOf, lambdaOps, ofType, resources, stack, synthesized } from './template';

/** lib/stack/public-api.ts: the REST API imported from the contract table, and its stage. */

/** The access log asked for behind the edge, the account's logging role left to the account: one synthesis for both tests. */
const ACCESS_LOG_WITHOUT_ROLE = { apiAccessLog: 'true', apiGatewayCloudWatchRole: 'false' };

describe('REST API imported from the contract table', () => {
  const [[apiId, api]] = ofType('AWS::ApiGateway::RestApi');
  const body = api.Properties.Body;

  test('OpenAPI 3.0 (API Gateway rejects 3.1), every operation of the table present with an integration', () => {
    expect(body.openapi).toMatch(/^3\.0\./);
    expect(api.Properties.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
    expect(api.Properties.MinimumCompressionSize).toBe(1024);
    for (const op of operations) {
      const object = body.paths[gatewayPath(op)]?.[op.method.toLowerCase()];
      expect(object).toBeDefined();
      expect(object['x-amazon-apigateway-integration']).toBeDefined();
    }
    for (const pathItem of Object.values(body.paths) as Record<string, any>[]) {
      for (const [method, object] of Object.entries(pathItem)) {
        if (['get', 'post', 'put', 'delete', 'patch', 'x-amazon-apigateway-any-method'].includes(method)) {
          expect(object['x-amazon-apigateway-integration']).toBeDefined();
        }
      }
    }
  });

  test('Lambda operations invoke their own function (GET routes for HEAD too); API Gateway may invoke it for those routes only', () => {
    for (const op of lambdaOps) {
      const { id } = functionOf(op.operationId);
      const methods = op.method === 'GET' ? ['GET', 'HEAD'] : [op.method];
      for (const method of methods) {
        const integration = body.paths[op.path][method.toLowerCase()]['x-amazon-apigateway-integration'];
        expect(integration).toMatchObject({ type: 'aws_proxy', httpMethod: 'POST' });
        // By the function's name, never a reference to it (lib/stack/public-api.ts: the functions depend on the distribution, which depends on the API).
        expect(referencedIds(integration.uri)).toEqual([]);
        expect(JSON.stringify(integration.uri)).toContain(`:function:${resources[id].Properties.FunctionName}/invocations`);
      }

      const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => referencedIds(p.Properties.FunctionName).includes(id));
      expect(permissions).toHaveLength(methods.length);
      const routes = permissions.map(([, p]) => {
        expect(p.Properties).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
        expect(referencedIds(p.Properties.SourceArn)).toContain(apiId);
        return JSON.stringify(p.Properties.SourceArn).match(new RegExp(`/${DEFAULT_SETTINGS.stageName}/([A-Z]+)(/[^"]*)"`))!.slice(1).join(' ');
      });
      expect(routes.sort()).toEqual(methods.map((m) => `${m} ${op.path.replace(/\{[^}]+\}/g, '*')}`).sort());
    }
  });

  test('HEAD beside every GET, an OPTIONS preflight on every path, and the 405 catch-all answering neither', () => {
    const cors = Object.fromEntries(Object.entries(CORS_RESPONSE_HEADERS).map(([k, v]) => [k.toLowerCase(), v]));
    for (const [path, item] of Object.entries(body.paths) as [string, any][]) {
      const methods = operations.filter((op) => gatewayPath(op) === path).map((op) => op.method);
      if (methods.includes('GET')) expect(item.head['x-amazon-apigateway-integration']).toBeDefined();
      const preflight = item.options['x-amazon-apigateway-integration'];
      expect(preflight.type).toBe('mock');
      expect(preflight.responses.default.statusCode).toBe('204');
      const answered = Object.fromEntries(
        Object.entries(preflight.responses.default.responseParameters as Record<string, string>).map(([k, v]) => [k.replace('method.response.header.', '').toLowerCase(), v.slice(1, -1)]),
      );
      expect(answered).toEqual(preflightHeaders(methods));
      expect(answered['access-control-allow-methods'].split(', ')).toEqual(expect.arrayContaining([...methods, 'OPTIONS', ...(methods.includes('GET') ? ['HEAD'] : [])]));
      expect(answered['access-control-allow-headers'].split(', ')).toEqual(expect.arrayContaining(['content-type', 'if-none-match', 'x-correlation-id', 'webhook-id', 'webhook-timestamp', 'webhook-signature']));
      expect(Number(answered['access-control-max-age'])).toBeGreaterThan(0);

      const notAllowed = item['x-amazon-apigateway-any-method']['x-amazon-apigateway-integration'].responses.default;
      expect(notAllowed.responseParameters['method.response.header.Allow']).toBe(`'${preflightHeaders(methods).allow}'`);
      expect(notAllowed.responseParameters['method.response.header.Access-Control-Allow-Origin']).toBe(`'${cors['access-control-allow-origin']}'`);
    }
  });

  test('documents: S3 HEAD beside GET, CORS headers on every answer the bucket integration gives', () => {
    for (const op of operations.filter((o) => o.integration.kind === 'document')) {
      for (const method of ['get', 'head']) {
        const integration = body.paths[op.path][method]['x-amazon-apigateway-integration'];
        expect(integration.httpMethod).toBe(method.toUpperCase());
        expect(integration.timeoutInMillis).toBe(DOCUMENT_TIMEOUT_MS);
        for (const response of Object.values(integration.responses) as any[]) {
          expect(response.responseParameters['method.response.header.Access-Control-Allow-Origin']).toBe("'*'");
          expect(response.responseParameters['method.response.header.Access-Control-Expose-Headers']).toBe(`'${CORS_RESPONSE_HEADERS['access-control-expose-headers']}'`);
        }
      }
    }
  });

  test('every gateway response (404, 429, 4XX, 5XX) is problem details readable cross-origin', () => {
    const responses = body['x-amazon-apigateway-gateway-responses'];
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['MISSING_AUTHENTICATION_TOKEN', 'THROTTLED', 'DEFAULT_4XX', 'DEFAULT_5XX']));
    // Every gateway fault answers 503 with Retry-After, as its body says (never a bare 500/502/504).
    expect(responses.DEFAULT_5XX).toMatchObject({ statusCode: 503, responseParameters: { 'gatewayresponse.header.Retry-After': "'1'" } });
    expect(JSON.parse(responses.DEFAULT_5XX.responseTemplates['application/json']).status).toBe(503);
    for (const response of Object.values(responses) as any[]) {
      expect(response.responseParameters).toMatchObject({
        'gatewayresponse.header.Access-Control-Allow-Origin': "'*'",
        'gatewayresponse.header.Access-Control-Expose-Headers': `'${CORS_RESPONSE_HEADERS['access-control-expose-headers']}'`,
        'gatewayresponse.header.Content-Type': "'application/problem+json'",
      });
      // $context.error.messageString stands unquoted: API Gateway substitutes a quoted JSON string.
      const rendered = response.responseTemplates['application/json'].replace('$context.error.messageString', JSON.stringify('Request Too Long'));
      expect(JSON.parse(rendered).correlationId).toBe('$context.requestId');
    }
  });

  test('the import document in the template meets every documented API Gateway restriction', () => {
    expect(lintImportDocument(body)).toEqual([]);
  });

  test('answers of 1 KiB or more are compressed (minimum compression size)', () => {
    expect(api.Properties.MinimumCompressionSize).toBe(1024);
  });

  test('document operations read their object from the catalogue bucket through the read role, which may read only those', () => {
    const roleId = logicalIdOf(stack, stack.catalogue.apiReadRole);
    for (const op of operations) {
      if (op.integration.kind !== 'document') continue;
      const integration = body.paths[op.path][op.method.toLowerCase()]['x-amazon-apigateway-integration'];
      expect(integration).toMatchObject({ type: 'aws', httpMethod: 'GET', credentials: { 'Fn::GetAtt': [roleId, 'Arn'] } });
      expect(JSON.stringify(integration.uri)).toContain(`/${op.integration.key}"`);
      expect(referencedIds(integration.uri)).toContain(bucketId);
    }
    const grants = grantsOf(resources, roleId);
    expect(new Set(grants.map((g) => g.action))).toEqual(new Set(documentKeys.length > 0 ? ['s3:GetObject'] : []));
    // The documents by key, and the ledger's tile log by its prefix (its objects grow with the log).
    expect(grants.map((g) => JSON.stringify(g.resource).match(/\/([^"]+)"\]\]\}$/)?.[1]).sort()).toEqual([...new Set(documentKeys), `${LEDGER_LOG.keyPrefix}*`].sort());
  });

  test('the ledger tile log: S3 integrations below the log prefix (tile paths greedy), Cache-Control passed through, a missing object a 404', () => {
    const roleId = logicalIdOf(stack, stack.catalogue.apiReadRole);
    const logOps = operations.filter((op) => op.integration.kind === 'log');
    expect(logOps.map((op) => gatewayPath(op)).sort()).toEqual(['/ledger/checkpoint', '/ledger/checkpoints/{treeSize}', '/ledger/logs/{logPath+}', '/ledger/tile/{tilePath+}']);
    for (const op of logOps) {
      for (const method of ['get', 'head']) {
        const object = body.paths[gatewayPath(op)][method];
        const integration = object['x-amazon-apigateway-integration'];
        expect(integration).toMatchObject({ type: 'aws', httpMethod: method.toUpperCase(), credentials: { 'Fn::GetAtt': [roleId, 'Arn'] } });
        expect(referencedIds(integration.uri)).toContain(bucketId);
        const uri = JSON.stringify(integration.uri);
        expect(uri).toContain(`/${LEDGER_LOG.keyPrefix}`);
        for (const name of Object.keys(op.pathParams ?? {})) {
          expect(uri).toContain(`{${name}}`);
          expect(integration.requestParameters[`integration.request.path.${name}`]).toBe(`method.request.path.${name}`);
          expect(object.parameters).toContainEqual({ name, in: 'path', required: true, schema: { type: 'string' } });
        }
        const ok = integration.responses['2\\d{2}'].responseParameters;
        expect(ok['method.response.header.Cache-Control']).toBe('integration.response.header.Cache-Control');
        expect(ok['method.response.header.Content-Type']).toBe('integration.response.header.Content-Type');
        expect(integration.responses['40[34]'].statusCode).toBe('404');
        expect(integration.responses.default.statusCode).toBe('503');
      }
    }
  });

  test('stage: throttling, error execution logs without bodies; behind the edge no access log (CloudFront\'s standard logs record every request)', () => {
    const [[, stage]] = ofType('AWS::ApiGateway::Stage');
    expect(stage.Properties.StageName).toBe(DEFAULT_SETTINGS.stageName);
    // The stage's default; the route classes' method throttles beside it (test/infra/capacity.test.ts).
    expect(stage.Properties.MethodSettings.filter((m: { ResourcePath: string }) => m.ResourcePath === '/*')).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: DEFAULT_SETTINGS.throttleRateLimit,
        ThrottlingBurstLimit: DEFAULT_SETTINGS.throttleBurstLimit,
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
      }),
    ]);
    expect(stage.Properties.AccessLogSetting).toBeUndefined();
    expect(stack.publicApi.accessLogs).toBeUndefined();
    expect(stack.edge).toBeDefined();
  });

  test.each([
    ['without the edge', { edge: 'false' }],
    ['behind the edge, asked for', ACCESS_LOG_WITHOUT_ROLE],
  ])('%s: JSON access logs with the request id, in a log group with retention', (_, context) => {
    const { stack: withLog, json: written } = synthesized(context);
    const stage = Object.values(written.Resources).find((r) => r.Type === 'AWS::ApiGateway::Stage')!;
    const format: string = stage.Properties!.AccessLogSetting.Format;
    // Substituting every $context variable must leave valid JSON (a '-' for a missing value included).
    const sample = JSON.parse(format.replace(/\$context\.[A-Za-z.]+/g, (v) => (v === '$context.status' ? '200' : '-')));
    expect(Object.keys(sample)).toEqual(Object.keys(ACCESS_LOG_FIELDS));
    expect(format).toContain('"requestId":"$context.requestId"');
    const group = logicalIdOf(withLog, withLog.publicApi.accessLogs!);
    expect(JSON.stringify(stage.Properties!.AccessLogSetting.DestinationArn)).toContain(group);
    expect(written.Resources[group].Properties!.RetentionInDays).toBe(DEFAULT_SETTINGS.logRetentionDays);
  });

  test('the execution log group exists before the stage, with retention', () => {
    const executionLogs = resources[logicalIdOf(stack, stack.publicApi.executionLogs)];
    expect(JSON.stringify(executionLogs.Properties.LogGroupName)).toContain('API-Gateway-Execution-Logs_');
    const [[, stage]] = ofType('AWS::ApiGateway::Stage');
    expect(stage.DependsOn).toContain(logicalIdOf(stack, stack.publicApi.executionLogs));
  });

  test('the account CloudWatch role is set by default (logs need it), retained, and can be left to the account', () => {
    const [[, account]] = ofType('AWS::ApiGateway::Account');
    expect(account.DeletionPolicy).toBe('Retain');
    const withoutRole = synthesized(ACCESS_LOG_WITHOUT_ROLE);
    withoutRole.template.resourceCountIs('AWS::ApiGateway::Account', 0);
    withoutRole.template.hasResourceProperties('AWS::ApiGateway::Stage', { AccessLogSetting: Match.anyValue(), MethodSettings: Match.arrayWith([Match.objectLike({ LoggingLevel: 'ERROR' })]) });
  });
});
