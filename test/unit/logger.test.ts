import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { buildSync } from 'esbuild';
import fc from 'fast-check';
import { Logger, type LogExtra } from '../../functions/logging/logger';

/**
 * The service writes its log lines itself (functions/logging/logger.ts) in the Powertools for AWS
 * Lambda format. Powertools is the second implementation: for the same environment and the same
 * calls, every line must be the line the Powertools Logger writes, key for key and in the same
 * order, to the same descriptor. Only the timestamp (the instant of writing) is compared by form.
 */
const SEED = 20261124;
const ENV_KEYS = ['POWERTOOLS_LOG_LEVEL', 'LOG_LEVEL', 'AWS_LAMBDA_LOG_LEVEL', 'AWS_LAMBDA_INITIALIZATION_TYPE', '_X_AMZN_TRACE_ID', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_DEV', 'TZ'] as const;

type Written = { fd: 1 | 2; line: string };
type Call =
  | { op: 'context'; context: Partial<Context> }
  | { op: 'append'; keys: Record<string, unknown> }
  | { op: 'reset' }
  | { op: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; message: string; extra: Array<'error' | Record<string, unknown>> };

const level = fc.constantFrom(undefined, 'TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT', 'debug', 'warn', 'verbose');
const environment = fc.record({
  POWERTOOLS_LOG_LEVEL: level,
  LOG_LEVEL: level,
  AWS_LAMBDA_LOG_LEVEL: fc.constantFrom(undefined, 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'),
  AWS_LAMBDA_INITIALIZATION_TYPE: fc.constantFrom(undefined, 'on-demand', 'provisioned-concurrency'),
  _X_AMZN_TRACE_ID: fc.constantFrom(undefined, 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=1', 'Parent=557abcec3ee5a047;Root=1-67891233-abcdef012345678912345678'),
  POWERTOOLS_SERVICE_NAME: fc.constantFrom(undefined, '', 'from-environment'),
});

// Keys a call may use: the service's own, one of the base keys, and names JSON treats specially.
const keyName = fc.constantFrom('correlationId', 'endpoint', 'status', 'delivery', 'reason', 'function_name', 'xray_trace_id', 'toJSON', 'ünïcode key', '');
const primitive = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(undefined), fc.constant(null), fc.constant(''), fc.bigInt());
// Inside a value, any key but the two Powertools' merge drops as unsafe (the service logs neither).
const nestedKey = fc.string({ maxLength: 5 }).filter((key) => key !== '__proto__' && key !== 'constructor');
const nested = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, primitive, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(nestedKey, tie('value'), { maxKeys: 3 })),
})).value;

const call: fc.Arbitrary<Call> = fc.oneof(
  fc.record({
    op: fc.constant('context' as const),
    context: fc.record({ awsRequestId: fc.uuid(), functionName: fc.string({ minLength: 1 }), invokedFunctionArn: fc.string(), memoryLimitInMB: fc.constantFrom('128', '1024') }),
  }),
  // The service appends strings and numbers (correlation id, endpoint), never objects.
  fc.record({ op: fc.constant('append' as const), keys: fc.dictionary(keyName, primitive, { maxKeys: 3 }) }),
  fc.record({ op: fc.constant('reset' as const) }),
  fc.record({
    op: fc.constant('log' as const),
    level: fc.constantFrom('debug' as const, 'info' as const, 'warn' as const, 'error' as const),
    message: fc.string(),
    // At most one object of keys a call, as the service's calls give (two would be merged deeply by Powertools).
    extra: fc.tuple(fc.option(fc.dictionary(keyName, nested, { maxKeys: 4 }), { nil: undefined }), fc.boolean(), fc.boolean()).map(([keys, error, errorFirst]) => {
      const items: Array<'error' | Record<string, unknown>> = keys ? [keys] : [];
      if (error) items.splice(errorFirst ? 0 : items.length, 0, 'error');
      return items;
    }),
  }),
);

function anError(): Error {
  const error = new Error('could not read the table', { cause: new TypeError('socket hang up') }) as Error & { code?: string };
  error.code = 'ECONNRESET';
  return error;
}

/** What the calls use of a logger; both loggers have it. */
interface LoggerCalls {
  addContext(context: Context): void;
  appendKeys(keys: Record<string, unknown>): void;
  resetKeys(): void;
  debug(message: string, ...extra: LogExtra[]): void;
  info(message: string, ...extra: LogExtra[]): void;
  warn(message: string, ...extra: LogExtra[]): void;
  error(message: string, ...extra: LogExtra[]): void;
}

/** Runs the calls through one logger built in the current environment; its lines, and to which descriptor. */
function run(make: (write: (fd: 1 | 2, line: string) => void) => unknown, calls: Call[], error: Error): Written[] {
  const written: Written[] = [];
  const logger = make((fd, line) => written.push({ fd, line: line.replace(/"timestamp":"[^"]*"/, '"timestamp":"T"') })) as LoggerCalls;
  for (const c of calls) {
    if (c.op === 'context') logger.addContext(c.context as Context);
    else if (c.op === 'append') logger.appendKeys(c.keys);
    else if (c.op === 'reset') logger.resetKeys();
    else logger[c.level](c.message, ...c.extra.map((item) => (item === 'error' ? error : item)));
  }
  return written;
}

function withEnvironment<T>(env: Partial<Record<(typeof ENV_KEYS)[number], string>>, work: () => T): T {
  const saved = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
  for (const key of ENV_KEYS) delete process.env[key];
  for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value;
  try {
    return work();
  } finally {
    for (const key of ENV_KEYS) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}

function powertools(write: (fd: 1 | 2, line: string) => void) {
  const logger = new PowertoolsLogger({ serviceName: 'public-trust-verification-service' });
  // Its console (a Console on process.stdout and process.stderr), with each method on the descriptor it writes to.
  (logger as unknown as { console: Record<string, (line: string) => void> }).console = {
    trace: (line) => write(1, line),
    debug: (line) => write(1, line),
    info: (line) => write(1, line),
    log: (line) => write(1, line),
    warn: (line) => write(2, line),
    error: (line) => write(2, line),
  };
  return logger;
}

describe('log lines, held to the Powertools Logger', () => {
  it('every line, for any environment and any sequence of calls the service makes, is the line Powertools writes', () => {
    fc.assert(
      fc.property(environment, fc.array(call, { minLength: 1, maxLength: 12 }), (env, calls) => {
        const error = anError();
        const [ours, theirs] = withEnvironment(env, () => [
          run((write) => new Logger({ serviceName: 'public-trust-verification-service', write }), calls, error),
          run(powertools, calls, error),
        ]);
        expect(ours).toEqual(theirs);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('the service\'s own calls: a request served, an unexpected error, keys reset per invocation', () => {
    const calls: Call[] = [
      { op: 'reset' },
      { op: 'context', context: { awsRequestId: 'req-1', functionName: 'ResolveObject', invokedFunctionArn: 'arn:aws:lambda:eu-central-1:111122223333:function:ResolveObject', memoryLimitInMB: '1024' } },
      { op: 'append', keys: { correlationId: 'c-1', endpoint: '/v1/objects/{reference}' } },
      { op: 'log', level: 'info', message: 'request served', extra: [{ status: 200 }] },
      { op: 'log', level: 'error', message: 'unexpected error', extra: [{ error: 'error' }] },
      { op: 'reset' },
      { op: 'context', context: { awsRequestId: 'req-2', functionName: 'ResolveObject', invokedFunctionArn: 'arn', memoryLimitInMB: '1024' } },
      { op: 'log', level: 'warn', message: 'dependency problem', extra: [{ code: 'DEPENDENCY_UNAVAILABLE', detail: 'The store did not answer.' }] },
    ];
    const env = { POWERTOOLS_LOG_LEVEL: 'INFO', AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand', _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1' };
    const error = anError();
    const swap = (c: Call): Call => (c.op === 'log' ? { ...c, extra: c.extra.map((item) => (typeof item === 'object' && item.error === 'error' ? { error } : item)) } : c);
    const [ours, theirs] = withEnvironment(env, () => [
      run((write) => new Logger({ serviceName: 'public-trust-verification-service', write }), calls.map(swap), error),
      run(powertools, calls.map(swap), error),
    ]);
    expect(ours).toEqual(theirs);
    expect(ours.map(({ fd }) => fd)).toEqual([1, 2, 2]);
    expect(JSON.parse(ours[0].line)).toEqual({
      level: 'INFO',
      message: 'request served',
      timestamp: 'T',
      service: 'public-trust-verification-service',
      cold_start: true,
      function_arn: 'arn:aws:lambda:eu-central-1:111122223333:function:ResolveObject',
      function_memory_size: '1024',
      function_name: 'ResolveObject',
      function_request_id: 'req-1',
      sampling_rate: 0,
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
      correlationId: 'c-1',
      endpoint: '/v1/objects/{reference}',
      status: 200,
    });
    expect(JSON.parse(ours[1].line).error).toMatchObject({ name: 'Error', message: 'could not read the table', code: 'ECONNRESET', cause: { name: 'TypeError', message: 'socket hang up' } });
    expect(JSON.parse(ours[2].line)).not.toHaveProperty('correlationId');
    expect(JSON.parse(ours[2].line).cold_start).toBe(false);
  });

  it('a timestamp is the instant in UTC, to the millisecond', () => {
    const written: string[] = [];
    const before = Date.now();
    new Logger({ serviceName: 's', write: (_fd, line) => written.push(line), env: {} }).info('now');
    const { timestamp } = JSON.parse(written[0]) as { timestamp: string };
    expect(timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(timestamp)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(timestamp)).toBeLessThanOrEqual(Date.now());
  });

  it('an unknown level is refused by setLogLevel', () => {
    expect(() => new Logger({ serviceName: 's', env: {} }).setLogLevel('LOUD')).toThrow("unknown log level 'LOUD'");
  });
});

describe('writing to a pipe', () => {
  let dir: string;
  let script: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'logger-pipe-'));
    script = path.join(dir, 'writer.js');
    // A process that made its stdout pipe non-blocking (by opening process.stdout, as Node does) and then logs
    // 2 MiB faster than its reader reads: writeSync meets EAGAIN, and no line may be lost, torn or reordered.
    buildSync({
      stdin: {
        contents: `import { Logger } from './functions/logging/logger';
          process.stdout;
          const logger = new Logger({ serviceName: 'pipe', env: { POWERTOOLS_LOG_LEVEL: 'INFO' } });
          const padding = 'x'.repeat(2000);
          for (let i = 0; i < 1000; i++) logger.info('line', { i, padding });
          logger.info('done');`,
        resolveDir: path.resolve(__dirname, '../..'),
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: script,
      logLevel: 'silent',
    });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a full non-blocking pipe: every line arrives whole and in order, and the process ends normally', async () => {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.pause();
    // Let the writer fill the pipe before anything is read.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const lines = Buffer.concat(chunks).toString('utf8').trim().split('\n').map((line) => JSON.parse(line) as { message: string; i?: number });
    expect(lines.map((line) => line.i ?? line.message)).toEqual([...Array.from({ length: 1000 }, (_, i) => i), 'done']);
  });
});
