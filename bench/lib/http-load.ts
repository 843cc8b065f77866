import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
}

/**
 * autocannon in its own process (so the load generator does not share the event loop of the
 * servers under test), for a fixed duration; the first second is a warm-up and not measured.
 */
export async function httpLoad(url: string, options: { seconds: number; connections: number }): Promise<LoadResult> {
  const cli = path.join(path.dirname(require.resolve('autocannon/package.json')), 'autocannon.js');
  const args = (seconds: number) => [cli, '--json', '--duration', String(seconds), '--connections', String(options.connections), url];
  await run(process.execPath, args(1), { maxBuffer: 16 * 1024 * 1024 });
  const { stdout } = await run(process.execPath, args(options.seconds), { maxBuffer: 16 * 1024 * 1024 });
  const out = JSON.parse(stdout);
  return {
    requestsPerSecond: out.requests.total / out.duration,
    p50Ms: out.latency.p50,
    p99Ms: out.latency.p99,
    total: out.requests.total,
    non2xx: out.non2xx,
    errors: out.errors + out.timeouts,
    statuses: Object.fromEntries(Object.entries((out.statusCodeStats ?? {}) as Record<string, { count: number }>).map(([code, s]) => [code, s.count])),
  };
}
