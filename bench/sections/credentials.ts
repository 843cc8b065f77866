/**
 * Credentials: in-process latency of the verify, vc.json and status-list handlers (the Lambda
 * handler modules, real AWS SDK, embedded store with the demo data loaded through the loader),
 * the size of a published status list and the cost of encoding a busy one. Bundle size and cold
 * init of every function are measured by the core section.
 */
import path from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { DEMO_CREDENTIALS, DEMO_STATUS_LISTS } from '../../fixtures/demo-credentials';
import { credentialsOperations } from '../../functions/contract/operations/credentials';
import { encodeStatusList, MIN_STATUS_LIST_ENTRIES } from '../../functions/domain/credentials/bitstring';
import { logger } from '../../functions/logging/logger';
import { median, percentile, round, timeCalls } from '../lib/stats';
import { getEvent, lambdaContext, type LambdaHandler } from '../lib/events';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';

type Handler = LambdaHandler;

const WARMUP = 30;
const ITERATIONS = 400;
const DAY = 86_400_000;

const event = getEvent;
const context = lambdaContext;

/** Representative requests: an active credential (it passes every check) and the suspension list, now and as of 20 days ago. */
function requests(anchor: Date): { label: string; operationId: string; event: APIGatewayProxyEvent }[] {
  const id = DEMO_CREDENTIALS.active;
  const listId = DEMO_STATUS_LISTS.suspension;
  const list = (query: Record<string, string> | null) => event('/v1/status-lists/{listId}', `/v1/status-lists/${listId}`, { listId }, query);
  return [
    { label: 'verifyCredential', operationId: 'verifyCredential', event: event('/v1/credentials/verify/{claimId}', `/v1/credentials/verify/${id}`, { claimId: id }) },
    { label: 'getPortableCredential', operationId: 'getPortableCredential', event: event('/v1/portable-credentials/{claimId}/vc.json', `/v1/portable-credentials/${id}/vc.json`, { claimId: id }) },
    { label: 'getStatusList', operationId: 'getStatusList', event: list(null) },
    { label: 'getStatusList ?timestamp=', operationId: 'getStatusList', event: list({ timestamp: new Date(anchor.getTime() - 20 * DAY).toISOString() }) },
  ];
}

function handlerOf(root: string, operationId: string): Handler {
  const op = credentialsOperations.find((o) => o.operationId === operationId)!;
  if (op.integration.kind !== 'lambda') throw new Error(`${operationId} is not a Lambda operation`);
  return require(path.join(root, op.integration.entry)).handler as Handler;
}

async function latencyRows(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const r of requests(ctx.anchor)) {
    const handler = handlerOf(ctx.root, r.operationId);
    const samples = await timeCalls(async () => {
      const out = await handler(r.event, context);
      if (out.statusCode !== 200) throw new Error(`${r.label} answered ${out.statusCode}`);
    }, ITERATIONS, WARMUP);
    const note = `${ITERATIONS} sequential in-process calls after ${WARMUP} warm-up; one Query each against the embedded store`;
    rows.push({ metric: `${r.label} p50`, value: round(percentile(samples, 50)), unit: 'ms', note });
    rows.push({ metric: `${r.label} p99`, value: round(percentile(samples, 99)), unit: 'ms', note });
  }
  const list = await handlerOf(ctx.root, 'getStatusList')(requests(ctx.anchor)[2].event, context);
  rows.push({ metric: 'status list response', value: round(Buffer.byteLength(list.body) / 1024, 2), unit: 'KiB', note: `${MIN_STATUS_LIST_ENTRIES} entries, demo bits set` });
  return rows;
}

/** A busy list: 1% of the entries set at scattered, reproducible positions (randomness is GZIP's worst case). */
function encodingRows(): BenchRow[] {
  const busy = new Set<number>();
  for (let x = 0x9e3779b9; busy.size < MIN_STATUS_LIST_ENTRIES / 100; ) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    busy.add((x >>> 0) % MIN_STATUS_LIST_ENTRIES);
  }
  let encoded = '';
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    const start = process.hrtime.bigint();
    encoded = encodeStatusList(busy);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return [
    { metric: 'status list encode (1% set)', value: round(median(times)), unit: 'ms', note: 'bitstring + GZIP + base64url, done by the loader once per list version; median of 21' },
    { metric: 'status list encodedList (1% set)', value: round(encoded.length / 1024, 2), unit: 'KiB' },
  ];
}

export const section: BenchSection = {
  name: 'credentials',
  run: async (ctx: BenchContext): Promise<BenchRow[]> => {
    logger.setLogLevel('SILENT');
    // Starting the local service loads the demo data (credentials and derived status lists) and points the handlers at its store.
    await ctx.service();
    return [...(await latencyRows(ctx)), ...encodingRows()];
  },
};
