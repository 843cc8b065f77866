import { lambdaLogEnvironment, lambdaLogging, ROUTE_LOG_GROUP } from '../../lib/stack/logging';

/**
 * Lambda's own log settings (lib/stack/logging.ts): JSON so its lines can be filtered, its own
 * platform lines only when a deployment debugs, the function's lines never filtered; the routes'
 * log groups in the Infrequent Access class.
 */
test('at INFO (and WARN, ERROR) Lambda writes none of its own lines; at DEBUG it writes platform.start and platform.report again', () => {
  for (const logLevel of ['INFO', 'WARN', 'ERROR'] as const) {
    expect(lambdaLogging({ logLevel, logSampleRate: 0 })).toEqual({ loggingFormat: 'JSON', applicationLogLevelV2: 'DEBUG', systemLogLevelV2: 'WARN' });
  }
  expect(lambdaLogging({ logLevel: 'DEBUG', logSampleRate: 0 }).systemLogLevelV2).toBe('INFO');
});

test('the environment Lambda adds for them is the one the Powertools Logger would read its level from', () => {
  expect(lambdaLogEnvironment({ logLevel: 'INFO', logSampleRate: 0.01 })).toEqual({ AWS_LAMBDA_LOG_FORMAT: 'JSON', AWS_LAMBDA_LOG_LEVEL: 'DEBUG' });
});

test('a route\'s log group is of the Infrequent Access class', () => {
  expect(ROUTE_LOG_GROUP.logGroupClass).toBe('INFREQUENT_ACCESS');
});
