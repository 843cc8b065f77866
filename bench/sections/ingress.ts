/**
 * Ingress (docs/ingress.md), on the local service's embedded store:
 *   - the lifecycle receiver's Lambda handler in process, with no sequencer running: a new
 *     delivery (verify, validate, the event's and the delivery's items read with the record's
 *     window, then two conditional PutItems sent together, 202), a retried one (same webhook-id)
 *     and the same event under a new webhook-id;
 *     the Standard Webhooks verification alone (v1 and v1a);
 *   - the sequencer's throughput: the same deliveries integrated in full batches
 *     (DEFAULT_BATCH_SIZE) and one at a time, each on a table of its own with the same demo data;
 *   - from a 202 to the moment the local HTTP read path shows the new state with evidence that
 *     verifies, with the in-process sequencer running as `npm start` runs it;
 *   - the object read path on a record that received events, against the same record untouched.
 *
 * Every part shares one embedded store (tables of their own): the handlers keep one store client
 * per process (functions/store/client.ts), bound to the first endpoint they use, but read the
 * table name on every request, so a fresh table is a fresh service for them.
 */
import { generateKeyPairSync, sign as edSign } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { DEMO_OBJECTS } from '../../fixtures/demo';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { verifyEvidence } from '../../functions/domain/ledger/node-crypto';
import { parseVerificationKeys, verifyDelivery } from '../../functions/domain/ingress/signature';
import { sequenceAll, DEFAULT_BATCH_SIZE, type SequencerRun } from '../../functions/ledger-writer/sequencer';
import { directoryTileStore } from '../../functions/ledger-writer/tile-store';
import { tableStores } from '../../functions/store/dynamodb';
import { buildEvent, deliver, devSecrets, newWebhookId, senderOf, signedHeaders } from '../../lib/ingress/emit';
import { devLedgerSigner } from '../../lib/ledger/dev-key';
import { DEV_INGRESS_SECRETS_FILE, localClient, startLocalService, type LocalService } from '../../lib/local/service';
import { getEvent, lambdaContext, type LambdaHandler } from '../lib/events';
import { elapsedMs, median, percentile, ratio, round, timeCalls } from '../lib/stats';
import { countStoreRequests } from '../lib/store-requests';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';

const WARMUP = 50;
const ITERATIONS = 1000;

/** Deliveries integrated by the sequencer, per mode: 3 objects x 150 state changes, 25 observations, 25 source snapshots. */
const CHANGES_EACH = 150;
const OBSERVATIONS = 25;
const SNAPSHOTS = 25;
/** Deliveries timed from their 202 to a verified read (sent one after another). */
const VISIBLE = 50;
/** Events a record has received, in all, when its read is compared with the untouched record. */
const READ_AFTER_EVENTS = 200;
const READ_WARMUP = 100;
const READ_ITERATIONS = 1000;
/** How often a read is tried while waiting for an event to show: short next to the sequencer's 150 ms polling. */
const POLL_MS = 10;
const VISIBLE_TIMEOUT_MS = 15_000;

const GOOD_STANDING = ['PLACED', 'CONFIRMED', 'FULFILLED', 'SHIPPED', 'DELIVERED', 'IN_SERVICE', 'ACTIVE', 'VALID'];
const STATE_CHANGED = 'svc.living-object.state-changed.v1';
const OBSERVED = 'svc.living-object.authority-observed.v1';
const SNAPSHOT = 'svc.commercial-proof.source-snapshot.v1';

function postEvent(resource: string, requestPath: string, pathParameters: Record<string, string> | null, body: string, headers: Record<string, string>): APIGatewayProxyEvent {
  return {
    resource,
    path: requestPath,
    httpMethod: 'POST',
    headers: { host: 'bench.local', 'x-forwarded-proto': 'https', 'content-type': 'application/cloudevents+json', ...headers },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: { path: requestPath, requestId: 'bench-request', domainName: 'bench.local', stage: 'bench', httpMethod: 'POST' } as APIGatewayProxyEvent['requestContext'],
  };
}

const lifecycleEvent = (body: string, headers: Record<string, string>) => postEvent('/v1/lifecycle/events', '/v1/lifecycle/events', null, body, headers);

const pair = (name: string, samples: number[], unit: string, note: string): BenchRow[] => [
  { metric: `${name} p50`, value: round(percentile(samples, 50)), unit, note },
  { metric: `${name} p99`, value: round(percentile(samples, 99)), unit, note },
];

const handlerAt = (ctx: BenchContext, entry: string) => require(path.join(ctx.root, entry)).handler as LambdaHandler;

/** A fresh table with the demo data, in the store of `base`, served by its own HTTP server. */
const freshService = (ctx: BenchContext, base: LocalService, table: string, sequencer: boolean) =>
  startLocalService({ port: 0, endpoint: base.storeEndpoint, table, loadDemo: true, sequencer, anchor: ctx.anchor });

async function getJson(url: string): Promise<any> {
  const res = await fetch(url);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Receiver latency with nothing else running against the store. */
async function receiverRows(ctx: BenchContext): Promise<BenchRow[]> {
  const handler = handlerAt(ctx, 'functions/handlers/receive-lifecycle-event.ts');
  const secret = devSecrets(DEV_INGRESS_SECRETS_FILE)['service-platform'];
  const body = JSON.stringify(buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }));
  const rows: BenchRow[] = [];

  // A new event each time (its own CloudEvents id), signed beforehand: the same event again is a replay.
  const newEvents = Array.from({ length: WARMUP + ITERATIONS }, () => {
    const eventBody = JSON.stringify(buildEvent(OBSERVED, DEMO_OBJECTS.current, { state: 'DELIVERED' }));
    return lifecycleEvent(eventBody, signedHeaders(eventBody, [secret], { id: newWebhookId() }));
  });
  let next = 0;
  const accepted = await timeCalls(async () => {
    const out = await handler(newEvents[next++], lambdaContext);
    if (out.statusCode !== 202 || out.headers?.['webhook-replayed']) throw new Error(`accept answered ${out.statusCode}: ${out.body}`);
  }, ITERATIONS, WARMUP);
  rows.push(
    ...pair(
      'accept (new event, new webhook-id) 202',
      accepted,
      'ms',
      `${ITERATIONS} sequential in-process handler calls after ${WARMUP} warm-up, no sequencer running; one BatchGetItem (the event's and the delivery's items) and the record's two Queries at once, then two conditional PutItems sent together (the event's claim and the note of the delivery) on the embedded store`,
    ),
  );

  const replayHeaders = signedHeaders(body, [secret], { id: newWebhookId() });
  const original = await handler(lifecycleEvent(body, replayHeaders), lambdaContext);
  if (original.statusCode !== 202) throw new Error(`the delivery to replay answered ${original.statusCode}`);
  const replayed = await timeCalls(async () => {
    const out = await handler(lifecycleEvent(body, replayHeaders), lambdaContext);
    if (out.statusCode !== 202 || out.headers?.['webhook-replayed'] !== 'true') throw new Error(`replay answered ${out.statusCode}`);
  }, ITERATIONS, WARMUP);
  rows.push(...pair('replay (same webhook-id) 202', replayed, 'ms', 'the same reads; the stored event is answered again, nothing is written'));

  const sameEvent = await timeCalls(async () => {
    const out = await handler(lifecycleEvent(body, signedHeaders(body, [secret], { id: newWebhookId() })), lambdaContext);
    if (out.statusCode !== 202 || out.headers?.['webhook-replayed'] !== 'true') throw new Error(`the same event answered ${out.statusCode}`);
  }, ITERATIONS, WARMUP);
  rows.push(...pair('replay (same event, new webhook-id) 202', sameEvent, 'ms', 'the same reads; the stored event is answered, one conditional PutItem notes the delivery'));

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

interface Delivery {
  type: string;
  body: string;
}

/**
 * The deliveries the sequencer integrates: state changes cycling through good-standing states
 * (each differs from the one before and from the loaded one, so the rules accept every one),
 * authority observations and source snapshots, at distinct instants of the last minute (newer
 * than every demo entry), listed in the order of their instants.
 */
async function throughputDeliveries(service: LocalService): Promise<Delivery[]> {
  const base = Date.now() - 60_000;
  const instant = (i: number) => new Date(base + i * 20).toISOString();
  const out: { at: number; delivery: Delivery }[] = [];
  const changed = [DEMO_OBJECTS.current, DEMO_OBJECTS.stale, DEMO_OBJECTS.modified];
  for (const reference of changed) {
    const loaded = await getJson(`${service.url}/v1/objects/${reference}`);
    const cycle = GOOD_STANDING.filter((s) => s !== loaded.current.state);
    for (let i = 0; i < CHANGES_EACH; i++) {
      const n = i * 4 + changed.indexOf(reference);
      const body = JSON.stringify(buildEvent(STATE_CHANGED, reference, { objectType: loaded.object.objectType, previousState: loaded.current.state, state: cycle[i % cycle.length] }, instant(n)));
      out.push({ at: n, delivery: { type: STATE_CHANGED, body } });
    }
  }
  const observed = await getJson(`${service.url}/v1/objects/${DEMO_OBJECTS.longHistory}`);
  for (let i = 0; i < OBSERVATIONS; i++) {
    const n = i * 4 + 3;
    out.push({ at: n, delivery: { type: OBSERVED, body: JSON.stringify(buildEvent(OBSERVED, DEMO_OBJECTS.longHistory, { objectType: observed.object.objectType, state: observed.current.state }, instant(n))) } });
  }
  for (let i = 0; i < SNAPSHOTS; i++) {
    const n = i * 4 + 3 + 2 * OBSERVATIONS * 4;
    out.push({ at: n, delivery: { type: SNAPSHOT, body: JSON.stringify(buildEvent(SNAPSHOT, DEMO_PROOFS.current, { sourceState: i % 2 ? 'DELIVERED' : 'SHIPPED' }, instant(n))) } });
  }
  return out.sort((a, b) => a.at - b.at).map((d) => d.delivery);
}

/** Stores each delivery through its receiver's handler (into the table the environment names now). */
async function accept(ctx: BenchContext, deliveries: readonly Delivery[]): Promise<void> {
  const lifecycle = handlerAt(ctx, 'functions/handlers/receive-lifecycle-event.ts');
  const webhook = handlerAt(ctx, 'functions/handlers/receive-webhook.ts');
  const secrets = devSecrets(DEV_INGRESS_SECRETS_FILE);
  for (const d of deliveries) {
    const { sourceId, path: requestPath } = senderOf(d.type);
    const headers = signedHeaders(d.body, [secrets[sourceId]], { id: newWebhookId() });
    const out =
      sourceId === 'service-platform'
        ? await lifecycle(lifecycleEvent(d.body, headers), lambdaContext)
        : await webhook(postEvent('/v1/webhooks/{sourceId}', requestPath, { sourceId }, d.body, headers), lambdaContext);
    if (out.statusCode !== 202) throw new Error(`a ${d.type} delivery answered ${out.statusCode}: ${out.body}`);
  }
}

/** sequenceAll over one table, timed; every delivery must end up integrated. */
async function sequenceTimed(service: LocalService, table: string, batchSize: number, expected: number): Promise<{ ms: number; runs: SequencerRun[]; requests: number }> {
  const client = localClient(service.storeEndpoint);
  const { signer } = await devLedgerSigner();
  // Only the sequencer talks to the store while it runs: every receiver is idle, no loop is running.
  const counter = countStoreRequests(service.storeEndpoint);
  try {
    const start = process.hrtime.bigint();
    const runs = await sequenceAll({ ...tableStores(client, table), signer, tiles: directoryTileStore(service.tilesDir), batchSize });
    const ms = elapsedMs(start);
    const sequenced = runs.reduce((n, r) => n + r.sequenced, 0);
    if (sequenced !== expected) throw new Error(`batch size ${batchSize}: ${sequenced} of ${expected} deliveries integrated (${JSON.stringify(runs.flatMap((r) => Object.values(r.reasons)).slice(0, 3))})`);
    return { ms, runs, requests: counter.count };
  } finally {
    counter.stop();
    client.destroy();
  }
}

async function throughputRows(ctx: BenchContext, base: LocalService): Promise<BenchRow[]> {
  // Both tables are loaded and given the same deliveries before either is sequenced.
  const batched = await freshService(ctx, base, 'bench-batched', false);
  const single = await freshService(ctx, base, 'bench-one-at-a-time', false);
  try {
    const deliveries = await throughputDeliveries(batched);
    process.env.TABLE_NAME = 'bench-batched';
    await accept(ctx, deliveries);
    process.env.TABLE_NAME = 'bench-one-at-a-time';
    await accept(ctx, deliveries);

    const n = deliveries.length;
    const many = await sequenceTimed(batched, 'bench-batched', DEFAULT_BATCH_SIZE, n);
    const one = await sequenceTimed(single, 'bench-one-at-a-time', 1, n);
    const perSecond = (t: { ms: number }) => (n * 1000) / t.ms;
    const batches = (t: { runs: SequencerRun[] }) => t.runs.filter((r) => r.deliveries > 0).length;
    const mix = `${n} deliveries (${3 * CHANGES_EACH} state changes on 3 objects, ${OBSERVATIONS} observations, ${SNAPSHOTS} source snapshots), stored through the receivers, then sequenceAll; dev Ed25519 signer, tiles in a folder`;
    return [
      { metric: 'sequencer throughput ratio batched/one at a time', value: ratio(perSecond(many), perSecond(one)), unit: 'x', note: `the same ${n} deliveries on two tables with the same demo data, one after the other` },
      { metric: `sequencer throughput, batches of ${DEFAULT_BATCH_SIZE}`, value: round(perSecond(many), 1), unit: 'events/s', note: `${mix}; ${round(many.ms / 1000, 2)} s` },
      { metric: `sequencer batches (= signed checkpoints), batches of ${DEFAULT_BATCH_SIZE}`, value: batches(many), unit: 'batches', note: `one signature per batch; ${round(many.ms / batches(many), 1)} ms a batch` },
      { metric: `store requests per delivery, batches of ${DEFAULT_BATCH_SIZE}`, value: round(many.requests / n, 2), unit: 'requests', note: `${many.requests} HTTP requests to the store in all` },
      { metric: 'sequencer throughput, one at a time (batches of 1)', value: round(perSecond(one), 1), unit: 'events/s', note: `the same deliveries; ${round(one.ms / 1000, 2)} s` },
      { metric: 'sequencer batches (= signed checkpoints), one at a time', value: batches(one), unit: 'batches', note: `${round(one.ms / batches(one), 1)} ms a batch` },
      { metric: 'store requests per delivery, one at a time', value: round(one.requests / n, 2), unit: 'requests', note: `${one.requests} HTTP requests to the store in all` },
    ];
  } finally {
    await single.close();
    await batched.close();
  }
}

/**
 * State changes sent one after another over HTTP to a service whose sequencer runs in process;
 * each is timed from its 202 to the first read showing it with evidence that verifies. Then more
 * changes, up to READ_AFTER_EVENTS in all, so the read-path part finds a record that received them.
 */
async function visibilityRows(service: LocalService, reference: string): Promise<BenchRow[]> {
  const keys = [process.env.LEDGER_VERIFIER_KEYS!];
  const secret = devSecrets(DEV_INGRESS_SECRETS_FILE)['service-platform'];
  const objectUrl = `${service.url}/v1/objects/${encodeURIComponent(reference)}`;
  const loaded = await getJson(objectUrl);
  const cycle = GOOD_STANDING.filter((s) => s !== loaded.current.state);
  let previous: string = loaded.current.state;
  const send = async (i: number) => {
    const state = cycle[i % cycle.length];
    const body = JSON.stringify(buildEvent(STATE_CHANGED, reference, { objectType: loaded.object.objectType, previousState: previous, state }));
    const res = await deliver(service.url, '/v1/lifecycle/events', body, signedHeaders(body, [secret], { id: newWebhookId() }));
    if (res.status !== 202) throw new Error(`change ${i} answered ${res.status}: ${JSON.stringify(res.body)}`);
    previous = state;
    return { state, eventTime: (res.body as { eventTime: string }).eventTime };
  };

  const samples: number[] = [];
  let reads = 0;
  for (let i = 0; i < VISIBLE; i++) {
    const { state, eventTime } = await send(i);
    const answered = process.hrtime.bigint();
    for (;;) {
      const view = await getJson(objectUrl);
      reads++;
      if (view.object.state === state && view.object.stateSince === eventTime && verifyEvidence(view.object, view.current.ledger, keys).ok) break;
      if (elapsedMs(answered) > VISIBLE_TIMEOUT_MS) throw new Error(`change ${i} (${state} at ${eventTime}) not visible and verified after ${VISIBLE_TIMEOUT_MS} ms`);
      await sleep(POLL_MS);
    }
    samples.push(elapsedMs(answered));
  }
  // The rest of the events the read-path part needs, each integrated before the next is sent: the
  // receiver checks a change against the integrated state, which must differ from the new one.
  for (let i = VISIBLE; i < READ_AFTER_EVENTS; i++) {
    await send(i);
    await service.sequencer!.drain();
  }
  const after = await getJson(objectUrl);
  if (after.object.state !== previous) throw new Error(`after ${READ_AFTER_EVENTS} changes ${reference} shows ${after.object.state}, not ${previous}`);

  return pair('202 to visible and verified (local HTTP read)', samples, 'ms', `${VISIBLE} state changes sent one after another over HTTP; the in-process sequencer polls every 150 ms; a read every ${POLL_MS} ms until GET /v1/objects shows the state and its evidence verifies (${round(reads / VISIBLE, 1)} reads per change)`);
}

/**
 * resolveObject in process: the record after READ_AFTER_EVENTS integrated events (table `after`)
 * against the same record untouched (table `before`, the same demo data), calls interleaved so
 * both see the same machine conditions; and the store requests one read takes in each.
 */
async function readPathRows(ctx: BenchContext, service: LocalService, reference: string, before: string, after: string): Promise<BenchRow[]> {
  const handler = handlerAt(ctx, 'functions/handlers/resolve-object.ts');
  const event = (limit?: number) => getEvent('/v1/objects/{reference}', `/v1/objects/${encodeURIComponent(reference)}`, { reference }, limit ? { limit: String(limit) } : null);
  const EQUAL_WINDOW = 3;
  const variants = [
    { key: 'before', table: before, event: event() },
    { key: 'after', table: after, event: event() },
    { key: 'beforeEqual', table: before, event: event(EQUAL_WINDOW) },
    { key: 'afterEqual', table: after, event: event(EQUAL_WINDOW) },
  ];
  const samples = new Map<string, number[]>(variants.map((v) => [v.key, []]));
  const entries = new Map<string, number>();
  const requests = new Map<string, number>();
  const counter = countStoreRequests(service.storeEndpoint);
  try {
    for (let i = 0; i < READ_WARMUP + READ_ITERATIONS; i++) {
      for (const v of variants) {
        // The handlers read the table name on every request.
        process.env.TABLE_NAME = v.table;
        counter.reset();
        const start = process.hrtime.bigint();
        const out = await handler(v.event, lambdaContext);
        const ms = elapsedMs(start);
        if (out.statusCode !== 200) throw new Error(`${v.key}: resolveObject answered ${out.statusCode}: ${out.body}`);
        if (i >= READ_WARMUP) samples.get(v.key)!.push(ms);
        if (i === READ_WARMUP) {
          requests.set(v.key, counter.count);
          const body = JSON.parse(out.body);
          if (!body.current.evidenceIntegrityConfirmed) throw new Error(`${v.key}: the evidence of ${reference} was not confirmed`);
          entries.set(v.key, body.timeline.length);
        }
      }
    }
  } finally {
    counter.stop();
  }
  const p50 = (key: string) => median(samples.get(key)!);
  const note = `${READ_ITERATIONS} in-process handler calls each after ${READ_WARMUP} warm-up, interleaved; the same demo record untouched vs after ${READ_AFTER_EVENTS} integrated events`;
  return [
    { metric: `read path ratio after/before events, p50 (resolveObject ${reference})`, value: ratio(p50('after'), p50('before')), unit: 'x', note: `${note}; default window: ${entries.get('before')} timeline entries returned before, ${entries.get('after')} after` },
    { metric: `read path ratio after/before events, equal window (limit=${EQUAL_WINDOW}), p50`, value: ratio(p50('afterEqual'), p50('beforeEqual')), unit: 'x', note: 'the same amount of data returned: what the longer history alone costs' },
    { metric: 'read path p50 before events', value: round(p50('before')), unit: 'ms', note: `p99 ${round(percentile(samples.get('before')!, 99))} ms` },
    { metric: `read path p50 after ${READ_AFTER_EVENTS} events`, value: round(p50('after')), unit: 'ms', note: `p99 ${round(percentile(samples.get('after')!, 99))} ms` },
    { metric: 'store requests per object read before events', value: requests.get('before')!, unit: 'requests/read', note: 'every HTTP request the SDK sent to the store during one read' },
    { metric: `store requests per object read after ${READ_AFTER_EVENTS} events`, value: requests.get('after')!, unit: 'requests/read', note: 'no sequencer running while counted' },
  ];
}

async function run(ctx: BenchContext): Promise<BenchRow[]> {
  // Not ctx.service(): that one runs the sequencer, which would share the store (and the CPU) with the receiver being timed.
  const base = await startLocalService({ port: 0, sequencer: false, anchor: ctx.anchor });
  const baseTable = process.env.TABLE_NAME!;
  try {
    const rows = await receiverRows(ctx);
    rows.push(...(await throughputRows(ctx, base)));

    const reference = DEMO_OBJECTS.current;
    // Sequencer on, as `npm start` runs it. The untouched twin of its record is the base table's:
    // the receiver part left deliveries pending there, and nothing integrates them.
    const live = await freshService(ctx, base, 'bench-visible', true);
    try {
      rows.push(...(await visibilityRows(live, reference)));
      // Nothing but the measured reads against the store from here.
      await live.sequencer!.stop();
      rows.push(...(await readPathRows(ctx, base, reference, baseTable, 'bench-visible')));
    } finally {
      await live.close();
    }
    return rows;
  } finally {
    await base.close();
  }
}

export const section: BenchSection = { name: 'ingress', run };
