import path from 'node:path';
import { buildSync } from 'esbuild';
import { assetDirectory, resourcesOfType, type CfnResource } from '../cloud-assembly';
import type { IssuedCredentials } from '../iam/credentials';
import { AsyncInvoker, type AsyncInvokeConfig } from '../lambda/event-sources';
import { FunctionHost, type FunctionDefinition } from '../lambda/function-host';
import type { Deployment, Provisioner } from './provisioner';

/**
 * AWS::Lambda::Function (with its AWS::Lambda::EventInvokeConfig): each Node.js function from its
 * bundle in the assembly, in processes of its own (started on its first invocation), with exactly
 * the template's environment (references resolved to the local resources), what Lambda adds to
 * it, credentials of its own role, and the SDK pointed at the IAM-enforcing local endpoints.
 * Asynchronous invocations retry per its EventInvokeConfig and end in its dead-letter queue.
 */
export const functions: Provisioner = {
  types: ['AWS::Lambda::Function', 'AWS::Lambda::EventInvokeConfig'],
  async provision(deployment) {
    const { template, resolver, services, notEmulated, closers, log } = deployment;
    const bootstrap = buildBootstrap(deployment.workDir);
    for (const [id, resource] of resourcesOfType(template, 'AWS::Lambda::Function')) {
      const props = resource.Properties ?? {};
      const runtime = String(props.Runtime ?? '');
      if (!runtime.startsWith('nodejs')) {
        notEmulated.push({ type: 'AWS::Lambda::Function', logicalId: id, reason: `${runtime || 'a container image'}: only Node.js functions run here` });
        continue;
      }
      const name = String(resolver.ref(id));
      const credentials = services.iam.issuer.issue({ kind: 'role', roleArn: String(resolver.resolve(props.Role)), sessionName: name }, name);
      const host = new FunctionHost(functionDefinition(deployment, id, resource, credentials), bootstrap, (line) => log(`${name}  ${line}`));
      const asyncInvoker = new AsyncInvoker(host, asyncInvokeConfig(deployment, id, credentials), (line) => log(`Lambda  ${name}  ${line}`));
      deployment.functions.add({ host, credentials, asyncInvoker });
      deployment.background.push(asyncInvoker);
      closers.add(() => host.close());
    }
  },
};

/** The runtime inside each execution environment, built once per run into the run's folder. */
function buildBootstrap(dir: string): string {
  const outfile = path.join(dir, 'bootstrap.js');
  buildSync({ entryPoints: [path.join(__dirname, '../lambda/bootstrap.ts')], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  return outfile;
}

function functionDefinition(deployment: Deployment, id: string, resource: CfnResource, credentials: IssuedCredentials): FunctionDefinition {
  const { assembly, resolver, account, services } = deployment;
  const props = resource.Properties ?? {};
  const runtime = String(props.Runtime);
  const name = String(resolver.ref(id));
  const variables = resolvableVariables(deployment, props.Environment?.Variables ?? {});
  const logging = (props.LoggingConfig ?? {}) as Record<string, unknown>;
  const logGroup = logging.LogGroup ? String(resolver.resolve(logging.LogGroup)) : `/aws/lambda/${name}`;
  const { endpoints } = services;
  return {
    logicalId: id,
    name,
    arn: resolver.getAtt(id, 'Arn'),
    handler: String(props.Handler ?? 'index.handler'),
    runtime,
    codeDirectory: assetDirectory(assembly, String(props.Code?.S3Key ?? '')),
    memoryMb: Number(props.MemorySize ?? 128),
    timeoutSeconds: Number(props.Timeout ?? 3),
    reservedConcurrency: props.ReservedConcurrentExecutions === undefined ? undefined : Number(props.ReservedConcurrentExecutions),
    environment: {
      // The template's variables, exactly.
      ...Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, String(v)])),
      // What Lambda itself sets for every function (the host adds the handler, task root, name, version and memory size).
      AWS_REGION: account.region,
      AWS_DEFAULT_REGION: account.region,
      AWS_LAMBDA_LOG_GROUP_NAME: logGroup,
      AWS_LAMBDA_LOG_STREAM_NAME: `local/[$LATEST]${id}`,
      AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
      ...(logging.LogFormat ? { AWS_LAMBDA_LOG_FORMAT: String(logging.LogFormat) } : {}),
      ...(logging.LogFormat === 'JSON' && logging.ApplicationLogLevel ? { AWS_LAMBDA_LOG_LEVEL: String(logging.ApplicationLogLevel) } : {}),
      AWS_EXECUTION_ENV: `AWS_Lambda_${runtime}`,
      TZ: ':UTC',
      LANG: 'en_US.UTF-8',
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      // The execution role's session, as Lambda hands it over.
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_SESSION_TOKEN: credentials.sessionToken,
      // Where the SDK finds each service: the IAM-enforcing local endpoints (the SDK's own settings, no code of the function's).
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
      AWS_ENDPOINT_URL_S3: endpoints.s3,
      AWS_ENDPOINT_URL_KMS: endpoints.kms,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.secretsmanager,
      AWS_ENDPOINT_URL_SQS: endpoints.sqs,
      AWS_ENDPOINT_URL_LAMBDA: endpoints.lambda,
      // Lambda runs Node.js 22; this machine may run 20, of which the SDK warns on every start.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  };
}

/**
 * The template's variables resolved; one that names a custom resource's attribute is left out:
 * CloudFormation creates the function only after that resource has answered, and the
 * custom-resources provisioner sets the variable then (./custom-resources.ts).
 */
function resolvableVariables({ template, resolver }: Deployment, variables: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(variables)) {
    if (namesCustomResource(template, value)) continue;
    out[name] = resolver.resolve(value);
  }
  return out;
}

/** Whether a template value refers (Ref or Fn::GetAtt) to a custom resource. */
export function namesCustomResource(template: Deployment['template'], value: unknown): boolean {
  const isCustom = (id: unknown) => {
    const type = template.Resources[String(id)]?.Type ?? '';
    return type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource';
  };
  if (Array.isArray(value)) return value.some((v) => namesCustomResource(template, v));
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  if ('Ref' in record && isCustom(record.Ref)) return true;
  if ('Fn::GetAtt' in record && Array.isArray(record['Fn::GetAtt']) && isCustom(record['Fn::GetAtt'][0])) return true;
  return Object.values(record).some((v) => namesCustomResource(template, v));
}

/** The function's EventInvokeConfig (Lambda's defaults without one) and its dead-letter queue, sent to as its role. */
function asyncInvokeConfig({ template, resolver, services }: Deployment, id: string, credentials: IssuedCredentials): AsyncInvokeConfig {
  const config = resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig').find(([, c]) => (c.Properties?.FunctionName as { Ref?: string })?.Ref === id)?.[1]?.Properties ?? {};
  const deadLetter = template.Resources[id].Properties?.DeadLetterConfig?.TargetArn;
  const deadLetterArn = deadLetter ? String(resolver.resolve(deadLetter)) : undefined;
  const deadLetterQueue = services.sqs.queues.find((q) => q.arn === deadLetterArn);
  return {
    maxRetries: Number(config.MaximumRetryAttempts ?? 2),
    maxEventAgeSeconds: Number(config.MaximumEventAgeInSeconds ?? 21_600),
    onFailure: deadLetterQueue
      ? (event, outcome) =>
          services.callAsRole(credentials, 'sqs', 'AmazonSQS.SendMessage', {
            QueueUrl: deadLetterQueue.url,
            MessageBody: JSON.stringify(event),
            MessageAttributes: {
              RequestID: { DataType: 'String', StringValue: outcome.requestId },
              ErrorCode: { DataType: 'Number', StringValue: '200' },
              ErrorMessage: { DataType: 'String', StringValue: outcome.errorMessage.slice(0, 1000) },
            },
          })
      : undefined,
  };
}
