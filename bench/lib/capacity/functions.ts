/**
 * The deployed functions the capacity and cost benches drive, each from the bundle the stack
 * deploys (bench/lib/bundle.ts), in a process of its own (bench/lib/lambda-process.ts), with the
 * environment the stack gives it (lib/stack/operation-functions.ts, lib/stack/sequencer.ts: its
 * log settings at the stack's defaults, its table, key and bucket settings) and AWS reached through
 * the accounting proxy. They are driven from the outside only: API Gateway proxy events to the
 * routes, stream batches and scheduled events to the sequencer, as AWS invokes them.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { LEDGER_LOG } from '../../../functions/contract/site-paths';
import { DEV_INGRESS_SECRETS_FILE } from '../../../lib/local/service';
import { FUNCTION_TIMEOUT_SECONDS } from '../../../lib/stack/bundling';
import { lambdaLogEnvironment, loggingEnvironment } from '../../../lib/stack/logging';
import { SEQUENCER_ENTRY, SEQUENCER_STREAM, SEQUENCER_TIMEOUT_SECONDS, STREAM_BATCH_SIZE } from '../../../lib/stack/sequencer';
import { DEFAULT_SETTINGS } from '../../../lib/stack/settings';
import { bundle } from '../bundle';
import { startFunction, type FunctionProcess, type Invocation } from '../lambda-process';
import { BENCH_BUCKET, BENCH_ORIGIN, BENCH_REGION, type BenchAws } from './stand-ins';

/** Memory of the functions as the stack configures them (lib/stack/operation-functions.ts, lib/stack/sequencer.ts; test/unit/bench-cost.test.ts checks them against the synthesized template). */
export const ROUTE_FUNCTION_MEMORY_MB = 512;
export const SEQUENCER_MEMORY_MB = 1769;

export type Access = 'table-read' | 'ingress-write' | 'sequencer';

/** The log settings the stack deploys by default, as the functions' environment carries them. */
export function deployedLogEnvironment(): Record<string, string> {
  const settings = { logLevel: DEFAULT_SETTINGS.logLevel, logSampleRate: DEFAULT_SETTINGS.logSampleRate };
  return { ...loggingEnvironment(settings), ...lambdaLogEnvironment(settings) };
}

export async function startDeployedFunction(root: string, aws: BenchAws, entry: string, access: Access, name: string): Promise<FunctionProcess> {
  const out = path.join(aws.work, 'bundles', name);
  const { file } = await bundle(entry, out, root);
  // PUBLIC_BASE_URL: the origin a deployment configures, which the functions make their links from.
  const env: Record<string, string> = { ...aws.awsEnvironment(), ...deployedLogEnvironment(), TABLE_NAME: aws.table, HOME: out, PUBLIC_BASE_URL: 'https://trust.example.org' };
  if (access === 'table-read') env.LEDGER_VERIFIER_KEYS = aws.kms.verifierKey(BENCH_ORIGIN);
  // On AWS the receivers read their keys from Secrets Manager (INGRESS_SECRETS_ARN), once per execution environment.
  if (access === 'ingress-write') env.INGRESS_SECRETS_FILE = DEV_INGRESS_SECRETS_FILE;
  if (access === 'sequencer') {
    Object.assign(env, { LEDGER_KMS_KEY_ARN: aws.kms.keyId, LEDGER_ORIGIN: BENCH_ORIGIN, LEDGER_TILES_BUCKET: BENCH_BUCKET, LEDGER_TILES_PREFIX: LEDGER_LOG.keyPrefix });
  }
  const sequencer = access === 'sequencer';
  return startFunction(file, env, {
    name,
    memoryMb: sequencer ? SEQUENCER_MEMORY_MB : ROUTE_FUNCTION_MEMORY_MB,
    timeoutMs: (sequencer ? SEQUENCER_TIMEOUT_SECONDS : FUNCTION_TIMEOUT_SECONDS) * 1000,
  });
}

export const startSequencer = (root: string, aws: BenchAws) => startDeployedFunction(root, aws, SEQUENCER_ENTRY, 'sequencer', 'Sequencer');

/** A REST proxy event as API Gateway sends it (only what the functions read is meaningful). */
export function apiEvent(method: 'GET' | 'POST', resource: string, requestPath: string, options: { pathParameters?: Record<string, string> | null; query?: Record<string, string> | null; headers?: Record<string, string>; body?: string } = {}): APIGatewayProxyEvent {
  const headers = { host: 'bench.example', 'x-forwarded-proto': 'https', 'accept-encoding': 'gzip, deflate, br', ...options.headers };
  const query = options.query ?? null;
  return {
    resource,
    path: requestPath,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: query,
    multiValueQueryStringParameters: query ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])) : null,
    pathParameters: options.pathParameters ?? null,
    stageVariables: null,
    body: options.body ?? null,
    isBase64Encoded: false,
    requestContext: { path: `/live${requestPath}`, requestId: randomUUID(), domainName: 'bench.example', stage: 'live', httpMethod: method } as APIGatewayProxyEvent['requestContext'],
  };
}

/** The scheduled event (EventBridge, every minute) that has the sequencer drain what waits. */
export function scheduledEvent(): Record<string, unknown> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '111122223333',
    time: new Date().toISOString(),
    region: BENCH_REGION,
    resources: [`arn:aws:events:${BENCH_REGION}:111122223333:rule/SequencerSchedule`],
    detail: {},
  };
}

export interface SequencerSummary {
  batches: number;
  deliveries: number;
  sequenced: number;
  setAside: number;
  appended: number;
  treeSize: number | null;
}

/** Has the proxy keep the table's stream as the sequencer's event source mapping filters it (integrateStreamed takes it). */
export const keepSequencerStream = (aws: BenchAws) => aws.control.configure({ stream: { ...SEQUENCER_STREAM } });

/**
 * Wakes the sequencer as the table's stream does: what the stream brought since it was last taken
 * (keepSequencerStream), in batches of STREAM_BATCH_SIZE, one invocation each, one after another
 * (reserved concurrency 1); the runs. None when the stream brought nothing.
 */
export async function integrateStreamed(aws: BenchAws, sequencer: FunctionProcess): Promise<Invocation<SequencerSummary>[]> {
  const records = await aws.control.takeStream();
  const runs: Invocation<SequencerSummary>[] = [];
  for (let start = 0; start < records.length; start += STREAM_BATCH_SIZE) {
    const run = await sequencer.invoke<SequencerSummary>({ Records: records.slice(start, start + STREAM_BATCH_SIZE) });
    if (run.error) throw new Error(`the sequencer failed: ${run.error}\n${run.logText.slice(-2000)}`);
    runs.push(run);
  }
  return runs;
}

/**
 * Invokes the sequencer as the minute's tick does (it drains the pending index) until a run finds
 * nothing waiting; the runs. What the stream brought meanwhile is integrated by them: dropped.
 */
export async function drainSequencer(aws: BenchAws, sequencer: FunctionProcess): Promise<Invocation<SequencerSummary>[]> {
  const runs: Invocation<SequencerSummary>[] = [];
  for (;;) {
    const run = await sequencer.invoke<SequencerSummary>(scheduledEvent());
    if (run.error) throw new Error(`the sequencer failed: ${run.error}\n${run.logText.slice(-2000)}`);
    runs.push(run);
    if (run.result.deliveries === 0) break;
  }
  await aws.control.takeStream();
  return runs;
}

