/**
 * A function's bundle run as Lambda runs it, in a Node.js process of its own (an execution
 * environment): loaded once, then invoked again and again with events and a Lambda context, the
 * environment exactly what the caller gives (no tsx, no inherited NODE_OPTIONS). For each
 * invocation it reports what the bench prices: the answer, the invocation's wall time and the CPU
 * time the process used meanwhile (the handler's, and the runtime's parsing of the event and
 * serializing of the answer, as Lambda's Node.js runtime does them in the function's process),
 * and every byte the function wrote to stdout and stderr (its log lines, Powertools Metrics'
 * embedded-metric-format lines), which Lambda would send to CloudWatch Logs.
 * What the module writes while it loads is reported apart (init).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const RUNNER = `
const { randomUUID } = require('node:crypto');
let current = null;
const init = [];
for (const stream of [process.stdout, process.stderr]) {
  stream.write = (chunk, encoding, callback) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    (current ?? init).push(text);
    const done = typeof encoding === 'function' ? encoding : callback;
    if (done) done();
    return true;
  };
}
// The main thread's own CPU time (user + system, in clock ticks of 10 ms) from Linux's /proc: the
// process's figure also counts V8's and libuv's helper threads. Null where /proc is not there.
function mainThreadTicks() {
  try {
    const stat = require('node:fs').readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch { return null; }
}
const mod = require(process.argv[2]);
const memory = process.argv[3];
const name = process.argv[4];
process.on('message', async (m) => {
  if (m.exit) process.exit(0);
  if (m.traceId) process.env._X_AMZN_TRACE_ID = 'Root=' + m.traceId + ';Parent=53995c3f42cd8ad8;Sampled=0';
  else delete process.env._X_AMZN_TRACE_ID;
  current = [];
  const deadline = Date.now() + m.timeoutMs;
  const context = {
    callbackWaitsForEmptyEventLoop: true, functionName: name, functionVersion: '$LATEST', memoryLimitInMB: memory,
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:111122223333:function:' + name, awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/' + name, logStreamName: '2026/01/01/[$LATEST]bench',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()), done() {}, fail() {}, succeed() {},
  };
  const cpu = process.cpuUsage();
  const mainTicks = mainThreadTicks();
  const started = process.hrtime.bigint();
  // The event arrives as JSON text and the answer leaves as JSON text, each converted in the timed
  // window: Lambda's Node.js runtime parses an invocation's payload and serializes the handler's
  // answer in the function's own process (a stream batch of 6 MB takes tens of milliseconds).
  let resultText, error;
  try {
    const result = await mod.handler(JSON.parse(m.eventText), context);
    resultText = result === undefined ? undefined : JSON.stringify(result);
  } catch (e) { error = String((e && e.stack) || e); }
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  const logText = current.join('');
  current = null;
  const mainEnd = mainThreadTicks();
  const mainThreadCpuMs = mainTicks === null || mainEnd === null ? null : (mainEnd - mainTicks) * 10;
  process.send({ id: m.id, resultText, error, wallMs, cpuMs: (used.user + used.system) / 1000, mainThreadCpuMs, logText });
});
process.send({ ready: true, initText: init.join('') });
`;

export interface Invocation<R = any> {
  result: R;
  /** The handler threw (Lambda would report a function error). */
  error?: string;
  wallMs: number;
  cpuMs: number;
  /** Of cpuMs, the main thread's (Linux only, to 10 ms a reading; null elsewhere): the rest is V8's and libuv's helper threads, which a second vCPU would run beside it. */
  mainThreadCpuMs: number | null;
  /** Everything the function wrote during the invocation, stdout and stderr in the order written. */
  logText: string;
}

export interface FunctionProcess {
  name: string;
  /** What the module wrote while loading (cold start). */
  initText: string;
  invoke<R = any>(event: unknown, options?: { traceId?: string; timeoutMs?: number }): Promise<Invocation<R>>;
  close(): Promise<void>;
}

/** An X-Ray trace id as Lambda sets one for each invocation (Root=1-<time>-<24 hex>). */
export function newTraceId(): string {
  return `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

/**
 * BENCH_CPU_PROFILE=dir: every function process writes a V8 CPU profile (node --cpu-prof) into dir
 * when it is closed, named after the function and numbered in the order started; its bundle is
 * not minified (bundle.ts), so the profile names the service's own functions. The profiler slows
 * what it profiles: a profiled run's figures are not the bench's (bench/README.md).
 */
export const PROFILE_DIR = process.env.BENCH_CPU_PROFILE ? path.resolve(process.env.BENCH_CPU_PROFILE) : undefined;
let started = 0;

/**
 * Starts the bundle `bundleFile` (bench/lib/bundle.ts) in its own process with exactly `env`.
 * Invocations are answered one at a time, in order, as one execution environment answers them.
 */
export async function startFunction(bundleFile: string, env: Record<string, string>, options: { name: string; memoryMb: number; timeoutMs: number }): Promise<FunctionProcess> {
  const runner = path.join(path.dirname(bundleFile), 'lambda-runner.cjs');
  writeFileSync(runner, RUNNER);
  const child: ChildProcess = fork(runner, [bundleFile, String(options.memoryMb), options.name], {
    env: { PATH: process.env.PATH ?? '', ...env },
    execArgv: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${options.name}-${started++}.cpuprofile`] : [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, (m: any) => void>();
  let initText = '';
  let failure: Error | undefined;
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => {
      failure = new Error(`function ${options.name} exited (${code}) while loading`);
      reject(failure);
    });
    child.on('message', (m: any) => {
      if (m.ready) {
        initText = m.initText;
        resolve();
      } else waiting.get(m.id)?.(m);
    });
  });
  child.removeAllListeners('exit');
  child.once('exit', (code) => {
    failure = new Error(`function ${options.name} exited (${code})`);
    for (const [id, settle] of waiting) settle({ id, error: failure.message });
  });
  let queue: Promise<unknown> = Promise.resolve();
  return {
    name: options.name,
    initText,
    invoke<R>(event: unknown, invokeOptions: { traceId?: string; timeoutMs?: number } = {}): Promise<Invocation<R>> {
      const next = queue.then(
        () =>
          new Promise<Invocation<R>>((resolve, reject) => {
            if (failure) return reject(failure);
            const id = randomUUID();
            waiting.set(id, (m) => {
              waiting.delete(id);
              resolve({ result: m.resultText === undefined ? undefined : JSON.parse(m.resultText), error: m.error, wallMs: m.wallMs, cpuMs: m.cpuMs, mainThreadCpuMs: m.mainThreadCpuMs ?? null, logText: m.logText ?? '' });
            });
            child.send({ id, eventText: JSON.stringify(event), traceId: invokeOptions.traceId ?? newTraceId(), timeoutMs: invokeOptions.timeoutMs ?? options.timeoutMs });
          }),
      );
      queue = next.catch(() => undefined);
      return next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        if (!PROFILE_DIR) return child.kill('SIGKILL');
        // Profiled: only a process that exits by itself writes its profile; killed if it does not within 10 s.
        child.send({ exit: true });
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}
