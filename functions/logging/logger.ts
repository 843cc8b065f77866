import { Logger, LogFormatter, LogItem } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { SERVICE_NAME } from '../contract/service';

/**
 * Keys whose values no log line carries, wherever they sit in it (the Powertools Logger applies
 * the replacer to every line, buffered ones included): request bodies and the headers that carry
 * signatures or credentials, as they appear in an API Gateway event an operator chose to log
 * (POWERTOOLS_LOGGER_LOG_EVENT), and anything named as a secret.
 */
const REDACTED_KEY = /^(?:body|webhook-signature|authorization|proxy-authorization|cookie|set-cookie|x-api-key)$|secret|password/i;

function redacted(key: string, value: unknown): unknown {
  return REDACTED_KEY.test(key) && value !== null && value !== undefined && value !== '' ? '[REDACTED]' : value;
}

/**
 * Powertools' keys without those every line of a function's log group would repeat: the service,
 * the function's name, ARN and memory size (the log group names the function; CloudWatch Logs
 * Insights gives it as @log), and the sampling rate (the deployment's setting). What is left tells
 * one invocation from another: its request id, whether it started cold, its X-Ray trace; then the
 * keys a request adds (correlation_id, endpoint) and the line's own. CloudWatch Logs bills each
 * byte ingested (docs/deploy.md#logs).
 */
export class LeanLogFormatter extends LogFormatter {
  formatAttributes(attributes: UnformattedAttributes, additionalLogAttributes: LogAttributes): LogItem {
    return new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        cold_start: attributes.lambdaContext?.coldStart,
        function_request_id: attributes.lambdaContext?.awsRequestId,
        xray_trace_id: attributes.xRayTraceId,
      },
    }).addAttributes(additionalLogAttributes);
  }
}

/**
 * The Powertools Logger adopts the level of Lambda's application log filter (AWS_LAMBDA_LOG_LEVEL,
 * set when a function logs in JSON) over its own, and then cannot log below it
 * (https://docs.powertools.aws.dev/lambda/typescript/latest/core/logger/#aws-lambda-advanced-logging-controls-alc).
 * The stack sets that filter to DEBUG only so that Lambda passes everything the logger writes
 * (lib/stack/logging.ts): what is written is decided here, by the deployment's own level,
 * sampling and buffering. So the logger is made without seeing Lambda's level.
 */
function withoutLambdaLogLevel<T>(make: () => T): T {
  const lambdaLevel = process.env.AWS_LAMBDA_LOG_LEVEL;
  delete process.env.AWS_LAMBDA_LOG_LEVEL;
  try {
    return make();
  } finally {
    if (lambdaLevel !== undefined) process.env.AWS_LAMBDA_LOG_LEVEL = lambdaLevel;
  }
}

/**
 * The one Powertools Logger of a function. Everything about it is Powertools' own and set from the
 * environment the stack gives each function (docs/deploy.md): POWERTOOLS_LOG_LEVEL,
 * POWERTOOLS_LOGGER_SAMPLE_RATE (that share of invocations logs at DEBUG),
 * POWERTOOLS_LOGGER_LOG_EVENT, POWERTOOLS_DEV. The handlers attach it with
 * `injectLambdaContext(logger, { resetKeys: true })` (functions/http/boundary.ts,
 * functions/handlers/sequence-events.ts), so every line carries the invocation's request id and
 * cold_start.
 *
 * Debug lines are buffered per invocation (Powertools log buffering, keyed by the invocation's
 * X-Ray trace id) and written only when the request ends in a 5xx, when an error is logged, or
 * when the invocation logs at DEBUG anyway (the level, or a sampled invocation): an operator sees
 * what led to a failure, and the whole story of a sample of requests, without paying for debug
 * lines on every request (functions/http/request-log.ts).
 */
export const logger = withoutLambdaLogLevel(
  () =>
    new Logger({
      serviceName: SERVICE_NAME,
      logFormatter: new LeanLogFormatter(),
      logBufferOptions: { enabled: true, bufferAtVerbosity: 'DEBUG', flushOnErrorLog: true },
      jsonReplacerFn: redacted,
    }),
);

/** True when this invocation writes DEBUG lines: the level says so, or sampling chose it. */
export function invocationLogsDebug(): boolean {
  const level = logger.getLevelName();
  return level === 'DEBUG' || level === 'TRACE';
}
