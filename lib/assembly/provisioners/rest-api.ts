import { resourcesOfType } from '../cloud-assembly';
import { exchange } from '../endpoints/iam-endpoint';
import { startGatewayServer } from '../gateway/gateway-server';
import type { GatewayBackends } from '../gateway/integrations';
import { isPlainSubstitution } from '../gateway/mapping';
import { RestApiRoutes } from '../gateway/rest-api';
import type { IssuedCredentials } from '../iam/credentials';
import { signRequest } from '../iam/sigv4';
import { TooManyRequests } from '../lambda/function-host';
import type { Deployment, Provisioner } from './provisioner';

/**
 * AWS::ApiGateway::RestApi with its stage: the one REST API of the template, served from its import
 * document (Body) under http://127.0.0.1:PORT/<stageName>, with the stage's throttling, compression
 * and access log format; each integration as API Gateway runs it (a function invoked if its policy
 * lets API Gateway invoke it, S3 called as the integration's credentials role).
 */
export const restApi: Provisioner = {
  types: ['AWS::ApiGateway::RestApi', 'AWS::ApiGateway::Deployment', 'AWS::ApiGateway::Stage'],
  async provision(deployment) {
    const { template, resolver, account, options, notEmulated, closers, log } = deployment;
    const apis = resourcesOfType(template, 'AWS::ApiGateway::RestApi');
    if (apis.length !== 1) throw new Error(`the template defines ${apis.length} REST APIs; the runner serves exactly one`);
    const [apiId, api] = apis[0];
    const apiProps = api.Properties ?? {};
    if (!apiProps.Body) throw new Error(`${apiId} has no Body (an import document): only APIs defined by one are served`);
    const body = resolver.resolve(apiProps.Body) as Record<string, any>;
    const stage = resourcesOfType(template, 'AWS::ApiGateway::Stage').find(([, s]) => (s.Properties?.RestApiId as { Ref?: string })?.Ref === apiId)?.[1];
    if (!stage) throw new Error(`${apiId} has no AWS::ApiGateway::Stage`);
    const stageProps = resolver.resolve(stage.Properties ?? {}) as Record<string, any>;
    const everyMethod = ((stageProps.MethodSettings ?? []) as any[]).find((m) => m.HttpMethod === '*' && m.ResourcePath === '/*');
    for (const method of new RestApiRoutes(body).methods) {
      const mappings = [...Object.values(method.integration.requestTemplates ?? {}), ...Object.values(method.integration.responses ?? {}).flatMap((r: any) => Object.values(r.responseTemplates ?? {}))];
      if (mappings.some((mapping) => !isPlainSubstitution(String(mapping)))) {
        notEmulated.push({ type: 'AWS::ApiGateway::RestApi', logicalId: `${method.httpMethod} ${method.resourcePath}`, reason: 'a mapping template with VTL beyond substitutions' });
      }
    }
    const gateway = await startGatewayServer(
      {
        body,
        stageName: String(stageProps.StageName),
        apiId: String(resolver.ref(apiId)),
        account: account.account,
        region: account.region,
        minimumCompressionSize: apiProps.MinimumCompressionSize === undefined ? undefined : Number(apiProps.MinimumCompressionSize),
        throttle: everyMethod?.ThrottlingRateLimit !== undefined ? { ratePerSecond: Number(everyMethod.ThrottlingRateLimit), burst: Number(everyMethod.ThrottlingBurstLimit ?? everyMethod.ThrottlingRateLimit) } : undefined,
        accessLogFormat: options.accessLogs ? stageProps.AccessLogSetting?.Format : undefined,
        port: options.port,
      },
      gatewayBackends(deployment),
      (line) => log(`API  ${line}`),
    );
    closers.add(() => gateway.close());
    deployment.api = { logicalId: apiId, invokeUrl: gateway.invokeUrl, open: gateway.open };
    deployment.urls.set(apiId, gateway.invokeUrl);
  },
};

/** What API Gateway calls: the functions here, their policies, and S3 as an integration's credentials role. */
function gatewayBackends({ functions, services, account }: Deployment): GatewayBackends {
  const { evaluator, issuer } = services.iam;
  const credentialsRoles = new Map<string, IssuedCredentials>();
  return {
    async invokeFunction(functionArn, event) {
      const fn = functions.find(functionArn);
      if (!fn) return 'unknown-function';
      try {
        return await fn.host.invoke(event);
      } catch (error) {
        if (error instanceof TooManyRequests) return 'throttled';
        throw error;
      }
    },
    mayInvoke: (functionArn, sourceArn) =>
      evaluator.decide({ kind: 'service', service: 'apigateway.amazonaws.com' }, { action: 'lambda:InvokeFunction', resource: functionArn, context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': account.account } }),
    async callS3(roleArn, method, objectPath, headers) {
      let credentials = credentialsRoles.get(roleArn);
      if (!credentials) {
        credentials = issuer.issue({ kind: 'role', roleArn, sessionName: 'APIGateway' }, 'API Gateway');
        credentialsRoles.set(roleArn, credentials);
      }
      const url = new URL(services.endpoints.s3);
      const signed = await signRequest({ method, target: objectPath, headers: { ...headers, host: url.host }, body: Buffer.alloc(0) }, 's3', account.region, credentials);
      const out = await exchange(url, method, objectPath, signed, Buffer.alloc(0));
      return { ...out, headers: out.headers as Record<string, string> };
    },
  };
}
