/**
 * Surfaces: in-process latency of the trust-fabric, trust-infrastructure, readiness and page
 * handlers (the Lambda handler modules, real AWS SDK, embedded store with the demo data). Bundle
 * size and cold init of every function are measured by the core section.
 */
import path from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { surfacesOperations } from '../../functions/contract/operations/surfaces';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { logger } from '../../functions/logging/logger';
import { percentile, round, timeCalls } from '../lib/stats';
import { getEvent, lambdaContext, type LambdaHandler } from '../lib/events';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';

type Handler = LambdaHandler;

const WARMUP = 30;
const ITERATIONS = 400;

const event = getEvent;
const context = lambdaContext;

/** What each handler is called with: a representative request (a demo reference for the pages). */
const REQUESTS: Record<string, APIGatewayProxyEvent> = {
  getTrustFabricCatalogue: event('/v1/trust-fabric/catalogue', '/v1/trust-fabric/catalogue', null, null),
  getTrustInfrastructure: event('/v1/trust-infrastructure', '/v1/trust-infrastructure', null, null),
  getActivationReadiness: event('/v1/activation-readiness', '/v1/activation-readiness', null, null),
  getProductionFoundations: event('/v1/activation-readiness/production-foundations', '/v1/activation-readiness/production-foundations', null, null),
  getStudio: event('/studio', '/studio', null, null),
  getVerifyPage: event('/verify', '/verify', null, { reference: DEMO_OBJECTS.current }),
  getTrustReceipt: event('/trust-receipt/{reference}', `/trust-receipt/${DEMO_OBJECTS.current}`, { reference: DEMO_OBJECTS.current }, null),
};

async function latencyRows(root: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const op of surfacesOperations) {
    if (op.integration.kind !== 'lambda') continue;
    const handler = require(path.join(root, op.integration.entry)).handler as Handler;
    const request = REQUESTS[op.operationId];
    const samples = await timeCalls(async () => {
      const out = await handler(request, context);
      if (out.statusCode !== 200) throw new Error(`${op.operationId} answered ${out.statusCode}`);
    }, ITERATIONS, WARMUP);
    const reads = op.integration.access === 'table-read' ? 'one store read each' : 'no I/O';
    const note = `${ITERATIONS} sequential in-process calls after ${WARMUP} warm-up; ${reads}`;
    rows.push({ metric: `${op.operationId} p50`, value: round(percentile(samples, 50)), unit: 'ms', note });
    rows.push({ metric: `${op.operationId} p99`, value: round(percentile(samples, 99)), unit: 'ms', note });
  }
  return rows;
}

export const section: BenchSection = {
  name: 'surfaces',
  run: async (ctx: BenchContext): Promise<BenchRow[]> => {
    logger.setLogLevel('SILENT');
    // Starting the local service loads the demo data and points the handlers at its store.
    await ctx.service();
    return [...(await latencyRows(ctx.root))];
  },
};
