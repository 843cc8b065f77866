import { RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, LoggingFormat, SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, LogGroupClass, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { SERVICE_NAME } from '../../functions/contract/service';
import { nodeOptionsFor } from './bundling';

/** How every function logs (CDK context `logLevel` and `logSampleRate`, docs/deploy.md#logs). */
export interface LogSettings {
  /** The Powertools Logger's level. */
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** The share of invocations (0 to 1) that log at DEBUG whatever the level (Powertools sampling). */
  logSampleRate: number;
}

/** The Powertools environment of a function: the logger reads its level and sampling rate here. */
export function loggingEnvironment({ logLevel, logSampleRate }: LogSettings): Record<string, string> {
  const nodeOptions = nodeOptionsFor(logLevel);
  return {
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    POWERTOOLS_LOG_LEVEL: logLevel,
    ...(logSampleRate > 0 ? { POWERTOOLS_LOGGER_SAMPLE_RATE: String(logSampleRate) } : {}),
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
  };
}

/**
 * Lambda's own log settings for every function (its advanced logging controls,
 * https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-log-level.html):
 *   - JSON format: the only format in which Lambda's own lines can be filtered. The Powertools
 *     Logger's lines are JSON already, and pass as they are written.
 *   - System log level WARN: Lambda writes no platform.start and platform.report lines (START,
 *     END and REPORT in plain text: about 340 billed bytes an invocation). Duration, errors and
 *     throttles remain CloudWatch metrics of the function; what only REPORT told (the memory
 *     used, the init duration) comes back at INFO, which a DEBUG deployment sets.
 *   - Application log level DEBUG: Lambda passes whatever the function writes. Which lines those
 *     are is the Powertools Logger's decision (its level, sampling and buffering:
 *     functions/logging/logger.ts), not Lambda's: a filter at INFO would drop a sampled
 *     invocation's debug lines and the debug lines written before a 5xx.
 */
export function lambdaLogging({ logLevel }: LogSettings) {
  return {
    loggingFormat: LoggingFormat.JSON,
    applicationLogLevelV2: ApplicationLogLevel.DEBUG,
    systemLogLevelV2: logLevel === 'DEBUG' ? SystemLogLevel.INFO : SystemLogLevel.WARN,
  } as const;
}

/**
 * What Lambda itself adds to a function's environment for these settings (AWS_LAMBDA_LOG_FORMAT,
 * AWS_LAMBDA_LOG_LEVEL), for the bench and the tests that run the bundles as Lambda does.
 */
export function lambdaLogEnvironment(settings: LogSettings): Record<string, string> {
  const logging = lambdaLogging(settings);
  return { AWS_LAMBDA_LOG_FORMAT: logging.loggingFormat, AWS_LAMBDA_LOG_LEVEL: logging.applicationLogLevelV2 };
}

/**
 * The log group of a route's function: the Infrequent Access class, half the Standard class's
 * price per GB ingested (https://aws.amazon.com/cloudwatch/pricing/). What it gives up
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CloudWatch_Logs_Log_Classes.html): metric
 * filters, embedded-metric-format extraction, Live Tail and a few Logs Insights commands (pattern,
 * diff); the routes publish no metric through their logs and no alarm reads them. The sequencer's
 * log group stays Standard: its embedded-metric-format line is the metric the stuck-sequencer alarm
 * reads (lib/stack/sequencer.ts).
 */
export const ROUTE_LOG_GROUP = { logGroupClass: LogGroupClass.INFREQUENT_ACCESS } as const;

/**
 * A function's own log group (`Logs`) and role (`Role`) in `scope`: an own role instead of the
 * managed AWSLambdaBasicExecutionRole, which may write only its own log group; the caller adds what
 * else the function may do.
 */
export function ownLogGroupAndRole(scope: Construct, props: { description: string; logRetention: RetentionDays; logGroupClass?: LogGroupClass }): { logGroup: LogGroup; role: Role } {
  const logGroup = new LogGroup(scope, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY, ...(props.logGroupClass ? { logGroupClass: props.logGroupClass } : {}) });
  const role = new Role(scope, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com'), description: props.description });
  role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
  return { logGroup, role };
}
