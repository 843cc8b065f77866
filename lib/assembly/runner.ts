import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateTableCommand, DynamoDBClient, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { buildSync } from 'esbuild';
import { startEmbeddedStore } from '../local/embedded-store';
import { startKmsStandIn, type KmsStandIn } from '../local/kms-stand-in';
import { startSecretsStandIn } from '../local/secrets-stand-in';
import { startSqsStandIn, type QueuedMessage } from '../local/sqs-stand-in';
import { deployBucket, type BucketDeploymentProps } from './bucket-deployments';
import { assetDirectory, readCloudAssembly, removeUnpackedAssets, resourcesOfType, type CloudAssembly } from './cloud-assembly';
import { DEMO_OUTPUTS, developmentIngressKeys, loadDemoAsLoaderRole, type DemoOutputs } from './demo';
import { TableStreams, type StreamedTable } from './dynamodb-streams';
import { dynamoDbRules, type TableInfo } from './endpoints/dynamodb';
import { exchange, jsonBody, passThrough, startIamEndpoint, type Denial, type Forward, type IamEndpoint } from './endpoints/iam-endpoint';
import { kmsRules, secretsManagerRules, sqsRules } from './endpoints/json-services';
import { s3Rules, s3rverForward } from './endpoints/s3';
import { startGatewayServer, type GatewayServer } from './gateway/gateway-server';
import { isPlainSubstitution } from './gateway/mapping';
import { RestApiRoutes } from './gateway/rest-api';
import { CredentialIssuer, type IssuedCredentials } from './iam/credentials';
import { IamEvaluator, type Caller } from './iam/evaluator';
import { policyModel } from './iam/policy-model';
import { signRequest } from './iam/sigv4';
import { IntrinsicResolver } from './intrinsics';
import { AsyncInvoker, rateMs, scheduledEvent, StreamEventSourceMapping } from './lambda/event-sources';
import { FunctionHost, TooManyRequests, type FunctionDefinition } from './lambda/function-host';
import { DEFAULT_ACCOUNT, physicalResources, type LocalAccount } from './physical-names';
import { startEdge } from './edge';

// s3rver ships no types: an S3-compatible server on the local file system.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => { run(): Promise<AddressInfo>; close(): Promise<void> };

/**
 * Runs a synthesized cloud assembly (`npx cdk synth -o DIR`) on this machine, driven by its
 * template: the resources a deployment creates (tables, buckets with what the bucket deployments
 * put there, secrets, the KMS keys, queues) on local stand-ins; each function from its bundle in
 * the assembly, in processes of its own, with exactly the template's environment (references
 * resolved to the local resources) and credentials of its own role; every AWS call they make
 * through local endpoints that enforce the template's IAM policies; the REST API from its import
 * document; the stream and schedule triggers as the template wires them. What it cannot run it
 * names at start (`notEmulated`).
 */

export interface AssemblyRunnerOptions {
  assemblyDir: string;
  /** Load the demo data as the loader role, activate the event sources, trust the ledger key. */
  demo?: boolean;
  /** Port of the API (default: any free one). */
  port?: number;
  region?: string;
  account?: string;
  /** The instant the demo data is generated around (default: now). */
  anchor?: Date;
  /** Every line the runner and the functions print (default: stdout). */
  log?: (line: string) => void;
  /** Print the stage's access log lines (its AccessLogSetting format). */
  accessLogs?: boolean;
  /** Run schedule rules on their own timers (default true; fireSchedules() runs them at once). */
  scheduleTimers?: boolean;
}

export interface AssemblyRunner {
  /** http://127.0.0.1:PORT/<stageName> */
  invokeUrl: string;
  /** http://127.0.0.1:PORT of the template's CloudFront distribution, when it has one. */
  edgeUrl?: string;
  stackName: string;
  /** Resources of the template the runner does not emulate, with why. */
  notEmulated: NotEmulated[];
  /** Functions by logical id. */
  functions: Map<string, FunctionHost>;
  /** Every call the IAM endpoints refused, in order. */
  denials: Denial[];
  /** The stack's outputs, resolved to the local resources (those that resolve). */
  outputs: Record<string, string>;
  /** With --demo: the verifier key the read functions trust (the KMS stand-in's key). */
  verifierKey?: string;
  /** The endpoints of the stand-ins behind the IAM endpoints (no IAM: for inspection only). */
  backends: { dynamodb: string; s3: string };
  /** The IAM-enforcing endpoints the functions are given. */
  endpoints: Record<'dynamodb' | 's3' | 'kms' | 'secretsmanager' | 'sqs', string>;
  /** Messages in a queue of the template (a dead-letter queue), by logical id. */
  queueMessages(logicalId: string): QueuedMessage[];
  /** Invokes every schedule rule's targets now, as its next tick would, and waits for them. */
  fireSchedules(): Promise<void>;
  /** Waits until every stream mapping has delivered (or given up on) what it holds, and every asynchronous invocation has ended. */
  settled(): Promise<void>;
  /** Applies the IAM policies of another synthesis of the same stack (a stack update that changes roles, policies, key or bucket policies only). */
  deployPolicies(assemblyDir: string): void;
  close(): Promise<void>;
}

export interface NotEmulated {
  type: string;
  logicalId: string;
  reason: string;
}

/** Why a type the runner does not emulate needs nothing here. */
const NOT_EMULATED_REASONS: Record<string, string> = {
  'AWS::Logs::LogGroup': 'log lines are printed here instead, with the function\'s name',
  'AWS::ApiGateway::Account': 'an account-wide API Gateway setting',
  'AWS::CDK::Metadata': 'CDK\'s own metadata',
  'AWS::Lambda::LayerVersion': 'a layer of a function that does not run here',
  'AWS::CloudWatch::Alarm': 'metrics and alarms are not emulated',
  'AWS::CloudWatch::Dashboard': 'metrics and dashboards are not emulated',
  'AWS::SNS::Topic': 'notifications are not emulated',
  'AWS::SNS::Subscription': 'notifications are not emulated',
  'AWS::SNS::TopicPolicy': 'notifications are not emulated',
  'AWS::CloudWatch::CompositeAlarm': 'metrics and alarms are not emulated',
  'AWS::Logs::MetricFilter': 'metrics and alarms are not emulated',
};

/** The not-emulated resources, one line per type and reason. */
export function describeNotEmulated(list: readonly NotEmulated[]): string[] {
  const groups = new Map<string, string[]>();
  for (const item of list) {
    const key = `${item.type}: ${item.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), item.logicalId]);
  }
  return [...groups].map(([key, ids]) => (ids.length > 2 ? `${key} (${ids.length} resources)` : `${key} (${ids.join(', ')})`));
}

/** The types the runner emulates; every other resource is reported as not emulated. */
const EMULATED = new Set([
  'AWS::DynamoDB::Table',
  'AWS::S3::Bucket',
  'AWS::S3::BucketPolicy',
  'AWS::IAM::Role',
  'AWS::IAM::Policy',
  'AWS::IAM::ManagedPolicy',
  'AWS::Lambda::Function',
  'AWS::Lambda::Permission',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Lambda::EventInvokeConfig',
  'AWS::KMS::Key',
  'AWS::KMS::Alias',
  'AWS::SecretsManager::Secret',
  'AWS::SecretsManager::ResourcePolicy',
  'AWS::SQS::Queue',
  'AWS::SQS::QueuePolicy',
  'AWS::Events::Rule',
  'AWS::ApiGateway::RestApi',
  'AWS::ApiGateway::Deployment',
  'AWS::ApiGateway::Stage',
  'Custom::CDKBucketDeployment',
]);

const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const STORE_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** The runtime inside each execution environment, built once per run into a temporary folder. */
function buildBootstrap(dir: string): string {
  const outfile = path.join(dir, 'bootstrap.js');
  buildSync({ entryPoints: [path.join(__dirname, 'lambda/bootstrap.ts')], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  return outfile;
}

export async function startAssemblyRunner(options: AssemblyRunnerOptions): Promise<AssemblyRunner> {
  const log = options.log ?? ((line: string) => console.log(line));
  const assembly = readCloudAssembly(options.assemblyDir);
  const { template } = assembly;
  const account: LocalAccount = {
    account: options.account ?? DEFAULT_ACCOUNT,
    region: options.region ?? 'eu-central-1',
    partition: 'aws',
    urlSuffix: 'amazonaws.com',
    stackName: assembly.stackName,
  };
  const work = mkdtempSync(path.join(os.tmpdir(), 'assembly-run-'));
  const closers: Array<() => Promise<void> | void> = [() => rmSync(work, { recursive: true, force: true }), removeUnpackedAssets];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };

  try {
    // Stand-ins first: a queue's Ref is its URL at the local SQS endpoint.
    const sqs = await startSqsStandIn();
    closers.push(() => sqs.close());
    const physical = physicalResources(template, account, (name) => sqs.urlOf(account.account, name));
    const resolver = new IntrinsicResolver(template, account, physical);
    const notEmulated: NotEmulated[] = [];
    for (const [id, resource] of Object.entries(template.Resources)) {
      if (resource.Condition && !resolver.condition(resource.Condition)) continue;
      if (!EMULATED.has(resource.Type)) notEmulated.push({ type: resource.Type, logicalId: id, reason: NOT_EMULATED_REASONS[resource.Type] ?? 'not emulated' });
    }

    const store = await startEmbeddedStore();
    closers.push(() => store.close());
    const storeClient = new DynamoDBClient({ endpoint: store.endpoint, region: account.region, credentials: STORE_CREDENTIALS });
    closers.push(() => storeClient.destroy());
    const secrets = await startSecretsStandIn();
    closers.push(() => secrets.close());

    // --- What CloudFormation creates -------------------------------------------------------
    const tables = new Map<string, TableInfo>();
    const streamed = new Map<string, StreamedTable>();
    for (const [id, resource] of resourcesOfType(template, 'AWS::DynamoDB::Table')) {
      const props = resolver.resolve(resource.Properties ?? {}) as Record<string, any>;
      const name = String(resolver.ref(id));
      const keySchema = props.KeySchema as Array<{ AttributeName: string; KeyType: string }>;
      const input: CreateTableCommandInput = {
        TableName: name,
        KeySchema: keySchema as never,
        AttributeDefinitions: props.AttributeDefinitions,
        BillingMode: props.BillingMode ?? 'PROVISIONED',
        ...(props.BillingMode === 'PAY_PER_REQUEST' ? {} : { ProvisionedThroughput: props.ProvisionedThroughput ?? { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } }),
        ...(props.GlobalSecondaryIndexes ? { GlobalSecondaryIndexes: props.GlobalSecondaryIndexes } : {}),
        ...(props.LocalSecondaryIndexes ? { LocalSecondaryIndexes: props.LocalSecondaryIndexes } : {}),
        ...(props.StreamSpecification ? { StreamSpecification: { StreamEnabled: true, StreamViewType: props.StreamSpecification.StreamViewType } } : {}),
      };
      await storeClient.send(new CreateTableCommand(input));
      if (props.ImportSourceSpecification) {
        notEmulated.push({ type: 'AWS::DynamoDB::Table', logicalId: id, reason: 'ImportSourceSpecification: the table starts empty here (--demo loads the demo data)' });
      }
      const partitionKey = keySchema.find((k) => k.KeyType === 'HASH')!.AttributeName;
      const indexPartitionKeys = new Map<string, string>();
      for (const index of [...(props.GlobalSecondaryIndexes ?? []), ...(props.LocalSecondaryIndexes ?? [])] as any[]) {
        indexPartitionKeys.set(index.IndexName, index.KeySchema.find((k: any) => k.KeyType === 'HASH').AttributeName);
      }
      const arn = resolver.getAtt(id, 'Arn');
      tables.set(name, { name, arn, partitionKey, indexPartitionKeys });
      if (props.StreamSpecification?.StreamViewType) {
        streamed.set(name, { name, streamArn: resolver.getAtt(id, 'StreamArn'), viewType: props.StreamSpecification.StreamViewType, keyAttributes: keySchema.map((k) => k.AttributeName) });
      }
    }

    const bucketNames = resourcesOfType(template, 'AWS::S3::Bucket').map(([id]) => String(resolver.ref(id)));
    const s3Dir = path.join(work, 's3');
    const s3rver = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir, configureBuckets: bucketNames.map((name) => ({ name })) });
    const s3Address = await s3rver.run();
    closers.push(() => s3rver.close());
    const s3Backend = `http://127.0.0.1:${s3Address.port}`;
    const s3Admin = new S3Client({ endpoint: s3Backend, region: account.region, credentials: S3RVER_CREDENTIALS, forcePathStyle: true });
    closers.push(() => s3Admin.destroy());

    /** The ARNs of the template's secrets. */
    const secretArns: string[] = [];
    for (const [id, resource] of resourcesOfType(template, 'AWS::SecretsManager::Secret')) {
      const props = resolver.resolve(resource.Properties ?? {}) as Record<string, any>;
      const value = typeof props.SecretString === 'string' ? props.SecretString : JSON.stringify({ password: Math.random().toString(36).slice(2) });
      const arn = String(resolver.ref(id));
      secrets.create(arn, value);
      secretArns.push(arn);
    }
    /** The template's queues: logical id, URL (their Ref), name and ARN. */
    const queues: Array<{ id: string; url: unknown; name: string; arn: string }> = [];
    for (const [id] of resourcesOfType(template, 'AWS::SQS::Queue')) {
      const name = resolver.getAtt(id, 'QueueName');
      sqs.create(account.account, name);
      queues.push({ id, url: resolver.ref(id), name, arn: resolver.getAtt(id, 'Arn') });
    }
    /** The logical id of the template's queue with this ARN. */
    const queueIdByArn = (arn: string | undefined) => (arn === undefined ? undefined : queues.find((q) => q.arn === arn)?.id);

    const kmsKeys = new Map<string, KmsStandIn>();
    /** The template's aliases: [AliasName, the TargetKeyId resolved]. */
    const kmsAliases: Array<[name: string, target: unknown]> = resourcesOfType(template, 'AWS::KMS::Alias').map(([, alias]) => [String(alias.Properties?.AliasName), resolver.resolve(alias.Properties?.TargetKeyId)]);
    for (const [id, resource] of resourcesOfType(template, 'AWS::KMS::Key')) {
      const props = resource.Properties ?? {};
      const arn = resolver.getAtt(id, 'Arn');
      if (props.KeySpec !== 'ECC_NIST_EDWARDS25519' || props.KeyUsage !== 'SIGN_VERIFY') {
        notEmulated.push({ type: 'AWS::KMS::Key', logicalId: id, reason: `${props.KeySpec ?? 'SYMMETRIC_DEFAULT'}: the KMS stand-in holds Ed25519 signing keys only` });
        continue;
      }
      const aliases = kmsAliases.filter(([, target]) => [arn, resolver.ref(id)].includes(target)).map(([name]) => name);
      const key = await startKmsStandIn(arn, { aliases });
      kmsKeys.set(arn, key);
      closers.push(() => key.close());
    }

    // --- IAM ---------------------------------------------------------------------------------
    const evaluator = new IamEvaluator(policyModel(template, resolver), account.account, account.region);
    for (const problem of evaluator.policies.problems) log(`IAM  could not read a policy: ${problem}`);
    const issuer = new CredentialIssuer();
    const denials: Denial[] = [];
    const onDenied = (denial: Denial) => {
      denials.push(denial);
      log(`IAM  ${denial.label}: AccessDenied ${denial.action} on ${denial.resource} (${denial.message})`);
    };
    const streams = new TableStreams(streamed, async (operation, body) => {
      const out = await fetch(store.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `DynamoDB_20120810.${operation}`,
          'x-amz-date': '20260101T000000Z',
          // The store wants a signature's shape and checks nothing in it.
          authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/local/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0',
        },
        body: JSON.stringify(body),
      });
      return (await out.json()) as Record<string, any>;
    }, account.region);

    const kmsArnOf = (keyId: string): string | undefined => {
      for (const [arn] of kmsKeys) {
        if (keyId === arn || keyId === arn.slice(arn.lastIndexOf('/') + 1)) return arn;
      }
      for (const [name, target] of kmsAliases) {
        if (keyId === name || keyId.endsWith(`:${name}`)) return String(target);
      }
      return undefined;
    };
    const kmsForward: Forward = (request, caller) => {
      // The body the endpoint's rules parsed (jsonBody parses a request's body once).
      const keyId = String(jsonBody(request).KeyId ?? '');
      const key = kmsKeys.get(kmsArnOf(keyId) ?? '');
      if (!key) {
        return Promise.resolve({
          status: 400,
          headers: { 'content-type': 'application/x-amz-json-1.1' },
          body: Buffer.from(JSON.stringify({ __type: 'NotFoundException', message: `Key '${keyId}' does not exist` })),
        });
      }
      return passThrough(key.endpoint)(request, caller);
    };
    const secretArnOf = (id: string) => secretArns.find((arn) => arn === id || arn.startsWith(id) || arn.includes(`:secret:${id}-`));
    const queueArnOf = (urlOrName: string) => queues.find((q) => q.url === urlOrName || q.name === urlOrName)?.arn;

    const endpoint = async (rules: Parameters<typeof startIamEndpoint>[0]['rules'], forward: Forward): Promise<IamEndpoint> => {
      const started = await startIamEndpoint({ rules, forward, issuer, evaluator, onDenied });
      closers.push(() => started.close());
      return started;
    };
    const endpoints = {
      dynamodb: (await endpoint(dynamoDbRules(tables, account.region, account.account), streams.capturing(passThrough(store.endpoint)))).endpoint,
      s3: (await endpoint(s3Rules(account.partition), s3rverForward(s3Backend, account.region, S3RVER_CREDENTIALS))).endpoint,
      kms: (await endpoint(kmsRules({ arnOf: kmsArnOf }), kmsForward)).endpoint,
      secretsmanager: (await endpoint(secretsManagerRules({ arnOf: secretArnOf }), passThrough(secrets.endpoint))).endpoint,
      sqs: (await endpoint(sqsRules({ arnOf: queueArnOf }), passThrough(sqs.endpoint))).endpoint,
    };

    /** A signed JSON-protocol call the runner makes as a role (Lambda sending a failure to a destination queue). */
    const callAsRole = async (credentials: IssuedCredentials, service: 'sqs', target: string, body: Record<string, unknown>) => {
      const url = new URL(endpoints[service]);
      const payload = Buffer.from(JSON.stringify(body));
      const headers = await signRequest(
        { method: 'POST', target: '/', headers: { host: url.host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target }, body: payload },
        service,
        account.region,
        credentials,
      );
      const out = await fetch(url, { method: 'POST', headers, body: payload });
      if (!out.ok) throw new Error(`${target} answered ${out.status}: ${await out.text()}`);
    };

    // --- Functions ------------------------------------------------------------------------------
    const bootstrap = buildBootstrap(work);
    const functions = new Map<string, FunctionHost>();
    const functionsByArn = new Map<string, FunctionHost>();
    const credentialsOf = new Map<string, IssuedCredentials>();
    // The stack's outputs, resolved to the local resources.
    const outputs: Record<string, string> = {};
    for (const [name, output] of Object.entries(template.Outputs ?? {})) {
      try {
        outputs[name] = String(resolver.resolve(output.Value));
      } catch {
        // An output naming something that is not known locally (a deploy-time attribute) is left out.
      }
    }
    const demoOutputs: Partial<DemoOutputs> = {};
    for (const name of [...DEMO_OUTPUTS, 'LedgerOrigin'] as const) {
      if (outputs[name] !== undefined) demoOutputs[name] = outputs[name];
    }

    for (const [id, resource] of resourcesOfType(template, 'AWS::Lambda::Function')) {
      const props = resource.Properties ?? {};
      const runtime = String(props.Runtime ?? '');
      if (!runtime.startsWith('nodejs')) {
        notEmulated.push({ type: 'AWS::Lambda::Function', logicalId: id, reason: `${runtime || 'a container image'}: only Node.js functions run here` });
        continue;
      }
      const name = String(resolver.ref(id));
      const arn = resolver.getAtt(id, 'Arn');
      const roleArn = String(resolver.resolve(props.Role));
      const credentials = issuer.issue({ kind: 'role', roleArn, sessionName: name }, name);
      credentialsOf.set(id, credentials);
      const variables = (resolver.resolve(props.Environment?.Variables ?? {}) ?? {}) as Record<string, unknown>;
      const memoryMb = Number(props.MemorySize ?? 128);
      const logging = (props.LoggingConfig ?? {}) as Record<string, unknown>;
      const logGroup = logging.LogGroup ? String(resolver.resolve(logging.LogGroup)) : `/aws/lambda/${name}`;
      const codeDirectory = assetDirectory(assembly, String(props.Code?.S3Key ?? ''));
      const definition: FunctionDefinition = {
        logicalId: id,
        name,
        arn,
        handler: String(props.Handler ?? 'index.handler'),
        runtime,
        codeDirectory,
        memoryMb,
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
          // Lambda runs Node.js 22; this machine may run 20, of which the SDK warns on every start.
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
      };
      const host = new FunctionHost(definition, bootstrap, (line) => log(`${name}  ${line}`));
      functions.set(id, host);
      functionsByArn.set(arn, host);
      closers.push(() => host.close());
    }
    const hostOf = (nameOrArn: string) => functionsByArn.get(nameOrArn) ?? [...functions.values()].find((f) => f.definition.name === nameOrArn);

    // --- The demo's configuration, before any function starts ------------------------------
    let verifierKey: string | undefined;
    let demoOrigin: string | undefined;
    let ledgerKey: KmsStandIn | undefined;
    if (options.demo) {
      const missing = DEMO_OUTPUTS.filter((name) => demoOutputs[name] === undefined);
      if (missing.length > 0) throw new Error(`--demo needs the stack outputs ${missing.join(', ')}, which this template does not have`);
      ledgerKey = kmsKeys.get(demoOutputs.LedgerKeyArn!);
      if (!ledgerKey) throw new Error(`the ledger key ${demoOutputs.LedgerKeyArn} is not an Ed25519 signing key of this template`);
      const sequencerOrigin = [...functions.values()].map((f) => f.definition.environment.LEDGER_ORIGIN).find((o) => o !== undefined);
      // Known once the API listens (the origin is derived from its URL); set below.
      demoOrigin = demoOutputs.LedgerOrigin || sequencerOrigin || undefined;
    }

    // --- The API ------------------------------------------------------------------------------
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
    const apiGatewayRoles = new Map<string, IssuedCredentials>();
    const gateway: GatewayServer = await startGatewayServer(
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
      {
        async invokeFunction(functionArn, event) {
          const host = hostOf(functionArn);
          if (!host) return 'unknown-function';
          try {
            return await host.invoke(event);
          } catch (error) {
            if (error instanceof TooManyRequests) return 'throttled';
            throw error;
          }
        },
        mayInvoke: (functionArn, sourceArn) =>
          evaluator.decide({ kind: 'service', service: 'apigateway.amazonaws.com' }, { action: 'lambda:InvokeFunction', resource: functionArn, context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': account.account } }),
        async callS3(roleArn, method, objectPath, headers) {
          let credentials = apiGatewayRoles.get(roleArn);
          if (!credentials) {
            credentials = issuer.issue({ kind: 'role', roleArn, sessionName: 'APIGateway' }, 'API Gateway');
            apiGatewayRoles.set(roleArn, credentials);
          }
          const url = new URL(endpoints.s3);
          const signed = await signRequest({ method, target: objectPath, headers: { ...headers, host: url.host }, body: Buffer.alloc(0) }, 's3', account.region, credentials);
          const out = await exchange(url, method, objectPath, signed, Buffer.alloc(0));
          return { ...out, headers: out.headers as Record<string, string> };
        },
      },
      (line) => log(`API  ${line}`),
    );
    closers.push(() => gateway.close());
    const invokeOrigin = new URL(gateway.invokeUrl).origin;
    // The CloudFront distribution, if the template has one: its routing checked, then served (lib/assembly/edge/).
    const edge = await startEdge({ template, resolver, routes: new RestApiRoutes(body), stageName: String(stageProps.StageName), gatewayOrigin: invokeOrigin, s3Backend, s3Credentials: S3RVER_CREDENTIALS, evaluator, account, functions, outputs, notEmulated, log });
    if (edge) closers.push(() => edge.close());

    // --- The bucket deployments -------------------------------------------------------------
    const apiUrlPattern = new RegExp(`https://${String(resolver.ref(apiId))}\\.execute-api\\.${account.region.replace(/[-.]/g, '\\$&')}\\.${account.urlSuffix.replace(/\./g, '\\.')}`, 'g');
    for (const [id, resource] of resourcesOfType(template, 'Custom::CDKBucketDeployment')) {
      const props = resolver.resolve(resource.Properties ?? {}) as BucketDeploymentProps;
      // The API's own URL names the local stage here: a document that names the deployed API points at this one.
      await deployBucket(s3Admin, props, (key) => assetDirectory(assembly, key), (text) => (edge ? edge.localize(text.replace(apiUrlPattern, invokeOrigin)) : text.replace(apiUrlPattern, invokeOrigin))).catch((error: Error) => {
        throw new Error(`bucket deployment ${id}: ${error.message}`);
      });
    }

    // --- Demo: the operator's steps -----------------------------------------------------------
    if (options.demo) {
      const demo = demoOutputs as DemoOutputs;
      const origin = demoOrigin || `${new URL(gateway.invokeUrl).host}${new URL(gateway.invokeUrl).pathname}/ledger`;
      verifierKey = ledgerKey!.verifierKey(origin);
      for (const host of functions.values()) {
        const env = host.definition.environment;
        if ('LEDGER_VERIFIER_KEYS' in env) env.LEDGER_VERIFIER_KEYS = verifierKey;
        if ('LEDGER_ORIGIN' in env && !env.LEDGER_ORIGIN) env.LEDGER_ORIGIN = origin;
      }
      const loaderRole: Caller = { kind: 'role', roleArn: demo.LoaderRoleArn, sessionName: 'loader' };
      const loader = issuer.issue(loaderRole, 'loader');
      const loaded = await loadDemoAsLoaderRole(demo, origin, loader, { dynamodb: endpoints.dynamodb, s3: endpoints.s3, kms: endpoints.kms, region: account.region }, options.anchor ?? new Date());
      log(`demo: ${loaded.records} records loaded as the loader role, ledger tree size ${loaded.ledger?.treeSize ?? 0}, signed by ${origin}`);
      secrets.create(demo.IngressSecretsArn, developmentIngressKeys());
    }

    // --- Triggers -------------------------------------------------------------------------------
    const mappings: StreamEventSourceMapping[] = [];
    for (const [id, resource] of resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')) {
      const props = resolver.resolve(resource.Properties ?? {}) as Record<string, any>;
      const host = hostOf(String(props.FunctionName));
      const table = [...streamed.values()].find((t) => t.streamArn === props.EventSourceArn);
      if (!host || !table || props.Enabled === false) {
        notEmulated.push({ type: 'AWS::Lambda::EventSourceMapping', logicalId: id, reason: table ? 'disabled, or its function does not run here' : `its source ${props.EventSourceArn}: only the template's DynamoDB streams are emulated` });
        continue;
      }
      const credentials = credentialsOf.get(host.definition.logicalId)!;
      const destination = props.DestinationConfig?.OnFailure?.Destination as string | undefined;
      const destinationQueue = queueIdByArn(destination);
      const mapping = new StreamEventSourceMapping(
        {
          logicalId: id,
          streamArn: table.streamArn,
          batchSize: Number(props.BatchSize ?? 100),
          windowMs: Number(props.MaximumBatchingWindowInSeconds ?? 0) * 1000,
          filters: ((props.FilterCriteria?.Filters ?? []) as Array<{ Pattern: string }>).map((f) => f.Pattern),
          bisect: props.BisectBatchOnFunctionError === true,
          maxRetries: props.MaximumRetryAttempts === undefined || Number(props.MaximumRetryAttempts) < 0 ? 10_000 : Number(props.MaximumRetryAttempts),
          maxRecordAgeSeconds: props.MaximumRecordAgeInSeconds === undefined ? undefined : Number(props.MaximumRecordAgeInSeconds),
          mayReadStream: () => evaluator.decide(credentials.caller, { action: 'dynamodb:GetRecords', resource: table.streamArn }),
          onFailure: destinationQueue
            ? (description) => callAsRole(credentials, 'sqs', 'AmazonSQS.SendMessage', { QueueUrl: resolver.ref(destinationQueue), MessageBody: JSON.stringify(description) })
            : undefined,
        },
        host,
        (line) => log(`Lambda  ${line}`),
      );
      streams.subscribe(table.streamArn, (records) => mapping.push(records));
      mappings.push(mapping);
      closers.push(() => mapping.stop());
    }

    const asyncInvokers = new Map<string, AsyncInvoker>();
    const asyncInvokerOf = (host: FunctionHost): AsyncInvoker => {
      let invoker = asyncInvokers.get(host.definition.logicalId);
      if (invoker) return invoker;
      const config = resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig').find(([, c]) => (c.Properties?.FunctionName as { Ref?: string })?.Ref === host.definition.logicalId)?.[1]?.Properties ?? {};
      const fnProps = template.Resources[host.definition.logicalId].Properties ?? {};
      const deadLetterArn = fnProps.DeadLetterConfig?.TargetArn ? String(resolver.resolve(fnProps.DeadLetterConfig.TargetArn)) : undefined;
      const deadLetterQueue = queueIdByArn(deadLetterArn);
      const credentials = credentialsOf.get(host.definition.logicalId)!;
      invoker = new AsyncInvoker(
        host,
        {
          maxRetries: Number(config.MaximumRetryAttempts ?? 2),
          maxEventAgeSeconds: Number(config.MaximumEventAgeInSeconds ?? 21_600),
          onFailure: deadLetterQueue
            ? (event, outcome) =>
                callAsRole(credentials, 'sqs', 'AmazonSQS.SendMessage', {
                  QueueUrl: resolver.ref(deadLetterQueue),
                  MessageBody: JSON.stringify(event),
                  MessageAttributes: {
                    RequestID: { DataType: 'String', StringValue: outcome.requestId },
                    ErrorCode: { DataType: 'Number', StringValue: '200' },
                    ErrorMessage: { DataType: 'String', StringValue: outcome.errorMessage.slice(0, 1000) },
                  },
                })
            : undefined,
        },
        (line) => log(`Lambda  ${host.definition.name}  ${line}`),
      );
      asyncInvokers.set(host.definition.logicalId, invoker);
      return invoker;
    };

    const schedules: Array<() => Promise<void>> = [];
    for (const [id, resource] of resourcesOfType(template, 'AWS::Events::Rule')) {
      const props = resolver.resolve(resource.Properties ?? {}) as Record<string, any>;
      const every = typeof props.ScheduleExpression === 'string' ? rateMs(props.ScheduleExpression) : null;
      if (props.State === 'DISABLED') continue;
      if (every === null) {
        notEmulated.push({ type: 'AWS::Events::Rule', logicalId: id, reason: `${props.ScheduleExpression ?? 'an event pattern'}: only rate() schedules run here` });
        continue;
      }
      const ruleArn = resolver.getAtt(id, 'Arn');
      const fire = async () => {
        for (const target of (props.Targets ?? []) as Array<{ Arn: string; Input?: string }>) {
          const host = hostOf(target.Arn);
          if (!host) continue;
          const permission = await evaluator.decide({ kind: 'service', service: 'events.amazonaws.com' }, { action: 'lambda:InvokeFunction', resource: host.definition.arn, context: { 'aws:SourceArn': ruleArn, 'aws:SourceAccount': account.account } });
          if (!permission.allowed) {
            log(`EventBridge  rule ${id} may not invoke ${host.definition.name}: ${permission.message}`);
            continue;
          }
          asyncInvokerOf(host).invoke(target.Input ? JSON.parse(target.Input) : scheduledEvent(ruleArn, account.account, account.region));
        }
      };
      schedules.push(fire);
      if (options.scheduleTimers !== false) {
        const timer = setInterval(() => void fire(), every);
        timer.unref();
        closers.push(() => clearInterval(timer));
      }
    }

    const settled = async () => {
      for (;;) {
        await Promise.all([...asyncInvokers.values()].map((a) => a.settled()));
        if (mappings.every((m) => m.idle) && [...asyncInvokers.values()].every((a) => a.idle)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    const runner: AssemblyRunner = {
      invokeUrl: gateway.invokeUrl,
      ...(edge ? { edgeUrl: edge.url } : {}),
      outputs,
      stackName: assembly.stackName,
      notEmulated,
      functions,
      denials,
      verifierKey,
      backends: { dynamodb: store.endpoint, s3: s3Backend },
      endpoints,
      queueMessages: (logicalId) => sqs.messages(String(resolver.ref(logicalId))),
      async fireSchedules() {
        for (const fire of schedules) await fire();
        await settled();
      },
      settled,
      deployPolicies(dir) {
        const next: CloudAssembly = readCloudAssembly(dir, assembly.stackName);
        const before = Object.entries(template.Resources).map(([id, r]) => `${id} ${r.Type}`).sort();
        const after = Object.entries(next.template.Resources).map(([id, r]) => `${id} ${r.Type}`).sort();
        if (JSON.stringify(before) !== JSON.stringify(after)) throw new Error('deployPolicies takes a synthesis of the same resources (only their policies may differ)');
        evaluator.replaceModel(policyModel(next.template, new IntrinsicResolver(next.template, account, physical)));
        log(`IAM  policies of ${dir} applied`);
      },
      close,
    };
    return runner;
  } catch (error) {
    await close();
    throw error;
  }
}
