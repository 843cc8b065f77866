import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { AsyncInvoker, rateMs, StreamEventSourceMapping } from '../../lib/assembly/lambda/event-sources';
import { FunctionHost, TooManyRequests, type FunctionDefinition } from '../../lib/assembly/lambda/function-host';
import type { StreamRecord } from '../../lib/assembly/dynamodb-streams';

/**
 * Functions as Lambda runs them, with a small handler written here (as a bundle would be): one
 * process per execution environment, started by the first invocation (a cold start) and reused;
 * overlapping invocations get an environment each, up to the reserved concurrency; the context's
 * remaining time follows the timeout, after which the environment is stopped; the heap is bounded
 * by the memory size; a thrown error fails the invocation, an uncaught one the environment. And
 * the stream mapping's batching, bisecting and retries, and the asynchronous queue's retries.
 */
const work = mkdtempSync(path.join(tmpdir(), 'assembly-lambda-'));
const bootstrap = path.join(work, 'bootstrap.js');
const hosts: FunctionHost[] = [];
const lines: string[] = [];

beforeAll(() => {
  buildSync({ entryPoints: [path.join(__dirname, '../../lib/assembly/lambda/bootstrap.ts')], outfile: bootstrap, bundle: true, platform: 'node', format: 'cjs', logLevel: 'error' });
  writeFileSync(
    path.join(work, 'index.js'),
    `
const startedAt = Date.now();
let invocations = 0;
exports.handler = async (event, context) => {
  invocations++;
  if (event.sleepMs) await new Promise((r) => setTimeout(r, event.sleepMs));
  if (event.fail) throw new Error('failed on purpose');
  if (event.Records && event.Records.some((r) => r.dynamodb.Keys.pk.S === 'P#poison')) throw new Error('a poison record');
  if (event.crash) setImmediate(() => { throw new Error('crashed on purpose'); });
  if (event.crash) await new Promise((r) => setTimeout(r, 1000));
  console.log(JSON.stringify({ message: 'served', records: event.Records ? event.Records.length : 0 }));
  return {
    pid: process.pid,
    invocations,
    remainingMs: context.getRemainingTimeInMillis(),
    heapLimitMb: Math.round(require('v8').getHeapStatistics().heap_size_limit / 1048576),
    table: process.env.TABLE_NAME,
    functionName: context.functionName,
    records: event.Records ? event.Records.length : undefined,
  };
};
`,
  );
});

afterAll(async () => {
  for (const host of hosts) await host.close();
  rmSync(work, { recursive: true, force: true });
});

function host(overrides: Partial<FunctionDefinition> = {}): FunctionHost {
  const created = new FunctionHost(
    {
      logicalId: 'Fn',
      name: 'test-function',
      arn: 'arn:aws:lambda:eu-central-1:123456789012:function:test-function',
      handler: 'index.handler',
      runtime: 'nodejs22.x',
      codeDirectory: work,
      environment: { TABLE_NAME: 'records', PATH: process.env.PATH ?? '' },
      memoryMb: 256,
      timeoutSeconds: 3,
      ...overrides,
    },
    bootstrap,
    (line) => lines.push(line),
  );
  hosts.push(created);
  return created;
}

const value = (outcome: Awaited<ReturnType<FunctionHost['invoke']>>) => {
  if (!outcome.ok) throw new Error(`${outcome.errorType}: ${outcome.errorMessage}`);
  return outcome.value as Record<string, any>;
};

test('the first invocation starts an environment (cold), the next reuses it (warm), with the environment and limits of the definition', async () => {
  const fn = host();
  const first = value(await fn.invoke({}));
  const second = value(await fn.invoke({}));
  expect(second.pid).toBe(first.pid);
  expect([first.invocations, second.invocations, fn.coldStarts]).toEqual([1, 2, 1]);
  expect(first).toMatchObject({ table: 'records', functionName: 'test-function' });
  expect(first.remainingMs).toBeGreaterThan(2000);
  expect(first.remainingMs).toBeLessThanOrEqual(3000);
  // --max-old-space-size=256: V8 adds its young generation on top, so the limit is a little above (unbounded: 2 GiB and more).
  expect(first.heapLimitMb).toBeGreaterThanOrEqual(256);
  expect(first.heapLimitMb).toBeLessThan(400);
  expect(lines.some((l) => /^REPORT RequestId: \S+ Duration: [\d.]+ ms .*Memory Size: 256 MB Init Duration: [\d.]+ ms$/.test(l))).toBe(true);
  expect(lines).toContain(JSON.stringify({ message: 'served', records: 0 }));
});

test('overlapping invocations get an environment each; reserved concurrency caps them', async () => {
  const fn = host();
  const answers = await Promise.all([1, 2, 3].map(() => fn.invoke({ sleepMs: 200 })));
  expect(new Set(answers.map((a) => value(a).pid)).size).toBe(3);
  expect(fn.coldStarts).toBe(3);

  const reserved = host({ reservedConcurrency: 1 });
  const running = reserved.invoke({ sleepMs: 300 });
  await expect(reserved.invoke({})).rejects.toBeInstanceOf(TooManyRequests);
  // What a poller or the asynchronous queue does instead: wait for the environment.
  const waited = reserved.invokeWhenFree({});
  expect(value(await waited).pid).toBe(value(await running).pid);
});

test('past its timeout an invocation fails as Lambda says it, and the environment is replaced', async () => {
  const fn = host({ timeoutSeconds: 1 });
  const slow = await fn.invoke({ sleepMs: 5000 });
  expect(slow).toMatchObject({ ok: false, errorType: 'Sandbox.Timedout', errorMessage: expect.stringMatching(/Task timed out after 1\.00 seconds$/) });
  const next = value(await fn.invoke({}));
  expect([next.invocations, fn.coldStarts]).toEqual([1, 2]);
});

test("a handler's error fails the invocation and keeps the environment; an uncaught one ends it", async () => {
  const fn = host();
  expect(await fn.invoke({ fail: true })).toMatchObject({ ok: false, errorType: 'Error', errorMessage: 'failed on purpose' });
  expect(fn.coldStarts).toBe(1);
  expect(value(await fn.invoke({})).invocations).toBe(2);
  expect(await fn.invoke({ crash: true })).toMatchObject({ ok: false, errorType: 'Error', errorMessage: 'crashed on purpose' });
  expect(value(await fn.invoke({})).invocations).toBe(1);
  expect(fn.coldStarts).toBe(2);
});

test('a new environment (the runner\'s overrideEnvironment) reaches environments started after it: an idle one is replaced at once, a busy one once its invocation ends', async () => {
  const fn = host();
  const before = await Promise.all([fn.invoke({ sleepMs: 100 }), fn.invoke({ sleepMs: 100 })]);
  const pids = before.map((outcome) => value(outcome).pid);
  // One environment busy, the other idle, when the environment changes.
  const busy = fn.invoke({ sleepMs: 300 });
  fn.updateEnvironment({ ...fn.definition.environment, TABLE_NAME: 'rehearsal' });
  expect(value(await busy)).toMatchObject({ table: 'records', invocations: 2 });
  const after = (await Promise.all([fn.invoke({ sleepMs: 100 }), fn.invoke({ sleepMs: 100 })])).map(value);
  expect(after.map((a) => [a.table, a.invocations])).toEqual([['rehearsal', 1], ['rehearsal', 1]]);
  expect(after.filter((a) => pids.includes(a.pid))).toEqual([]);
  expect(fn.coldStarts).toBe(4);
});

test('a handler that is not there fails at init, as Runtime.HandlerNotFound', async () => {
  const fn = host({ handler: 'index.missing' });
  expect(await fn.invoke({})).toMatchObject({ ok: false, errorType: 'Runtime.HandlerNotFound' });
});

const record = (i: number, pk = `P#s#${i}`): StreamRecord => ({
  eventID: String(i),
  eventName: 'INSERT',
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'eu-central-1',
  dynamodb: { ApproximateCreationDateTime: Math.floor(Date.now() / 1000), Keys: { pk: { S: pk } }, SequenceNumber: String(i), SizeBytes: 10, StreamViewType: 'NEW_IMAGE' },
  eventSourceARN: 'arn:aws:dynamodb:eu-central-1:123456789012:table/t/stream/x',
});

test('a stream mapping delivers the records passing its filter, in batches of its batch size', async () => {
  const fn = host();
  const before = lines.length;
  const mapping = new StreamEventSourceMapping(
    { logicalId: 'Esm', streamArn: 'arn:stream', batchSize: 3, windowMs: 50, filters: [JSON.stringify({ dynamodb: { Keys: { pk: { S: [{ prefix: 'P#' }] } } } })], bisect: false, maxRetries: 0, mayReadStream: async () => ({ allowed: true, message: 'allowed' }) },
    fn,
    () => undefined,
  );
  mapping.push([record(1), record(2, 'R#x'), record(3), record(4), record(5)]);
  while (!mapping.idle) await new Promise((r) => setTimeout(r, 20));
  const served = lines.slice(before).filter((l) => l.startsWith('{"message":"served"')).map((l) => JSON.parse(l).records);
  expect(served).toEqual([3, 1]);
  await mapping.stop();
});

test('a failing batch is bisected, each part retried, and what still fails is described to the failure destination', async () => {
  const fn = host();
  const failures: Array<Record<string, any>> = [];
  const mapping = new StreamEventSourceMapping(
    { logicalId: 'Esm', streamArn: 'arn:stream', batchSize: 4, windowMs: 0, filters: [], bisect: true, maxRetries: 1, mayReadStream: async () => ({ allowed: true, message: 'allowed' }), onFailure: async (d) => void failures.push(d) },
    fn,
    () => undefined,
  );
  const before = lines.length;
  mapping.push([record(1), record(2, 'P#poison'), record(3), record(4)]);
  while (!mapping.idle) await new Promise((r) => setTimeout(r, 20));
  // [1,2,3,4] fails -> [1,2] fails -> [1] served, [2] fails twice (one retry) -> described; [3,4] served.
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatchObject({ requestContext: { condition: 'RetryAttemptsExhausted', approximateInvokeCount: 2 }, DDBStreamBatchInfo: { batchSize: 1, startSequenceNumber: '2' } });
  expect(lines.slice(before).filter((l) => l.startsWith('{"message":"served"')).map((l) => JSON.parse(l).records)).toEqual([1, 2]);
  expect(mapping.failedBatches).toBe(1);
  await mapping.stop();
});

test('a stream the role may not read is not delivered until it may', async () => {
  const fn = host();
  let allowed = false;
  const logged: string[] = [];
  const mapping = new StreamEventSourceMapping(
    { logicalId: 'Esm', streamArn: 'arn:stream', batchSize: 10, windowMs: 0, filters: [], bisect: false, maxRetries: 0, mayReadStream: async () => ({ allowed, message: allowed ? 'allowed' : 'no dynamodb:GetRecords' }) },
    fn,
    (line) => logged.push(line),
  );
  mapping.push([record(1)]);
  await new Promise((r) => setTimeout(r, 300));
  expect(mapping.idle).toBe(false);
  expect(fn.coldStarts).toBe(0);
  expect(logged.join('\n')).toMatch(/may not read the stream \(no dynamodb:GetRecords\)/);
  allowed = true;
  while (!mapping.idle) await new Promise((r) => setTimeout(r, 50));
  expect(fn.coldStarts).toBe(1);
  await mapping.stop();
});

test('asynchronous invocations are retried as configured, then sent to the dead-letter destination', async () => {
  const fn = host();
  const dead: unknown[] = [];
  const invoker = new AsyncInvoker(fn, { maxRetries: 0, maxEventAgeSeconds: 60, onFailure: async (event) => void dead.push(event) }, () => undefined);
  invoker.invoke({ fail: true });
  invoker.invoke({});
  await invoker.settled();
  expect(dead).toEqual([{ fail: true }]);
  expect([rateMs('rate(1 minute)'), rateMs('rate(5 minutes)'), rateMs('rate(2 hours)'), rateMs('cron(0 12 * * ? *)')]).toEqual([60_000, 300_000, 7_200_000, null]);
});
