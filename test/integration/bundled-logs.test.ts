import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { bundle } from '../../bench/lib/bundle';
import { getEvent } from '../../bench/lib/events';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { SERVICE_NAME } from '../../functions/contract/service';
import { buildEvent, devSecrets, signedHeaders } from '../../lib/ingress/emit';
import { DEV_INGRESS_SECRETS_FILE, startLocalService, type LocalService } from '../../lib/local/service';
import { lambdaLogEnvironment, loggingEnvironment } from '../../lib/stack/logging';
import { DEFAULT_SETTINGS } from '../../lib/stack/settings';
import { ROOT } from '../support/bundle';
import { unusedPort } from '../support/local';

/**
 * What the deployed functions log, read from the bundles the stack deploys, each run in a fresh
 * Node.js process as Lambda runs it: invocations one after another in the same process (the first
 * cold, the next warm), the invocation's X-Ray trace id in _X_AMZN_TRACE_ID as the Lambda runtime
 * sets it, a Lambda context, and the process's stdout and stderr in one file in the order written.
 * Every line is the Powertools Logger's own (docs/deploy.md#logs).
 */
const RUNNER = `
const mod = require(process.argv[2]);
const invocations = JSON.parse(require('node:fs').readFileSync(process.argv[3], 'utf8'));
(async () => {
  const answers = [];
  for (const [i, { event, traceId }] of invocations.entries()) {
    if (traceId) process.env._X_AMZN_TRACE_ID = 'Root=' + traceId + ';Parent=53995c3f42cd8ad8;Sampled=0';
    else delete process.env._X_AMZN_TRACE_ID;
    const context = {
      functionName: 'resolve-object-fn', functionVersion: '$LATEST', memoryLimitInMB: '512', awsRequestId: 'request-' + i,
      invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:resolve-object-fn', getRemainingTimeInMillis: () => 6000,
    };
    answers.push(await mod.handler(event, context));
  }
  require('node:fs').writeFileSync(process.argv[4], JSON.stringify(answers));
})();
`;

interface Invocation {
  event: APIGatewayProxyEvent;
  traceId?: string;
}

let service: LocalService;
let dir: string;
const bundles: Record<string, string> = {};
let run = 0;

/**
 * Runs `invocations` through a bundle in one fresh process; the answers and every log line, in
 * order. Asynchronously: the embedded store answers from this process.
 */
async function invoke(bundleFile: string, env: Record<string, string>, invocations: Invocation[]) {
  const n = ++run;
  const input = path.join(dir, `invocations-${n}.json`);
  const answersFile = path.join(dir, `answers-${n}.json`);
  const output = path.join(dir, `output-${n}.log`);
  writeFileSync(input, JSON.stringify(invocations));
  const fd = openSync(output, 'w');
  try {
    const child = spawn(process.execPath, [path.join(dir, 'runner.js'), bundleFile, input, answersFile], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        AWS_REGION: 'eu-central-1',
        AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'example-secret-access-key',
        AWS_SESSION_TOKEN: 'example-session-token',
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        ...env,
      },
      stdio: ['ignore', fd, fd],
      timeout: 60_000,
    });
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (status !== 0) throw new Error(`the function's process ended with ${status}: ${readFileSync(output, 'utf8')}`);
  } finally {
    closeSync(fd);
  }
  const text = readFileSync(output, 'utf8');
  const lines = text.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  return { answers: JSON.parse(readFileSync(answersFile, 'utf8')) as APIGatewayProxyResult[], lines, text };
}

const objectRead = (reference: string, correlationId: string, traceId?: string): Invocation => ({
  event: getEvent('/v1/objects/{reference}', `/v1/objects/${reference}`, { reference }, null, { 'x-correlation-id': correlationId }),
  ...(traceId ? { traceId } : {}),
});

const storeEnv = () => ({ DYNAMODB_ENDPOINT: service.storeEndpoint, TABLE_NAME: process.env.TABLE_NAME ?? 'records', LEDGER_VERIFIER_KEYS: '' });

beforeAll(async () => {
  service = await startLocalService({ port: 0, sequencer: false });
  dir = mkdtempSync(path.join(os.tmpdir(), 'bundled-logs-'));
  writeFileSync(path.join(dir, 'runner.js'), RUNNER);
  bundles.resolveObject = (await bundle('functions/handlers/resolve-object.ts', path.join(dir, 'resolve-object'), ROOT)).file;
  bundles.receiveLifecycleEvent = (await bundle('functions/handlers/receive-lifecycle-event.ts', path.join(dir, 'receive-lifecycle-event'), ROOT)).file;
}, 120_000);

afterAll(async () => {
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

const TRACE_1 = '1-6743b1a0-5f1e2d3c4b5a69788796a5b4';
const TRACE_2 = '1-6743b1a1-0a1b2c3d4e5f60718293a4b5';

/** Powertools' keys that stay on every line: what tells one invocation from another (functions/logging/logger.ts). */
const BASE_KEYS = ['level', 'message', 'timestamp', 'cold_start', 'function_request_id', 'xray_trace_id'];

test('a refusal writes one line with its status and problem code; an answer writes none; every line carries the invocation, cold_start (true once), the correlation id and the trace id, and no key every line of the log group would repeat', async () => {
  const TRACE_3 = '1-6743b1a2-1b2c3d4e5f60718293a4b5c6';
  const { answers, lines } = await invoke(bundles.resolveObject, { ...storeEnv(), POWERTOOLS_LOG_LEVEL: 'INFO' }, [
    objectRead('ORD-0000-NONE', 'corr-first-request-0001', TRACE_1),
    objectRead(DEMO_OBJECTS.current, 'corr-served-request-002', TRACE_2),
    objectRead('AB', 'corr-third-request-0003', TRACE_3),
  ]);
  expect(answers.map((a) => a.statusCode)).toEqual([404, 200, 400]);
  expect(lines).toEqual([
    expect.objectContaining({ level: 'INFO', message: 'request refused', status: 404, problem: 'NOT_FOUND', cold_start: true, function_request_id: 'request-0', correlation_id: 'corr-first-request-0001', endpoint: '/v1/objects/{reference}', xray_trace_id: TRACE_1 }),
    expect.objectContaining({ level: 'INFO', message: 'request refused', status: 400, problem: 'INVALID_REFERENCE', cold_start: false, function_request_id: 'request-2', correlation_id: 'corr-third-request-0003', xray_trace_id: TRACE_3 }),
  ]);
  // The function's name, ARN and memory, the service and the sampling rate are the log group's, not the line's.
  for (const line of lines) expect(Object.keys(line).sort()).toEqual([...BASE_KEYS, 'correlation_id', 'endpoint', 'status', 'problem'].sort());
  // The answers name the same correlation ids the lines carry.
  expect(answers.map((a) => a.headers!['x-correlation-id'])).toEqual(['corr-first-request-0001', 'corr-served-request-002', 'corr-third-request-0003']);
});

test('debug lines are buffered: nothing of them for a 200 or a 4xx, all of them, in order, before the warning of a 5xx', async () => {
  const down = { ...storeEnv(), DYNAMODB_ENDPOINT: `http://127.0.0.1:${await unusedPort()}`, POWERTOOLS_LOG_LEVEL: 'INFO', STORE_MAX_ATTEMPTS: '1' };
  const { answers, lines } = await invoke(bundles.resolveObject, down, [objectRead('AB', 'corr-refused-0000001', TRACE_1), objectRead(DEMO_OBJECTS.current, 'corr-failed-00000001', TRACE_2)]);
  expect(answers.map((a) => a.statusCode)).toEqual([400, 503]);
  expect(lines.map((line) => [line.level, line.message, line.correlation_id])).toEqual([
    ['INFO', 'request refused', 'corr-refused-0000001'],
    ['DEBUG', 'request received', 'corr-failed-00000001'],
    ['WARN', 'dependency problem', 'corr-failed-00000001'],
    ['INFO', 'request refused', 'corr-failed-00000001'],
  ]);
  expect(lines[1]).toMatchObject({ method: 'GET', path: `/v1/objects/${DEMO_OBJECTS.current}`, xray_trace_id: TRACE_2, cold_start: false });
  expect(lines[3]).toMatchObject({ status: 503, problem: 'DEPENDENCY_UNAVAILABLE' });

  // The same 200 in a process whose store answers: no line at all (API Gateway's access log has the request).
  const up = await invoke(bundles.resolveObject, { ...storeEnv(), POWERTOOLS_LOG_LEVEL: 'INFO' }, [objectRead(DEMO_OBJECTS.current, 'corr-served-00000001', TRACE_1)]);
  expect(up.answers.map((a) => a.statusCode)).toEqual([200]);
  expect(up.lines).toEqual([]);
});

const debugOf = (lines: Record<string, unknown>[]) => lines.filter((line) => line.level === 'DEBUG').map((line) => `${line.message} ${line.correlation_id ?? '-'}`);
const sampledReads = () => [objectRead(DEMO_OBJECTS.current, 'corr-sampled-0000001', TRACE_1), objectRead(DEMO_OBJECTS.current, 'corr-sampled-0000002', TRACE_2)];
/** What a sampled invocation of the read writes: Powertools' note (before the request's correlation id is known), then its story. */
const SAMPLED_STORY = [
  'Setting log level to DEBUG due to sampling rate -',
  'request received corr-sampled-0000001',
  'store read corr-sampled-0000001',
  'request served corr-sampled-0000001',
  'Setting log level to DEBUG due to sampling rate -',
  'request received corr-sampled-0000002',
  'store read corr-sampled-0000002',
  'request served corr-sampled-0000002',
];

test('sampling: at rate 1 every invocation logs its whole story, the answer included; at rate 0 none does', async () => {
  const sampled = await invoke(bundles.resolveObject, { ...storeEnv(), POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_LOGGER_SAMPLE_RATE: '1' }, sampledReads());
  expect(debugOf(sampled.lines)).toEqual(SAMPLED_STORY);
  expect(sampled.lines.find((line) => line.message === 'request served')).toMatchObject({ status: 200, endpoint: '/v1/objects/{reference}' });
  const unsampled = await invoke(bundles.resolveObject, { ...storeEnv(), POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_LOGGER_SAMPLE_RATE: '0' }, sampledReads());
  expect(unsampled.lines).toEqual([]);
  expect(unsampled.answers.map((a) => a.statusCode)).toEqual([200, 200]);
});

test('under Lambda\'s log settings as the stack deploys them (JSON, application level DEBUG), the logger keeps the deployment\'s level and sampling', async () => {
  const settings = { logLevel: DEFAULT_SETTINGS.logLevel, logSampleRate: 0 };
  const asDeployed = { ...storeEnv(), ...loggingEnvironment(settings), ...lambdaLogEnvironment(settings) };
  expect(asDeployed).toMatchObject({ AWS_LAMBDA_LOG_FORMAT: 'JSON', AWS_LAMBDA_LOG_LEVEL: 'DEBUG', POWERTOOLS_LOG_LEVEL: 'INFO' });
  const quiet = await invoke(bundles.resolveObject, asDeployed, sampledReads());
  expect(quiet.answers.map((a) => a.statusCode)).toEqual([200, 200]);
  // Lambda's DEBUG is its filter, not the logger's level: nothing for two answers.
  expect(quiet.lines).toEqual([]);
  const sampled = await invoke(bundles.resolveObject, { ...asDeployed, POWERTOOLS_LOGGER_SAMPLE_RATE: '1' }, sampledReads());
  expect(debugOf(sampled.lines)).toEqual(SAMPLED_STORY);
});

test('no line carries a request body, a webhook-signature value or a secret, even with every line and the event logged', async () => {
  // What only the body says: an instant an hour ago, to the millisecond (the event's id is its identity, which the receiver logs).
  const marker = new Date(Date.now() - 3_600_000 + 777).toISOString();
  const body = JSON.stringify(buildEvent('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'DELIVERED', observedAt: marker }, marker));
  const secret = devSecrets(DEV_INGRESS_SECRETS_FILE)['service-platform'];
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-correlation-id': 'corr-receiver-000001', ...signedHeaders(body, [secret]) };
  const delivery: APIGatewayProxyEvent = {
    ...getEvent('/v1/lifecycle/events', '/v1/lifecycle/events', null, null, headers),
    httpMethod: 'POST',
    body,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
  };
  const everything = { ...storeEnv(), INGRESS_SECRETS_FILE: DEV_INGRESS_SECRETS_FILE, POWERTOOLS_LOG_LEVEL: 'DEBUG', POWERTOOLS_LOGGER_SAMPLE_RATE: '1', POWERTOOLS_LOGGER_LOG_EVENT: 'true' };
  const received = await invoke(bundles.receiveLifecycleEvent, everything, [{ event: delivery, traceId: TRACE_1 }]);
  expect(received.answers[0].statusCode).toBe(202);
  // A read logs its event when asked to (POWERTOOLS_LOGGER_LOG_EVENT), with the sensitive headers' values redacted.
  const read = objectRead(DEMO_OBJECTS.current, 'corr-read-event-0001', TRACE_2);
  read.event.headers['Webhook-Signature'] = headers['webhook-signature'];
  read.event.headers.authorization = `Bearer ${secret}`;
  const logged = await invoke(bundles.resolveObject, { ...storeEnv(), POWERTOOLS_LOG_LEVEL: 'DEBUG', POWERTOOLS_LOGGER_LOG_EVENT: 'true' }, [read]);
  expect(logged.lines.find((line) => line.message === 'Lambda invocation event')).toMatchObject({ event: { headers: { 'Webhook-Signature': '[REDACTED]', authorization: '[REDACTED]' } } });

  for (const { text, lines } of [received, logged]) {
    expect(lines.length).toBeGreaterThan(1);
    for (const forbidden of [marker, body, headers['webhook-signature'], secret, secret.replace(/^whsec_/, ''), 'example-secret-access-key', 'example-session-token']) {
      expect({ forbidden, found: text.includes(forbidden) }).toEqual({ forbidden, found: false });
    }
  }
});
