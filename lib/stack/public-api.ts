import { Aws, RemovalPolicy, Size, Stack } from 'aws-cdk-lib';
import { AccessLogFormat, ApiDefinition, EndpointType, LogGroupLogDestination, MethodLoggingLevel, SpecRestApi, type MethodDeploymentOptions } from 'aws-cdk-lib/aws-apigateway';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { Operation } from '../../functions/contract/operation';
import { buildImportDocument, gatewayPath, type IntegrationTargets } from '../contract/import-document';
import { lambdaOperations } from './operation-functions';
import { routeClassOf } from './route-classes';
import type { StackSettings } from './settings';

export interface PublicApiProps {
  operations: readonly Operation[];
  functions: ReadonlyMap<string, IFunction>;
  /**
   * Each Lambda operation's function name, as a literal. The import document names the functions
   * by name, never by a reference to them: the functions learn the public origin from the
   * distribution, whose origin is this API, so a reference from the API back to them would close
   * a loop CloudFormation cannot create (function -> distribution -> API -> function).
   */
  functionNames: ReadonlyMap<string, string>;
  bucket: IBucket;
  documentReadRole: IRole;
  stageName: string;
  throttleRateLimit: number;
  throttleBurstLimit: number;
  routeThrottles: StackSettings['routeThrottles'];
  logRetention: RetentionDays;
  cloudWatchRole: boolean;
  /** Whether the stage writes its access log (settings.apiAccessLog). */
  accessLog: boolean;
}

/**
 * One JSON object per request. $context.requestId is the correlation id API Gateway hands the
 * function (used unless the caller sent its own x-correlation-id). Values that may be '-' are quoted.
 */
export const ACCESS_LOG_FIELDS: Record<string, string> = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  errorType: '$context.error.responseType',
  errorMessage: '$context.error.message',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
};

export function accessLogFormat(): string {
  const numeric = new Set(['status']);
  const parts = Object.entries(ACCESS_LOG_FIELDS).map(([key, value]) => `"${key}":${numeric.has(key) ? value : `"${value}"`}`);
  return `{${parts.join(',')}}`;
}

/**
 * Execution logs for errors only, no request or response bodies, no per-method metrics: the
 * stage's settings, repeated on every method setting (a method's own setting replaces the stage's,
 * it does not add to it).
 */
const STAGE_METHOD_LOGGING = { loggingLevel: MethodLoggingLevel.ERROR, dataTraceEnabled: false, metricsEnabled: false } as const;

/**
 * Method throttles by route class, keyed as CDK's methodOptions take them (`<resource path>/<method>`):
 * every method of a classed route (HEAD beside each GET) gets its class's rate and burst, in a
 * token bucket of its own. What no class covers (preflights, undeclared methods) keeps the stage's.
 */
export function methodThrottles(operations: readonly Operation[], throttles: StackSettings['routeThrottles']): Record<string, MethodDeploymentOptions> {
  const out: Record<string, MethodDeploymentOptions> = {};
  for (const op of operations) {
    const { rateLimit, burstLimit } = throttles[routeClassOf(op).throttle];
    for (const method of op.method === 'GET' ? ['GET', 'HEAD'] : [op.method]) {
      out[`${gatewayPath(op)}/${method}`] = { ...STAGE_METHOD_LOGGING, throttlingRateLimit: rateLimit, throttlingBurstLimit: burstLimit };
    }
  }
  return out;
}

/** execute-api resource path of an operation: path parameters become wildcards. */
function executeApiPath(path: string): string {
  return path.replace(/\{[^}]+\}/g, '*');
}

/**
 * The REST API, imported from the contract table's API Gateway document: every route, parameter
 * and integration comes from the table; this construct only supplies the ARNs the document needs.
 */
export class PublicApi extends Construct {
  readonly api: SpecRestApi;
  /** The stage's access log group; undefined when the stage writes none (behind the edge by default). */
  readonly accessLogs: LogGroup | undefined;
  readonly executionLogs: LogGroup;
  readonly definition: Record<string, unknown>;
  /** https://{api}.execute-api.{region}.{suffix}/{stage}: the base URL of the deployed API (a deploy-time value). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: PublicApiProps) {
    super(scope, id);
    const targets: IntegrationTargets = {
      lambdaUri: (op) => {
        const name = props.functionNames.get(op.operationId);
        if (!name) throw new Error(`no function for the Lambda operation ${op.operationId}`);
        const functionArn = `arn:${Aws.PARTITION}:lambda:${Aws.REGION}:${Aws.ACCOUNT_ID}:function:${name}`;
        return `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}:lambda:path/2015-03-31/functions/${functionArn}/invocations`;
      },
      documentUri: (key) => `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}:s3:path/${props.bucket.bucketName}/${key}`,
      documentRole: props.documentReadRole.roleArn,
    };
    this.definition = buildImportDocument(targets);

    const accessLogs = props.accessLog ? new LogGroup(this, 'AccessLogs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY }) : undefined;
    this.accessLogs = accessLogs;
    this.api = new SpecRestApi(this, 'Api', {
      apiDefinition: ApiDefinition.fromInline(this.definition),
      // API Gateway's metrics are keyed by the API's name (and stage), so the alarms need one no other API of the account has.
      restApiName: Stack.of(this).stackName,
      endpointTypes: [EndpointType.REGIONAL],
      // Catalogues and the contract run to hundreds of KiB; small answers are not worth compressing.
      minCompressionSize: Size.kibibytes(1),
      // Access and execution logs need the account's API Gateway CloudWatch role (one per account and
      // region). A fresh account has none, and the stage would fail to deploy without it, so the stack
      // sets it by default; where the account already manages it, context apiGatewayCloudWatchRole=false
      // leaves it alone. The setting outlives this stack: other APIs of the account log through it.
      cloudWatchRole: props.cloudWatchRole,
      ...(props.cloudWatchRole ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN } : {}),
      deployOptions: {
        stageName: props.stageName,
        throttlingRateLimit: props.throttleRateLimit,
        throttlingBurstLimit: props.throttleBurstLimit,
        methodOptions: methodThrottles(props.operations, props.routeThrottles),
        ...(accessLogs ? { accessLogDestination: new LogGroupLogDestination(accessLogs), accessLogFormat: AccessLogFormat.custom(accessLogFormat()) } : {}),
        // Execution logs for errors only; request and response bodies are never logged. Per-method
        // detailed metrics are billed per metric (dozens of routes); the API-level metrics are enough.
        ...STAGE_METHOD_LOGGING,
      },
    });

    // API Gateway would create the execution log group itself, kept forever; create it first, with retention.
    const executionLogs = (this.executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stageName}`,
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    }));
    this.api.deploymentStage.node.addDependency(executionLogs);

    // The stage's own URL, without the trailing slash `api.url` has (an origin names no slash).
    this.url = `https://${this.api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${props.stageName}`;

    for (const op of lambdaOperations(props.operations)) {
      // A GET route is also served for HEAD by the same function (the import document declares both).
      for (const method of op.method === 'GET' ? ['GET', 'HEAD'] : [op.method]) {
        props.functions.get(op.operationId)!.addPermission(`InvokeBy${this.node.id}${method === op.method ? '' : method}`, {
          principal: new ServicePrincipal('apigateway.amazonaws.com'),
          action: 'lambda:InvokeFunction',
          sourceArn: this.api.arnForExecuteApi(method, executeApiPath(op.path), props.stageName),
        });
      }
    }
  }
}
