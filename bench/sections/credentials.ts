/**
 * Credential routes: in-process handler latency (the Lambda handler modules, real AWS SDK,
 * embedded DynamoDB-compatible store with the demo credentials loaded through the loader), the
 * size of a published status list, and the cost of encoding one.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { DEMO_CREDENTIALS, DEMO_STATUS_LISTS, demoCredentialRecords } from '../../fixtures/demo-credentials';
import { encodeStatusList, MIN_STATUS_LIST_ENTRIES } from '../../functions/domain/credentials/bitstring';
import { handler as getPortableCredential } from '../../functions/handlers/get-portable-credential';
import { handler as getStatusList } from '../../functions/handlers/get-status-list';
import { handler as verifyCredential } from '../../functions/handlers/verify-credential';
import { logger } from '../../functions/http/boundary';
import { storeClient } from '../../functions/store/client';
import { startEmbeddedStore } from '../../lib/local/embedded-store';
import { configureLocalEnvironment, localClient } from '../../lib/local/service';
import { loadDocument } from '../../lib/loader/load';

export interface BenchResult {
  metric: string;
  value: number;
  unit: string;
  note?: string;
}

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const WARMUP = 30;
const ITERATIONS = 400;
const TABLE = 'bench-credentials';

function event(resource: string, path: string, pathParameters: Record<string, string>, query: Record<string, string> | null = null): APIGatewayProxyEvent {
  return {
    resource,
    path,
    httpMethod: 'GET',
    headers: { host: 'bench.local', 'x-forwarded-proto': 'http' },
    multiValueHeaders: {},
    queryStringParameters: query,
    multiValueQueryStringParameters: null,
    pathParameters,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { path, requestId: 'bench', domainName: 'bench.local' } as APIGatewayProxyEvent['requestContext'],
  };
}
const context = { functionName: 'bench', awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const round = (ms: number) => Math.round(ms * 1000) / 1000;

async function latency(name: string, handler: Handler, e: APIGatewayProxyEvent): Promise<BenchResult[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    const start = process.hrtime.bigint();
    const out = await handler(e, context);
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (out.statusCode !== 200) throw new Error(`${name} answered ${out.statusCode}`);
    if (i >= WARMUP) samples.push(elapsed);
  }
  samples.sort((a, b) => a - b);
  const note = `${ITERATIONS} sequential in-process calls after ${WARMUP} warm-up, one Query each against the embedded store`;
  return [
    { metric: `${name} p50`, value: round(percentile(samples, 50)), unit: 'ms', note },
    { metric: `${name} p99`, value: round(percentile(samples, 99)), unit: 'ms', note },
  ];
}

export const section = {
  name: 'credentials',
  run: async (): Promise<BenchResult[]> => {
    const previousLevel = logger.getLevelName();
    logger.setLogLevel('SILENT');
    const store = await startEmbeddedStore();
    configureLocalEnvironment(store.endpoint, TABLE);
    const client = localClient(store.endpoint);
    try {
      await loadDocument({ records: demoCredentialRecords(new Date()) }, { client, table: TABLE, createTable: true });
      const id = DEMO_CREDENTIALS.active;
      const listId = DEMO_STATUS_LISTS.suspension;
      const results: BenchResult[] = [
        ...(await latency('verify credential', verifyCredential as Handler, event('/v1/credentials/verify/{claimId}', `/v1/credentials/verify/${id}`, { claimId: id }))),
        ...(await latency('portable credential (vc.json)', getPortableCredential as Handler, event('/v1/portable-credentials/{claimId}/vc.json', `/v1/portable-credentials/${id}/vc.json`, { claimId: id }))),
        ...(await latency('status list (current)', getStatusList as Handler, event('/v1/status-lists/{listId}', `/v1/status-lists/${listId}`, { listId }))),
        ...(await latency(
          'status list (?timestamp=)',
          getStatusList as Handler,
          event('/v1/status-lists/{listId}', `/v1/status-lists/${listId}`, { listId }, { timestamp: new Date(Date.now() - 20 * 86_400_000).toISOString() }),
        )),
      ];

      const list = await (getStatusList as Handler)(event('/v1/status-lists/{listId}', `/v1/status-lists/${listId}`, { listId }), context);
      results.push({ metric: 'status list response size', value: Buffer.byteLength(list.body), unit: 'bytes', note: `${MIN_STATUS_LIST_ENTRIES} entries, demo bits set` });

      // A busy list: 1% of the entries set at scattered, reproducible positions (the worst case for GZIP is randomness).
      const busy = new Set<number>();
      for (let x = 0x9e3779b9; busy.size < MIN_STATUS_LIST_ENTRIES / 100; ) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        busy.add((x >>> 0) % MIN_STATUS_LIST_ENTRIES);
      }
      const encodeTimes: number[] = [];
      let encoded = '';
      for (let i = 0; i < 21; i++) {
        const start = process.hrtime.bigint();
        encoded = encodeStatusList(busy);
        encodeTimes.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      encodeTimes.sort((a, b) => a - b);
      results.push({ metric: 'status list encode (1% set) p50', value: round(percentile(encodeTimes, 50)), unit: 'ms', note: 'bitstring + GZIP (default level) + base64url, done by the loader once per list version; 21 runs' });
      results.push({ metric: 'status list encodedList (1% set)', value: encoded.length, unit: 'bytes' });
      return results;
    } finally {
      client.destroy();
      storeClient().destroy();
      await store.close();
      logger.setLogLevel(previousLevel);
    }
  },
};
