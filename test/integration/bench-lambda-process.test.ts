import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The bench's execution environment (bench/lib/lambda-process.ts): a function's module in a process
 * of its own, invoked as Lambda invokes it. The event goes in as JSON and the answer comes out as
 * JSON, both converted inside the timed window as Lambda's runtime converts them in the function's
 * process; a handler that throws is a function error; and with BENCH_CPU_PROFILE each process
 * leaves a CPU profile when closed.
 */
const HANDLER = `
exports.handler = async (event, context) => {
  if (event.fail) throw new Error('refused: ' + event.fail);
  if (event.nothing) return undefined;
  return { records: event.Records.length, name: context.functionName, left: context.getRemainingTimeInMillis() > 0 };
};
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bench-lambda-process-'));
  writeFileSync(path.join(dir, 'index.js'), HANDLER);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type LambdaProcess = typeof import('../../bench/lib/lambda-process');
const load = (): LambdaProcess => {
  let loaded: LambdaProcess | undefined;
  jest.isolateModules(() => {
    loaded = require('../../bench/lib/lambda-process') as LambdaProcess;
  });
  return loaded!;
};

test('an invocation: the event in, the answer out, as JSON; its time counts converting both', async () => {
  const { startFunction } = load();
  const fn = await startFunction(path.join(dir, 'index.js'), {}, { name: 'Echo', memoryMb: 1769, timeoutMs: 30_000 });
  try {
    // A stream batch of about 6 MB, as Lambda hands the sequencer one.
    const Records = Array.from({ length: 4_000 }, (_, i) => ({ eventName: 'INSERT', dynamodb: { Keys: { pk: { S: `P#source#event:${i}` } }, NewImage: { raw: { S: 'x'.repeat(1_400) } } } }));
    const big = await fn.invoke({ Records });
    expect(big.result).toEqual({ records: 4_000, name: 'Echo', left: true });
    expect(big.error).toBeUndefined();
    // Parsing the batch is the process's work, not the bench's: tens of milliseconds an empty batch does not take.
    const small = await fn.invoke({ Records: [] });
    expect(small.result).toEqual({ records: 0, name: 'Echo', left: true });
    expect(big.cpuMs).toBeGreaterThan(small.cpuMs + 5);
    expect((await fn.invoke({ nothing: true })).result).toBeUndefined();
    const failed = await fn.invoke({ fail: 'no' });
    expect(failed.error).toContain('refused: no');
    expect(failed.result).toBeUndefined();
  } finally {
    await fn.close();
  }
});

test('BENCH_CPU_PROFILE: each process writes its CPU profile when closed, named after its function', async () => {
  const profiles = mkdtempSync(path.join(os.tmpdir(), 'bench-profiles-'));
  const before = process.env.BENCH_CPU_PROFILE;
  process.env.BENCH_CPU_PROFILE = profiles;
  try {
    const { startFunction, PROFILE_DIR } = load();
    expect(PROFILE_DIR).toBe(profiles);
    const fn = await startFunction(path.join(dir, 'index.js'), {}, { name: 'Profiled', memoryMb: 1769, timeoutMs: 30_000 });
    expect((await fn.invoke({ Records: [1, 2] })).result).toEqual({ records: 2, name: 'Profiled', left: true });
    await fn.close();
    expect(readdirSync(profiles)).toEqual([expect.stringMatching(/^Profiled-\d+\.cpuprofile$/)]);
  } finally {
    if (before === undefined) delete process.env.BENCH_CPU_PROFILE;
    else process.env.BENCH_CPU_PROFILE = before;
    rmSync(profiles, { recursive: true, force: true });
  }
});
