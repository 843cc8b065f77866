import { Logger } from '@aws-lambda-powertools/logger';
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
 * The one Powertools Logger of a function. Everything about it is Powertools' own and set from the
 * environment the stack gives each function (docs/deploy.md): POWERTOOLS_LOG_LEVEL (or Lambda's
 * AWS_LAMBDA_LOG_LEVEL), POWERTOOLS_LOGGER_SAMPLE_RATE (that share of invocations logs at DEBUG),
 * POWERTOOLS_LOGGER_LOG_EVENT, POWERTOOLS_DEV. The handlers attach it with
 * `injectLambdaContext(logger, { resetKeys: true })` (functions/http/boundary.ts,
 * functions/handlers/sequence-events.ts), so every line carries the Lambda context and cold_start.
 *
 * Debug lines are buffered per invocation (Powertools log buffering, keyed by the invocation's
 * X-Ray trace id) and written only when the request ends in a 5xx, when an error is logged, or
 * when the invocation logs at DEBUG anyway (the level, or a sampled invocation): an operator sees
 * what led to a failure without paying for debug lines on every request
 * (functions/http/request-log.ts).
 */
export const logger = new Logger({
  serviceName: SERVICE_NAME,
  logBufferOptions: { enabled: true, bufferAtVerbosity: 'DEBUG', flushOnErrorLog: true },
  jsonReplacerFn: redacted,
});

/** True when this invocation writes DEBUG lines: the level says so, or sampling chose it. */
export function invocationLogsDebug(): boolean {
  const level = logger.getLevelName();
  return level === 'DEBUG' || level === 'TRACE';
}
