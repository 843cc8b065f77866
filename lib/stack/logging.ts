import { LoggingFormat } from 'aws-cdk-lib/aws-lambda';
import { SERVICE_NAME } from '../../functions/contract/service';
import { nodeOptionsFor } from './bundling';

/** How every function logs (CDK context `logLevel` and `logSampleRate`, docs/deploy.md). */
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
 * Lambda's own log settings for every function: plain text, no application log level. The lines
 * are the Powertools Logger's JSON whatever Lambda's format (CloudWatch Logs Insights reads their
 * fields either way), and the level is the Powertools Logger's alone: Lambda's advanced logging
 * controls would discard what a sampled invocation or a 5xx's buffered debug lines write below
 * their level, and the Powertools Logger takes their level over its own (so setting them to DEBUG
 * would log every debug line of every request).
 */
export const FUNCTION_LOG_FORMAT = { loggingFormat: LoggingFormat.TEXT } as const;

/**
 * What Lambda itself adds to a function's environment for its log settings (AWS_LAMBDA_LOG_FORMAT
 * and AWS_LAMBDA_LOG_LEVEL come only with the JSON format), for the bench and tests that run the
 * bundles as Lambda does.
 */
export function lambdaLogEnvironment(_settings: LogSettings): Record<string, string> {
  return {};
}
