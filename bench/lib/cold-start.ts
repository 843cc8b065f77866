import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BENCH_LOG_LEVEL, nodeOptionsFor } from '../../lib/stack/bundling';

const run = promisify(execFile);

/**
 * Loads a bundle in a fresh Node.js process, as Lambda's runtime does at cold start, and reports
 * the milliseconds from the process's start to a callable handler export (performance.now()
 * counts from the process's time origin), and how much of that the require itself took.
 */
const PROBE = `
const started = performance.now();
const mod = require(process.argv[1]);
if (typeof mod.handler !== 'function') { console.error('no handler export'); process.exit(3); }
process.stdout.write(JSON.stringify({ readyMs: performance.now(), requireMs: performance.now() - started }));
`;

export interface ColdInit {
  readyMs: number;
  requireMs: number;
}

export async function coldInit(bundleFile: string, env: Record<string, string>): Promise<ColdInit> {
  const { stdout } = await run(process.execPath, [...(nodeOptionsFor(BENCH_LOG_LEVEL)?.split(' ') ?? []), '-e', PROBE, bundleFile], {
    // Only what the function's configuration would hold: no tsx loader, no inherited NODE_OPTIONS.
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return JSON.parse(stdout) as ColdInit;
}
