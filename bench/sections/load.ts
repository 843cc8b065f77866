/**
 * Load: the local service driven at full rate by autocannon in its own process for 60 s in all,
 * 15 s on each of four routes: a current object read (one store Query), a commercial proof read,
 * a developer document (from disk) and a refused request (404 problem details). Reports
 * throughput, p50/p99, transport errors and unexpected statuses (both must be 0), and the
 * service process's memory before, during and after: memory that keeps growing under a steady
 * load would be a leak.
 *
 * The store runs in its own process (`npm run store`, demo data loaded through the loader), as
 * the table is outside the functions on AWS, so the memory measured is the service's own. The
 * store process's resident memory is reported beside it.
 */
import { readFileSync } from 'node:fs';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { logger } from '../../functions/logging/logger';
import { startLocalService } from '../../lib/local/service';
import { httpLoad } from '../lib/http-load';
import { round } from '../lib/stats';
import { freePort, startStore } from '../lib/store-process';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';

const SECONDS_PER_ROUTE = Number(process.env.LOAD_SECONDS_PER_ROUTE ?? 15);
const CONNECTIONS = 10;

const ROUTES: { name: string; path: string; expect: number }[] = [
  { name: 'object read', path: `/v1/objects/${DEMO_OBJECTS.current}`, expect: 200 },
  { name: 'proof read', path: `/v1/commercial-proofs/${DEMO_PROOFS.current}`, expect: 200 },
  { name: 'developer document', path: '/developers/catalogue.json', expect: 200 },
  { name: 'unknown reference', path: '/v1/objects/ORD-0000-NONE', expect: 404 },
];

const MiB = 1024 * 1024;

/** Resident memory of another process (Linux /proc), in MiB. */
function rssOf(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return kib / 1024;
}

function memory(): { rss: number; heap: number } {
  global.gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss / MiB, heap: m.heapUsed / MiB };
}

export const section: BenchSection = {
  name: 'load',
  run: async (ctx: BenchContext): Promise<BenchRow[]> => {
    logger.setLogLevel('SILENT');
    const storePort = await freePort();
    const store = await startStore(ctx.root, storePort);
    const service = await startLocalService({ port: 0, endpoint: `http://127.0.0.1:${storePort}`, loadDemo: true, anchor: ctx.anchor });
    try {
      return await drive(service.url, store.pid!);
    } finally {
      await service.close();
      store.kill('SIGKILL');
    }
  },
};

async function drive(url: string, storePid: number): Promise<BenchRow[]> {
  const storeBefore = rssOf(storePid);
  // Warm every route once so start-of-run memory includes loaded handler modules.
  for (const route of ROUTES) await (await fetch(`${url}${route.path}`)).arrayBuffer();
  const before = memory();
  const rows: BenchRow[] = [];
  let errors = 0;
  let unexpected = 0;
  const note = `${SECONDS_PER_ROUTE} s, ${CONNECTIONS} connections, autocannon in its own process`;
  const heapAfterEachRoute: number[] = [];
  for (const route of ROUTES) {
    const result = await httpLoad(`${url}${route.path}`, { seconds: SECONDS_PER_ROUTE, connections: CONNECTIONS });
    errors += result.errors;
    unexpected += Object.entries(result.statuses).filter(([code]) => Number(code) !== route.expect).reduce((n, [, count]) => n + count, 0);
    rows.push({ metric: `${route.name}: throughput`, value: round(result.requestsPerSecond, 0), unit: 'req/s', note });
    rows.push({ metric: `${route.name}: p50 / p99`, value: result.p99Ms, unit: 'ms p99', note: `p50 ${result.p50Ms} ms; ${result.total} requests` });
    heapAfterEachRoute.push(round(memory().heap, 1));
  }
  const after = memory();
  rows.push({ metric: 'transport errors and time-outs (must be 0)', value: errors, unit: 'count' });
  rows.push({ metric: 'answers with an unexpected status (must be 0)', value: unexpected, unit: 'count' });
  rows.push({ metric: 'service process RSS: start / end', value: round(after.rss / before.rss, 2), unit: 'x', note: `${round(before.rss, 1)} MiB -> ${round(after.rss, 1)} MiB` });
  rows.push({ metric: 'service process heap used: start / end', value: round(after.heap / before.heap, 2), unit: 'x', note: `${round(before.heap, 1)} MiB -> ${round(after.heap, 1)} MiB${global.gc ? ' (after gc)' : ''}` });
  // A leak grows with the requests served; a warm-up grows once and stays.
  rows.push({ metric: 'service process heap used: after the first route / after the last', value: round(heapAfterEachRoute.at(-1)! / heapAfterEachRoute[0], 2), unit: 'x', note: `after each route: ${heapAfterEachRoute.join(', ')} MiB` });
  const storeAfter = rssOf(storePid);
  rows.push({ metric: 'store process (dynalite) RSS: start / end', value: round(storeAfter / storeBefore, 2), unit: 'x', note: `${round(storeBefore, 1)} MiB -> ${round(storeAfter, 1)} MiB` });
  if (errors > 0 || unexpected > 0) throw new Error(`load: ${errors} transport errors and ${unexpected} unexpected statuses`);
  return rows;
}
