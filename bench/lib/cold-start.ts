import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { SERVICE_NAME } from '../../functions/contract/service';
import { BENCH_LOG_LEVEL, nodeOptionsFor } from '../../lib/stack/bundling';
import type { LambdaOperation } from '../../lib/stack/operation-functions';

const run = promisify(execFile);

/**
 * Loads a bundle in a fresh Node.js process, as Lambda's runtime does at cold start, and reports
 * the milliseconds from the process's start to a callable handler export (performance.now()
 * counts from the process's time origin), and how much of that the require itself took. With an
 * event, it then answers that one request and reports when the answer was ready: init plus the
 * first invocation (for a function that reads the table, the SDK client's set-up and one Query).
 */
const PROBE = `
const started = performance.now();
const mod = require(process.argv[1]);
if (typeof mod.handler !== 'function') { console.error('no handler export'); process.exit(3); }
const readyMs = performance.now();
const cpu = process.cpuUsage();
const result = { readyMs, requireMs: readyMs - started, cpuMs: (cpu.user + cpu.system) / 1000 };
if (!process.argv[2]) { process.stdout.write(JSON.stringify(result)); return; }
const context = { awsRequestId: 'bench', functionName: 'bench', getRemainingTimeInMillis: () => 10000 };
Promise.resolve(mod.handler(JSON.parse(process.argv[2]), context)).then((out) => {
  if (!out || out.statusCode !== 200) { console.error('status ' + (out && out.statusCode) + ' ' + (out && out.body)); process.exit(4); }
  const cpuAnswered = process.cpuUsage();
  process.stdout.write(JSON.stringify({ ...result, answeredMs: performance.now(), answeredCpuMs: (cpuAnswered.user + cpuAnswered.system) / 1000 }));
});
`;

export interface ColdInit {
  readyMs: number;
  requireMs: number;
  /**
   * CPU time (user + system) the process had used when the handler was ready: what the start cost
   * the machine, which other work on the machine does not stretch the way it stretches wall time.
   */
  cpuMs: number;
  /** With an event: process start to the first answer. */
  answeredMs?: number;
  /** With an event: CPU time used by the first answer. */
  answeredCpuMs?: number;
}

/** The Node options a deployed function starts with at the bench's log level (lib/stack/bundling.ts). */
export const FUNCTION_NODE_OPTIONS = nodeOptionsFor(BENCH_LOG_LEVEL)?.split(' ') ?? [];

export async function coldInit(bundleFile: string, env: Record<string, string>, event?: APIGatewayProxyEvent | object): Promise<ColdInit> {
  const { stdout } = await run(process.execPath, [...FUNCTION_NODE_OPTIONS, '-e', `(() => {${PROBE}})()`, bundleFile, ...(event ? [JSON.stringify(event)] : [])], {
    // Only what the function's configuration would hold: no tsx loader, no inherited NODE_OPTIONS.
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  // The function's own log lines come first (INFO, as deployed); the probe's figures are the last line.
  return JSON.parse(stdout.trim().split('\n').pop()!) as ColdInit;
}

/** The environment a deployed function starts with (lib/stack/operation-functions.ts), minus real resources. */
export function functionEnvironment(op: LambdaOperation | null): Record<string, string> {
  return {
    AWS_REGION: 'eu-central-1',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    POWERTOOLS_LOG_LEVEL: 'INFO',
    // The public origin the stack configures; answers that carry links are made from it.
    PUBLIC_BASE_URL: 'https://trust.example.org',
    ...(op?.integration.access === 'table-read' ? { TABLE_NAME: 'records', LEDGER_VERIFIER_KEYS: '' } : {}),
    ...(op?.integration.access === 'bucket-read' ? { CATALOGUE_BUCKET: 'catalogue' } : {}),
  };
}
