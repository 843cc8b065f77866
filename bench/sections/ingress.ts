/**
 * Ingress (docs/ingress.md): in-process latency (p50/p99) of the lifecycle receiver's Lambda
 * handler on the local service's embedded store: a new delivery (verify, validate, one Query,
 * one conditional PutItem, 202) and a replayed one (the same webhook-id: the conditional write
 * fails and the stored answer is read back); and the Standard Webhooks verification alone
 * (v1 through the standardwebhooks package, v1a with node:crypto Ed25519).
 */
import { generateKeyPairSync, sign as edSign } from 'node:crypto';
import path from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { parseVerificationKeys, verifyDelivery } from '../../functions/domain/ingress/signature';
import { buildEvent, devSecrets, newWebhookId, signedHeaders } from '../../lib/ingress/emit';
import { DEV_INGRESS_SECRETS_FILE } from '../../lib/local/service';
import { lambdaContext, type LambdaHandler } from '../lib/events';
import { percentile, round, timeCalls } from '../lib/stats';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';

const WARMUP = 50;
const ITERATIONS = 1000;

function postEvent(body: string, headers: Record<string, string>): APIGatewayProxyEvent {
  return {
    resource: '/v1/lifecycle/events',
    path: '/v1/lifecycle/events',
    httpMethod: 'POST',
    headers: { host: 'bench.local', 'x-forwarded-proto': 'https', 'content-type': 'application/cloudevents+json', ...headers },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: { path: '/v1/lifecycle/events', requestId: 'bench-request', domainName: 'bench.local', stage: 'bench', httpMethod: 'POST' } as APIGatewayProxyEvent['requestContext'],
  };
}

const pair = (name: string, samples: number[], unit: string, note: string): BenchRow[] => [
  { metric: `${name} p50`, value: round(percentile(samples, 50)), unit, note },
  { metric: `${name} p99`, value: round(percentile(samples, 99)), unit, note },
];

async function run(ctx: BenchContext): Promise<BenchRow[]> {
  await ctx.service();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const handler = require(path.join(ctx.root, 'functions/handlers/receive-lifecycle-event.ts')).handler as LambdaHandler;
  const secret = devSecrets(DEV_INGRESS_SECRETS_FILE)['service-platform'];
  const body = JSON.stringify(buildEvent('svc.living-object.authority-observed.v1', DEMO_OBJECTS.current, { state: 'DELIVERED' }));
  const rows: BenchRow[] = [];

  const accepted = await timeCalls(async () => {
    const out = await handler(postEvent(body, signedHeaders(body, [secret], { id: newWebhookId() })), lambdaContext);
    if (out.statusCode !== 202) throw new Error(`accept answered ${out.statusCode}: ${out.body}`);
  }, ITERATIONS, WARMUP);
  rows.push(...pair('accept (new webhook-id) 202', accepted, 'ms', `${ITERATIONS} sequential in-process handler calls after ${WARMUP} warm-up; one Query + one conditional PutItem on the embedded store`));

  const replayHeaders = signedHeaders(body, [secret], { id: newWebhookId() });
  const original = await handler(postEvent(body, replayHeaders), lambdaContext);
  if (original.statusCode !== 202) throw new Error(`the delivery to replay answered ${original.statusCode}`);
  const replayed = await timeCalls(async () => {
    const out = await handler(postEvent(body, replayHeaders), lambdaContext);
    if (out.statusCode !== 202 || out.headers?.['webhook-replayed'] !== 'true') throw new Error(`replay answered ${out.statusCode}`);
  }, ITERATIONS, WARMUP);
  rows.push(...pair('replay (same webhook-id) 202', replayed, 'ms', 'the conditional write fails; the stored answer is answered again (GetItem when the store does not return the old item)'));

  const v1Keys = parseVerificationKeys([secret]).keys;
  const v1Headers = signedHeaders(body, [secret]);
  const v1 = await timeCalls(async () => {
    if (!verifyDelivery(body, v1Headers, v1Keys).ok) throw new Error('v1 did not verify');
  }, ITERATIONS * 5, WARMUP);
  rows.push(...pair('verify v1 (HMAC-SHA256, standardwebhooks)', v1.map((ms) => ms * 1000), 'µs', `${ITERATIONS * 5} calls; body ${Buffer.byteLength(body)} B`));

  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const whpk = 'whpk_' + Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
  const v1aKeys = parseVerificationKeys([whpk]).keys;
  const id = newWebhookId();
  const ts = String(Math.floor(Date.now() / 1000));
  const v1aHeaders = { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1a,${edSign(null, Buffer.from(`${id}.${ts}.${body}`), privateKey).toString('base64')}` };
  const v1a = await timeCalls(async () => {
    if (!verifyDelivery(body, v1aHeaders, v1aKeys).ok) throw new Error('v1a did not verify');
  }, ITERATIONS * 5, WARMUP);
  rows.push(...pair('verify v1a (Ed25519, node:crypto)', v1a.map((ms) => ms * 1000), 'µs', `${ITERATIONS * 5} calls`));
  return rows;
}

export const section: BenchSection = { name: 'ingress', run };
