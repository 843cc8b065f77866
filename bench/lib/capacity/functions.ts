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
import { EVENTS_PER_PART } from '../../../functions/ledger-writer/lambda-parts';
import { PART_WRITER_TIMEOUT_SECONDS, SEQUENCER_PART_ENTRY } from '../../../lib/stack/sequencer-parts';
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

export async function startDeployedFunction(root: string, aws: BenchAws, entry: string, access: Access, name: string, extraEnvironment: Record<string, string> = {}): Promise<FunctionProcess> {
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
  Object.assign(env, extraEnvironment);
  return startFunction(file, env, {
    name,
    memoryMb: sequencer ? SEQUENCER_MEMORY_MB : ROUTE_FUNCTION_MEMORY_MB,
    timeoutMs: (sequencer ? SEQUENCER_TIMEOUT_SECONDS : FUNCTION_TIMEOUT_SECONDS) * 1000,
  });
}

export const startSequencer = (root: string, aws: BenchAws) => startDeployedFunction(root, aws, SEQUENCER_ENTRY, 'sequencer', 'Sequencer');

/** The part writers' function as the bench's Lambda reaches it (the name the sequencer is given). */
export const PART_WRITERS = 'SequencerPartsFunction';

export interface PartWriterPool {
  /** The CPU time (ms) of every invocation since the last take, and how many there were. */
  take(): { invocations: number; cpuMs: number; mainThreadCpuMs: number | null };
  close(): Promise<void>;
}

/**
 * `count` execution environments of the part writers' function (lib/stack/sequencer-parts.ts: its
 * bundle, its memory, its environment), each answering one invocation at a time, reached through
 * the bench's Lambda (stand-ins.ts) under PART_WRITERS: as many at once as the function's reserved
 * concurrency lets Lambda run. Their CPU time is kept for the bench to read.
 */
export async function startPartWriters(root: string, aws: BenchAws, count: number): Promise<PartWriterPool> {
  const out = path.join(aws.work, 'bundles', PART_WRITERS);
  const { file } = await bundle(SEQUENCER_PART_ENTRY, out, root);
  const env: Record<string, string> = { ...aws.awsEnvironment(), ...deployedLogEnvironment(), TABLE_NAME: aws.table, HOME: out, LEDGER_TILES_BUCKET: BENCH_BUCKET, LEDGER_TILES_PREFIX: LEDGER_LOG.keyPrefix };
  const free: FunctionProcess[] = [];
  for (let i = 0; i < count; i++) free.push(await startFunction(file, env, { name: `${PART_WRITERS}${i}`, memoryMb: SEQUENCER_MEMORY_MB, timeoutMs: PART_WRITER_TIMEOUT_SECONDS * 1000 }));
  const all = [...free];
  const waiting: Array<(fn: FunctionProcess) => void> = [];
  let spent = { invocations: 0, cpuMs: 0, mainThreadCpuMs: 0 as number | null };
  aws.functions.set(PART_WRITERS, async (event) => {
    const fn = free.pop() ?? (await new Promise<FunctionProcess>((resolve) => waiting.push(resolve)));
    try {
      const run = await fn.invoke(event);
      spent = { invocations: spent.invocations + 1, cpuMs: spent.cpuMs + run.cpuMs, mainThreadCpuMs: spent.mainThreadCpuMs === null || run.mainThreadCpuMs === null ? null : spent.mainThreadCpuMs + run.mainThreadCpuMs };
      if (run.error) throw new Error(run.error);
      return run.result;
    } finally {
      const next = waiting.shift();
      if (next) next(fn);
      else free.push(fn);
    }
  });
  return {
    take: () => {
      const taken = spent;
      spent = { invocations: 0, cpuMs: 0, mainThreadCpuMs: 0 };
      return taken;
    },
    close: async () => {
      aws.functions.delete(PART_WRITERS);
      for (const fn of all) await fn.close();
    },
  };
}

/** The sequencer as the stack configures it with part writers: at most `parts` a batch, `eventsPerPart` events each (the stack's EVENTS_PER_PART unless told). */
export const startSequencerInParts = (root: string, aws: BenchAws, parts: number, eventsPerPart = EVENTS_PER_PART) =>
  startDeployedFunction(root, aws, SEQUENCER_ENTRY, 'sequencer', 'SequencerInParts', { SEQUENCER_PART_FUNCTION: PART_WRITERS, SEQUENCER_PARTS: String(parts), SEQUENCER_EVENTS_PER_PART: String(eventsPerPart) });

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
 * (keepSequencerStream), in batches of STREAM_BATCH_SIZE (or the stream batch the stack sets with part writers), one invocation each, one after another
 * (reserved concurrency 1); the runs. None when the stream brought nothing.
 */
export async function integrateStreamed(aws: BenchAws, sequencer: FunctionProcess, batchSize = STREAM_BATCH_SIZE, onRecords?: (records: readonly unknown[]) => void): Promise<Invocation<SequencerSummary>[]> {
  const records = await aws.control.takeStream();
  onRecords?.(records);
  const runs: Invocation<SequencerSummary>[] = [];
  for (let start = 0; start < records.length; start += batchSize) {
    const run = await sequencer.invoke<SequencerSummary>({ Records: records.slice(start, start + batchSize) });
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

