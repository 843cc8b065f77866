/**
 * Sandbox: in-process latency (p50/p99) of each sandbox operation through its Lambda handler
 * module (body parsing, validation, evaluation, problem boundary), on the published examples;
 * and each sandbox function's deployed bundle: its size, how much of it is AWS SDK (none: the
 * sandbox reaches no AWS resource) and its cold init in a fresh Node.js process.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { sandboxOperations } from '../../functions/contract/operations/sandbox';
import { SANDBOX_EXAMPLES } from '../../functions/domain/sandbox/examples';
import { logger } from '../../functions/logging/logger';
import { bundle } from '../lib/bundle';
import { sandboxEvent } from '../lib/events';
import { coldInit } from '../lib/cold-start';
import { median, percentile, round, timeCalls } from '../lib/stats';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const WARMUP = 50;
const ITERATIONS = 1000;
const COLD_STARTS = 5;

/** The examples measured: one per operation, plus the heaviest cases (every provider, a STEP_UP search, a FAIL). */
const MEASURED = [
  'test-clock-advanced',
  'provider-commerce-source',
  'provider-identity-verifier',
  'provider-wallet',
  'provider-payment-processor',
  'provider-credential-status',
  'trust-policy-baseline-allow',
  'trust-policy-baseline-step-up',
  'trust-policy-custom',
  'offline-verification-pass',
  'offline-verification-fail',
];

const context = { functionName: 'bench', awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

function operationFor(pathname: string) {
  const op = sandboxOperations.find((o) => new RegExp(`^${o.path.replace('{providerId}', '[^/]+')}$`).test(pathname));
  if (!op || op.integration.kind !== 'lambda') throw new Error(`no sandbox Lambda operation serves ${pathname}`);
  return { op, entry: op.integration.entry };
}

async function latencyRows(root: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const name of MEASURED) {
    const example = SANDBOX_EXAMPLES.find((e) => e.name === name);
    if (!example) throw new Error(`no sandbox example named ${name}`);
    const { op, entry } = operationFor(example.path);
    const handler = require(path.join(root, entry)).handler as Handler;
    const event = sandboxEvent(op.path, example.path, example.body);
    const samples = await timeCalls(async () => {
      const out = await handler(event, context);
      if (out.statusCode !== 200) throw new Error(`${name} answered ${out.statusCode}: ${out.body}`);
    }, ITERATIONS, WARMUP);
    const note = `${op.operationId}; ${ITERATIONS} sequential in-process handler calls after ${WARMUP} warm-up; request ${Buffer.byteLength(event.body!)} B`;
    rows.push({ metric: `${name} p50`, value: round(percentile(samples, 50)), unit: 'ms', note });
    rows.push({ metric: `${name} p99`, value: round(percentile(samples, 99)), unit: 'ms', note });
  }
  return rows;
}

async function bundleRows(root: string): Promise<BenchRow[]> {
  const out = await mkdtemp(path.join(os.tmpdir(), 'bench-sandbox-'));
  const rows: BenchRow[] = [];
  try {
    for (const op of sandboxOperations) {
      if (op.integration.kind !== 'lambda') continue;
      const built = await bundle(op.integration.entry, path.join(out, op.operationId), root);
      const sdkBytes = built.largest.filter((c) => c.name.startsWith('@aws-sdk/') || c.name.startsWith('@smithy/')).reduce((sum, c) => sum + c.bytes, 0);
      const top = built.largest.slice(0, 3).map((c) => `${c.name} ${round(c.bytes / 1024, 1)} KiB`).join(', ');
      rows.push({ metric: `${op.operationId} bundle`, value: round(built.bytes / 1024, 1), unit: 'KiB', note: `minified, as deployed; largest: ${top}` });
      rows.push({ metric: `${op.operationId} AWS SDK in bundle`, value: sdkBytes, unit: 'bytes', note: 'access none: no AWS client is bundled' });
      const inits: number[] = [];
      for (let i = 0; i < COLD_STARTS; i++) inits.push((await coldInit(built.file, { POWERTOOLS_LOG_LEVEL: 'SILENT' })).readyMs);
      rows.push({ metric: `${op.operationId} cold init`, value: round(median(inits)), unit: 'ms', note: `process start to handler ready, median of ${COLD_STARTS} fresh processes` });
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
  return rows;
}

export const section: BenchSection = {
  name: 'sandbox',
  // The sandbox needs no store: the local service is never started here.
  run: async (ctx: BenchContext): Promise<BenchRow[]> => {
    logger.setLogLevel('SILENT');
    return [...(await latencyRows(ctx.root)), ...(await bundleRows(ctx.root))];
  },
};
