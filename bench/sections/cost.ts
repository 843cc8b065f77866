/**
 * cost (docs/capacity.md#the-cost-model): dollars per million origin reads of each main route, per
 * million reads behind an edge at 90% and 95% hits, per million ingested events (one per delivery,
 * the sequencer's batches holding 1 and 500 events, measured, and 100 between them; and in
 * deliveries of 100, CloudEvents' JSON batch format), each with the receiver's and the sequencer's share by line item, and a month of a small, a medium and a large
 * deployment; what the events leave in storage and what a year of them costs a month to keep;
 * itemized, from quantities measured in this run and the dated price table bench/prices.json
 * (us-east-1).
 *
 * Measured here, per request: every byte each function writes to stdout and stderr (its log lines,
 * the sequencer's metric line), its CPU time, the DynamoDB units its requests consume (the
 * accounting proxy, DynamoDB's sizing rules), its S3 and KMS calls, its AWS calls made one after
 * another, the answer's bytes (gzip-compressed as API Gateway and CloudFront compress them). Read
 * from the stack as it synthesizes: each function's memory, architecture and log settings (Lambda's
 * log format and levels, its log group's class), the API's access log format and class, the alarms.
 * Assumed (and said in each row's note and in docs/capacity.md): the billed duration from CPU time
 * and call latencies, Lambda's own platform lines, the access log line's values, the 26 bytes a log
 * event costs beside its message.
 */
import { gzipSync } from 'node:zlib';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { demoDocument } from '../../fixtures/demo';
import { LEDGER_LOG } from '../../functions/contract/site-paths';
import type { AccountingSnapshot } from '../lib/capacity/aws-proxy';
import { drainSequencer, integrateStreamed, keepSequencerStream, scheduledEvent, startDeployedFunction, startSequencer, type SequencerSummary } from '../lib/capacity/functions';
import { asBatch, MixState, mixRecords } from '../lib/capacity/mix';
import { COST_ROUTES, operation } from '../lib/capacity/routes';
import { BENCH_BUCKET, benchS3Client, startBenchAws, type BenchAws } from '../lib/capacity/stand-ins';
import { STREAM_BATCH_SIZE } from '../../lib/stack/sequencer';
import { PROVISIONED_DEFAULTS } from '../../lib/stack/table-capacity';
import {
  accessLogLine,
  GB,
  addUsage,
  billedMs,
  gbSeconds,
  itemized,
  loadPrices,
  logBytes,
  platformLines,
  price,
  scaled,
  throughEdge,
  ON_DEMAND,
  rate,
  total,
  type Bill,
  type PriceTable,
  type TableBilling,
  type Usage,
} from '../lib/cost/model';
import { SEQUENCER, stackFacts, synthesizedTemplate, type FunctionFacts, type StackFacts } from '../lib/cost/stack-facts';
import { storedBytes, storedSince, ITEM_STORAGE_OVERHEAD_BYTES, type StoredBytes } from '../lib/cost/storage';
import { localClient } from '../../lib/local/service';
import type { FunctionProcess, Invocation } from '../lib/lambda-process';
import { median, round } from '../lib/stats';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';
import { sendAll, startReceivers, type ReceiverPool } from './capacity';

const REFERENCES = 200;
const SAMPLES = Number(process.env.BENCH_COST_SAMPLES ?? 12);
const WARMUP = 3;
const SINGLE_BATCHES = 8;
/** Events in one delivery of CloudEvents' JSON batch format, as priced. */
const DELIVERY_BATCH = 100;
/** A full sequencer batch (what every batch holds under a backlog). */
const FULL_BATCH = STREAM_BATCH_SIZE;
/** Sequencer batches priced per event: full, what a second's stream window holds at 100 events a second, and one (a quiet hour). */
const PRICED_BATCHES = [FULL_BATCH, 100, 1];
const EDGE_HIT_RATIOS = [0.9, 0.95];
/** Headers API Gateway or CloudFront add to an answer (request ids, date, via): an assumption. */
const GATEWAY_HEADER_BYTES = 250;
const MILLION = 1_000_000;
const SECONDS_PER_MONTH = 30.4 * 86_400;

/** What one invocation used, as measured. */
interface Measured {
  cpuMs: number;
  /** Everything the function wrote. */
  logText: string;
  readUnits: number;
  writeUnits: number;
  s3Gets: number;
  s3Puts: number;
  kmsRequests: number;
  sequential: AccountingSnapshot['trips']['sequentialByService'];
}

/** Invokes `call` with the proxy's figures reset before and read after: what that one invocation used. */
async function measured<R>(aws: BenchAws, call: () => Promise<Invocation<R>>): Promise<{ invocation: Invocation<R>; used: Measured }> {
  await aws.control.reset();
  const invocation = await call();
  if (invocation.error) throw new Error(invocation.error);
  const s = await aws.control.snapshot();
  const count = (calls: Record<string, number>, match: (name: string) => boolean) => Object.entries(calls).reduce((n, [name, c]) => n + (match(name) ? c : 0), 0);
  return {
    invocation,
    used: {
      cpuMs: invocation.cpuMs,
      logText: invocation.logText,
      readUnits: s.totals.readUnits,
      writeUnits: s.totals.writeUnits,
      s3Gets: count(s.calls.s3, (n) => n.startsWith('GET') || n.startsWith('HEAD')),
      s3Puts: count(s.calls.s3, (n) => n.startsWith('PUT') || n.startsWith('POST')),
      kmsRequests: count(s.calls.kms, (n) => n === 'Sign'),
      sequential: s.trips.sequentialByService,
    },
  };
}

/** The mean of each measured quantity over invocations, the CPU time's median (robust to a busy machine's outliers). */
function typical(samples: Measured[]): Measured {
  const mean = (f: (m: Measured) => number) => samples.reduce((n, m) => n + f(m), 0) / samples.length;
  return {
    cpuMs: median(samples.map((m) => m.cpuMs)),
    // The median by length: an invocation the 1% sampling picked writes its whole story, and must not stand for every read.
    logText: samples.map((m) => m.logText).sort((a, b) => a.length - b.length)[Math.floor(samples.length / 2)],
    readUnits: mean((m) => m.readUnits),
    writeUnits: mean((m) => m.writeUnits),
    s3Gets: mean((m) => m.s3Gets),
    s3Puts: mean((m) => m.s3Puts),
    kmsRequests: mean((m) => m.kmsRequests),
    sequential: { dynamodb: mean((m) => m.sequential.dynamodb), s3: mean((m) => m.sequential.s3), kms: mean((m) => m.sequential.kms) },
  };
}

/** Bytes the function's own lines, Lambda's platform lines and the access log line cost, by log class. */
function logUsage(fn: FunctionFacts, m: Measured, durationMs: number, accessLog?: string, accessClass?: FunctionFacts['logClass']): Usage {
  const own = logBytes(m.logText).bytes + logBytes(platformLines(fn, fn.memoryMb, durationMs)).bytes;
  const usage: Usage = fn.logClass === 'INFREQUENT_ACCESS' ? { logBytesInfrequentAccess: own } : { logBytesStandard: own };
  if (accessLog !== undefined) {
    const line = logBytes(`${accessLog}\n`).bytes;
    return addUsage(usage, accessClass === 'INFREQUENT_ACCESS' ? { logBytesInfrequentAccess: line } : { logBytesStandard: line });
  }
  return usage;
}

function lambdaUsage(fn: FunctionFacts, m: Measured): { usage: Usage; billed: number } {
  const billed = billedMs(m.cpuMs, fn.memoryMb, m.sequential);
  const seconds = gbSeconds(fn.memoryMb, billed);
  return { billed, usage: { lambdaRequests: 1, ...(fn.architecture === 'arm64' ? { lambdaGbSecondsArm: seconds } : { lambdaGbSecondsX86: seconds }) } };
}

/** Bytes on the wire: gzip-compressed (as API Gateway and CloudFront compress answers of 1 KB and more for a client that accepts it) and headers. */
function wireBytes(result: APIGatewayProxyResult): { raw: number; sent: number } {
  const body = Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8');
  const compressed = body.length >= 1024 ? gzipSync(body, { level: 6 }).length : body.length;
  const headers = Object.entries(result.headers ?? {}).reduce((n, [k, v]) => n + k.length + String(v).length + 4, 0) + GATEWAY_HEADER_BYTES;
  return { raw: body.length, sent: compressed + headers };
}

function functionFacts(facts: StackFacts, id: string): FunctionFacts {
  const fn = facts.functions.get(id);
  if (!fn) throw new Error(`the synthesized stack has no function for ${id}`);
  return fn;
}

interface ReadCost {
  name: string;
  /** What a read that reaches the origin costs behind the edge (the stack's defaults: no API access log). */
  origin: Usage;
  /** The same read with the API as the public entry (edge=false: the stage writes its access log line). */
  bareOrigin: Usage;
  /** Bytes the viewer receives (the edge's data transfer out). */
  viewerBytes: number;
  note: string;
}

async function readCosts(root: string, aws: BenchAws, facts: StackFacts, bare: StackFacts): Promise<ReadCost[]> {
  const out: ReadCost[] = [];
  const functions = new Map<string, FunctionProcess>();
  try {
    for (const route of COST_ROUTES) {
      const op = operation(route.operationId);
      if (!functions.has(op.operationId)) functions.set(op.operationId, await startDeployedFunction(root, aws, op.integration.entry, 'table-read', op.operationId));
      const fn = functions.get(op.operationId)!;
      for (let i = 0; i < WARMUP; i++) await fn.invoke(route.event());
      const samples: Measured[] = [];
      let result: APIGatewayProxyResult | undefined;
      for (let i = 0; i < SAMPLES; i++) {
        const { invocation, used } = await measured(aws, () => fn.invoke<APIGatewayProxyResult>(route.event()));
        if (invocation.result.statusCode !== 200) throw new Error(`${route.name} answered ${invocation.result.statusCode}`);
        result = invocation.result;
        samples.push(used);
      }
      const m = typical(samples);
      const config = functionFacts(facts, op.operationId);
      const wire = wireBytes(result!);
      const lambda = lambdaUsage(config, m);
      const event = route.event();
      const accessOf = (f: StackFacts) => (f.accessLog ? accessLogLine(f.accessLog.format, { method: 'GET', resourcePath: op.path, path: event.path, status: 200, responseLength: wire.sent }) : undefined);
      const originOf = (f: StackFacts): Usage => ({ apiGatewayRequests: 1, apiGatewayBytesOut: wire.sent, dynamodbReadUnits: m.readUnits, ...lambda.usage, ...logUsage(config, m, lambda.billed, accessOf(f), f.accessLog?.logClass) });
      const access = accessOf(bare);
      out.push({
        name: route.name,
        viewerBytes: wire.sent,
        origin: originOf(facts),
        bareOrigin: originOf(bare),
        note: `${m.readUnits} RU, ${round(m.cpuMs, 2)} ms CPU -> ${lambda.billed} ms billed at ${config.memoryMb} MB ${config.architecture}, ${logBytes(m.logText).events} log lines of the function (${logBytes(m.logText).bytes} B billed) + Lambda's (${config.logFormat}${config.systemLogLevel ? ` ${config.systemLogLevel}` : ''}, ${logBytes(platformLines(config, config.memoryMb, lambda.billed)).bytes} B) in ${config.logClass}${access ? `; without the edge + access log ${logBytes(`${access}\n`).bytes} B in ${bare.accessLog!.logClass}` : ''}; answer ${wire.raw} B, ${wire.sent} B sent`,
      });
    }
  } finally {
    for (const fn of functions.values()) await fn.close();
  }

  // A tile of the log: API Gateway reads it from the bucket (an S3 integration, no function).
  const s3 = benchS3Client(aws);
  try {
    const tile = await (await s3.send(new GetObjectCommand({ Bucket: BENCH_BUCKET, Key: `${LEDGER_LOG.keyPrefix}tile/0/000` }))).Body!.transformToByteArray();
    const sent = tile.length + GATEWAY_HEADER_BYTES;
    const accessBytesOf = (f: StackFacts) =>
      f.accessLog ? logBytes(`${accessLogLine(f.accessLog.format, { method: 'GET', resourcePath: `${LEDGER_LOG.path}tile/{tilePath}`, path: `${LEDGER_LOG.path}tile/0/000`, status: 200, responseLength: sent })}\n`).bytes : 0;
    const originOf = (f: StackFacts): Usage => ({
      apiGatewayRequests: 1,
      apiGatewayBytesOut: sent,
      s3Gets: 1,
      ...(f.accessLog?.logClass === 'INFREQUENT_ACCESS' ? { logBytesInfrequentAccess: accessBytesOf(f) } : { logBytesStandard: accessBytesOf(f) }),
    });
    out.push({
      name: 'tile',
      viewerBytes: sent,
      origin: originOf(facts),
      bareOrigin: originOf(bare),
      note: `a full hash tile (${tile.length} B, not compressible) from the bucket through API Gateway's S3 integration: one S3 GET, no function; without the edge an access log line of ${accessBytesOf(bare)} B`,
    });
  } finally {
    s3.destroy();
  }
  return out;
}

interface IngestCosts {
  /** One delivery to a receiver through the stack's entry: the edge (CloudFront, never cached) in front of API Gateway, the function, its store requests and logs. */
  delivery: Usage;
  /** The same delivery posted to the API's own URL (output ApiUrl), past the edge. */
  directDelivery: Usage;
  /** The same delivery where the API is the public entry (edge=false: its stage writes an access log line). */
  bareDelivery: Usage;
  deliveryNote: string;
  /** One delivery of DELIVERY_BATCH events (CloudEvents' JSON batch format) to a receiver, through the stack's entry. */
  batchDelivery: Usage;
  batchDeliveryNote: string;
  /** One sequencer invocation integrating a batch of 1 and of FULL_BATCH events, and one finding nothing (the minute's schedule). */
  batchOfOne: Usage;
  batchOfMany: Usage;
  idleTick: Usage;
  batchNotes: string[];
  /** Events accepted and integrated in all (every delivery above, and the warm-up's). */
  events: number;
}

/**
 * Headers a delivery carries to the origin besides its body (an assumption): the source's own
 * (webhook-id, webhook-timestamp, a webhook-signature, content-type, user-agent) and those the
 * edge adds (Via, X-Amz-Cf-Id, X-Forwarded-For, CloudFront-Viewer-*).
 */
const DELIVERY_HEADER_BYTES = 600;

async function ingestCosts(root: string, aws: BenchAws, facts: StackFacts, bare: StackFacts, state: MixState): Promise<IngestCosts> {
  const receivers: ReceiverPool = await startReceivers(root, aws, 1);
  const sequencer = await startSequencer(root, aws);
  try {
    const lifecycle = functionFacts(facts, operation('receiveLifecycleEvent').operationId);
    const seq = functionFacts(facts, SEQUENCER);
    // Warm both: a first delivery and its batch (the minute's tick: it looks at the pending index, so the stream's runs after it need not).
    const warm = await sendAll(receivers, state.deliveries({ events: 2, references: REFERENCES, hotShare: 0, seed: 1, integratedMeanwhile: true }), 1);
    if (warm.some((w) => w.result.statusCode !== 202)) throw new Error('a warm-up delivery was not accepted');
    await drainSequencer(aws, sequencer);
    // From here the sequencer is woken as AWS wakes it: by the stream batch of what was delivered.
    await keepSequencerStream(aws);

    const deliveries: Measured[] = [];
    const bodyBytes: number[] = [];
    let receipt: APIGatewayProxyResult | undefined;
    const deliver = async (count: number, seed: number) => {
      for (const d of state.deliveries({ events: count, references: REFERENCES, hotShare: 0.25, seed, integratedMeanwhile: true })) {
        const { invocation, used } = await measured(aws, () => receivers.deliver(d));
        if (invocation.result.statusCode !== 202) throw new Error(`a delivery answered ${invocation.result.statusCode}: ${invocation.result.body}`);
        receipt = invocation.result;
        deliveries.push(used);
        bodyBytes.push(Buffer.byteLength(d.body, 'utf8'));
      }
    };
    const sequence = async (expected: number) => {
      const { invocation, used } = await measured(aws, async () => {
        const runs = await integrateStreamed(aws, sequencer);
        if (runs.length !== 1) throw new Error(`${expected} events delivered woke the sequencer ${runs.length} times`);
        return runs[0];
      });
      if (invocation.result.sequenced !== expected || invocation.result.batches !== 1) throw new Error(`a run integrated ${invocation.result.sequenced} of ${expected} in ${invocation.result.batches} batches (${invocation.result.deliveries} taken, ${invocation.result.setAside} set aside)`);
      return used;
    };

    const single: Measured[] = [];
    for (let i = 0; i < SINGLE_BATCHES; i++) {
      await deliver(1, 100 + i);
      single.push(await sequence(1));
    }
    await deliver(FULL_BATCH, 200);
    const many = await sequence(FULL_BATCH);
    const idle = (await measured(aws, () => sequencer.invoke<SequencerSummary>(scheduledEvent()))).used;
    const batched = await deliverBatches(aws, receivers, sequencer, state);

    /** A delivery at the origin, as the stack `f` serves it: API Gateway, the function, its store requests, its logs and the stage's access log line if it writes one. */
    const atOrigin = (f: StackFacts, m: Measured, status: number, sent: number): Usage => {
      const l = lambdaUsage(lifecycle, m);
      const access = f.accessLog ? accessLogLine(f.accessLog.format, { method: 'POST', resourcePath: '/v1/lifecycle/events', path: '/v1/lifecycle/events', status, responseLength: sent }) : undefined;
      return { apiGatewayRequests: 1, apiGatewayBytesOut: sent, dynamodbReadUnits: m.readUnits, dynamodbWriteUnits: m.writeUnits, ...l.usage, ...logUsage(lifecycle, m, l.billed, access, f.accessLog?.logClass) };
    };
    /** Through the stack's entry: the edge when it has one (every delivery a CloudFront request, its body and headers sent on to the origin), else the API. */
    const throughEntry = (origin: Usage, sent: number, requestBytes: number): Usage => (facts.edge ? throughEdge(origin, sent, 0, requestBytes) : origin);

    const d = typical(deliveries);
    const dLambda = lambdaUsage(lifecycle, d);
    const wire = wireBytes(receipt!);
    const dBody = median(bodyBytes);
    const delivery = throughEntry(atOrigin(facts, d, 202, wire.sent), wire.sent, dBody + DELIVERY_HEADER_BYTES);

    const batchUsage = (m: Measured) => {
      const l = lambdaUsage(seq, m);
      return {
        usage: { dynamodbReadUnits: m.readUnits, dynamodbWriteUnits: m.writeUnits, s3Gets: m.s3Gets, s3Puts: m.s3Puts, kmsAsymmetricRequests: m.kmsRequests, ...l.usage, ...logUsage(seq, m, l.billed) } as Usage,
        note: `${round(m.readUnits, 1)} RU, ${round(m.writeUnits, 1)} WU, ${round(m.s3Puts, 1)} S3 PUT, ${round(m.s3Gets, 1)} S3 GET, ${round(m.kmsRequests, 1)} KMS Sign, ${round(m.cpuMs, 1)} ms CPU and ${round(m.sequential.dynamodb, 0)}+${round(m.sequential.s3, 0)}+${round(m.sequential.kms, 0)} calls one after another (DynamoDB+S3+KMS) -> ${l.billed} ms billed at ${seq.memoryMb} MB, ${logBytes(m.logText).events} log lines`,
      };
    };
    const one = batchUsage(typical(single));
    const full = batchUsage(many);
    const tick = batchUsage(idle);
    const b = typical(batched.used);
    const bLambda = lambdaUsage(lifecycle, b);
    const bWire = wireBytes(batched.answer);
    const batchDelivery = throughEntry(atOrigin(facts, b, 200, bWire.sent), bWire.sent, batched.bodyBytes + DELIVERY_HEADER_BYTES);
    return {
      batchDelivery,
      batchDeliveryNote: `${DELIVERY_BATCH} events in one delivery (${batched.bodyBytes} B of body): ${round(b.readUnits, 1)} RU, ${round(b.writeUnits, 1)} WU, ${round(b.cpuMs, 1)} ms CPU and ${round(b.sequential.dynamodb, 1)} DynamoDB calls one after another -> ${bLambda.billed} ms billed at ${lifecycle.memoryMb} MB, ${logBytes(b.logText).events} log lines (${logBytes(b.logText).bytes} B); answer ${bWire.raw} B, ${bWire.sent} B sent${facts.edge ? `; through the edge, ${batched.bodyBytes + DELIVERY_HEADER_BYTES} B to the origin` : ''}`,
      delivery,
      directDelivery: atOrigin(facts, d, 202, wire.sent),
      bareDelivery: atOrigin(bare, d, 202, wire.sent),
      deliveryNote: `${round(d.readUnits, 2)} RU, ${round(d.writeUnits, 2)} WU, ${round(d.cpuMs, 2)} ms CPU -> ${dLambda.billed} ms billed at ${lifecycle.memoryMb} MB, ${logBytes(d.logText).events} log lines (${logBytes(d.logText).bytes} B); a body of ${dBody} B${facts.edge ? `, through the edge with ${DELIVERY_HEADER_BYTES} B of headers (assumed) to the origin` : ''}; answer ${wire.raw} B, ${wire.sent} B sent`,
      batchOfOne: one.usage,
      batchOfMany: full.usage,
      idleTick: tick.usage,
      batchNotes: [`batch of 1: ${one.note}`, `batch of ${FULL_BATCH}: ${full.note}`, `nothing waiting: ${tick.note}`],
      events: warm.length + deliveries.length + BATCH_DELIVERIES * DELIVERY_BATCH,
    };
  } finally {
    await receivers.close();
    await sequencer.close();
  }
}

/** BATCH_DELIVERIES deliveries of DELIVERY_BATCH events each (the mix's objects, one source), measured one at a time; each must have every event accepted. */
const BATCH_DELIVERIES = 3;
async function deliverBatches(aws: BenchAws, receivers: ReceiverPool, sequencer: FunctionProcess, state: MixState): Promise<{ used: Measured[]; answer: APIGatewayProxyResult; bodyBytes: number }> {
  const used: Measured[] = [];
  const bodies: number[] = [];
  let answer: APIGatewayProxyResult | undefined;
  for (let i = 0; i < BATCH_DELIVERIES; i++) {
    // No hot share: the hot references include a commercial proof, whose snapshots come from another source.
    const batch = asBatch(state.deliveries({ events: DELIVERY_BATCH, references: REFERENCES, hotShare: 0, seed: 300 + i, integratedMeanwhile: true }));
    const { invocation, used: u } = await measured(aws, () => receivers.deliver(batch));
    const body = JSON.parse(invocation.result.body) as { accepted?: number };
    if (invocation.result.statusCode !== 200 || body.accepted !== DELIVERY_BATCH) throw new Error(`a batch delivery answered ${invocation.result.statusCode}: ${invocation.result.body.slice(0, 500)}`);
    answer = invocation.result;
    used.push(u);
    bodies.push(Buffer.byteLength(batch.body, 'utf8'));
    // Integrated before the next batch, whose changes follow from these (one stream batch).
    await integrateStreamed(aws, sequencer);
  }
  return { used, answer: answer!, bodyBytes: median(bodies) };
}

/** Per event, when the sequencer's batches hold `n` events: a batch's cost grows linearly between the measured batches of 1 and FULL_BATCH. */
function perEvent(ingest: IngestCosts, n: number, sent: Sent = 'one'): Usage {
  return addUsage(receiverShare(ingest, sent), sequencerShare(ingest, n));
}

/**
 * How an event is sent: one per delivery through the stack's entry (the edge by default), one per
 * delivery to the API's own URL, one per delivery where the API is the entry (edge=false), or in a
 * delivery of DELIVERY_BATCH through the entry.
 */
type Sent = 'one' | 'direct' | 'bare' | 'batch';

/** A delivery's share of an event: a whole delivery of one, or a hundredth of a delivery of DELIVERY_BATCH. */
function receiverShare(ingest: IngestCosts, sent: Sent): Usage {
  if (sent === 'batch') return addUsage({}, ingest.batchDelivery, 1 / DELIVERY_BATCH);
  return sent === 'direct' ? ingest.directDelivery : sent === 'bare' ? ingest.bareDelivery : ingest.delivery;
}

/** A sequencer batch's share of an event when it holds `n` events (its cost grows linearly between the measured batches of 1 and FULL_BATCH). */
function sequencerShare(ingest: IngestCosts, n: number): Usage {
  const slope = addUsage(ingest.batchOfMany, ingest.batchOfOne, -1);
  return addUsage({}, addUsage(ingest.batchOfOne, slope, (n - 1) / (FULL_BATCH - 1)), 1 / n);
}

/** Each part of an event's price as dollars per million and its share: the receiver's delivery and the sequencer's batch, each by line item. */
function shares(prices: PriceTable, receiver: Usage, sequencer: Usage, billing: TableBilling = ON_DEMAND): string {
  const r = scaled(price(receiver, prices, billing), MILLION);
  const q = scaled(price(sequencer, prices, billing), MILLION);
  const all = total(r) + total(q);
  const part = (name: string, bill: Bill) =>
    `${name} $${usd(total(bill))} (${round((100 * total(bill)) / all, 1)}%: ${Object.entries(bill)
      .filter(([, v]) => v > 0)
      .sort(([, a], [, b]) => b - a)
      .map(([k, v]) => `${k} $${usd(v)} ${round((100 * v) / all, 1)}%`)
      .join(', ')})`;
  return `${part('receiver', r)}; ${part('sequencer', q)}`;
}

const usd = (n: number) => round(n, n < 10 ? 3 : 2);

/** The table provisioned at the stack's default target utilization (lib/stack/table-capacity.ts). */
const PROVISIONED = { mode: 'provisioned', utilization: PROVISIONED_DEFAULTS.targetUtilizationPercent / 100 } as const satisfies TableBilling;

/**
 * A month's DynamoDB lines with the table provisioned: what the month's units cost at the target
 * utilization (a steady load), but never less than the capacity auto scaling keeps at least (each
 * range's minimum, for the table and for its index).
 */
export function provisionedMonth(bill: Bill, prices: PriceTable, minimum: { read: number; write: number } = { read: PROVISIONED_DEFAULTS.read.min, write: PROVISIONED_DEFAULTS.write.min }): Bill {
  const hours = SECONDS_PER_MONTH / 3600;
  const floor = (name: string, units: number) => 2 * units * hours * rate(prices, name);
  return {
    ...bill,
    'DynamoDB reads': Math.max(bill['DynamoDB reads'] ?? 0, floor('dynamodbProvisionedReadCapacityUnitHour', minimum.read)),
    'DynamoDB writes': Math.max(bill['DynamoDB writes'] ?? 0, floor('dynamodbProvisionedWriteCapacityUnitHour', minimum.write)),
  };
}

/** Reads a month, by route: a mix of what people scan and what relying parties fetch (docs/capacity.md). */
const READ_MIX: Record<string, number> = {
  'object read': 0.55,
  'object read, busy reference': 0.05,
  'trust receipt page': 0.2,
  'commercial proof': 0.1,
  'credential verify': 0.05,
  ledger: 0.04,
  tile: 0.01,
};

const DEPLOYMENTS = [
  { name: 'small', reads: 1_000_000, events: 100_000 },
  { name: 'medium', reads: 30_000_000, events: 3_000_000 },
  { name: 'large', reads: 1_000_000_000, events: 100_000_000 },
];

/** The stream hands the sequencer what arrived within 2 s (its batching window), at most a batch's worth. */
export function eventsPerBatch(eventsPerMonth: number, windowSeconds = 2, batchSize = FULL_BATCH): number {
  return Math.min(batchSize, Math.max(1, (eventsPerMonth / SECONDS_PER_MONTH) * windowSeconds));
}

function monthlyRows(prices: PriceTable, facts: StackFacts, reads: ReadCost[], ingest: IngestCosts): BenchRow[] {
  const fixed: Bill = {
    'CloudWatch alarms': facts.alarms * (prices.prices.cloudwatchAlarmMonth.usd / prices.prices.cloudwatchAlarmMonth.per),
    'custom metric (oldest pending event)': prices.prices.cloudwatchCustomMetricMonth.usd,
    'KMS keys': facts.kmsKeys * prices.prices.kmsKeyMonth.usd,
    'Secrets Manager secrets': facts.secrets * prices.prices.secretsManagerSecretMonth.usd,
  };
  const ticks = (billing: TableBilling) => scaled(price(ingest.idleTick, prices, billing), SECONDS_PER_MONTH / 60);
  const rows: BenchRow[] = [];
  for (const d of DEPLOYMENTS) {
    for (const [hitRatio, billing] of [[0, ON_DEMAND], [0.95, ON_DEMAND], [0.95, PROVISIONED]] as const) {
      let usage: Usage = {};
      for (const r of reads) {
        const share = READ_MIX[r.name] ?? 0;
        usage = addUsage(usage, hitRatio > 0 ? throughEdge(r.origin, r.viewerBytes, hitRatio) : r.bareOrigin, share * d.reads);
      }
      const n = eventsPerBatch(d.events);
      usage = addUsage(usage, perEvent(ingest, n, hitRatio > 0 ? 'one' : 'bare'), d.events);
      // The minute's schedule's units are the table's too: under the provisioned floor with the rest.
      usage = addUsage(usage, ingest.idleTick, SECONDS_PER_MONTH / 60);
      const used = price(usage, prices, billing);
      const bill: Bill = billing.mode === 'provisioned' ? provisionedMonth(used, prices) : used;
      for (const [k, v] of Object.entries(fixed)) bill[k] = v;
      rows.push({
        metric: `month of a ${d.name} deployment, ${hitRatio > 0 ? `behind an edge at ${hitRatio * 100}% hits` : 'no edge (edge=false)'}${billing.mode === 'provisioned' ? ', the table provisioned' : ''}`,
        value: usd(total(bill)),
        unit: '$/month',
        note: `${d.reads.toLocaleString('en-US')} reads (${Object.entries(READ_MIX).map(([k, v]) => `${round(v * 100, 0)}% ${k}`).join(', ')}), ${d.events.toLocaleString('en-US')} events one per delivery (${round(n, 1)} a sequencer batch), the sequencer's schedule every minute (${itemized(ticks(billing), 2)})${billing.mode === 'provisioned' ? `; the table's units at ${PROVISIONED_DEFAULTS.targetUtilizationPercent}% of a steady load's capacity, at least the capacity kept at the least (${PROVISIONED_DEFAULTS.write.min} write and ${PROVISIONED_DEFAULTS.read.min} read units a second, table and index)` : ''}; first-tier prices, storage apart (its own rows): ${itemized(bill, 2)}`,
      });
    }
  }
  return rows;
}

/** Months of events a deployment's storage is priced after: what it holds a year on. */
const STORAGE_MONTHS = 12;

/**
 * What the events measured left in storage, per event: the table's items kept for good (their
 * sizes by DynamoDB's rules and the overhead each is billed), the tile log's bytes, and what
 * expires (weighted by how long it stays); and what a deployment's events of a year then cost a
 * month to keep. The loaded records are not counted, nor any free tier.
 */
function storageRows(prices: PriceTable, kept: StoredBytes, events: number): BenchRow[] {
  const gbMonth = (name: string) => rate(prices, name) / GB;
  const table = kept.forGood / events;
  const log = kept.log / events;
  const expiringByteMonths = kept.expiringByteSeconds / SECONDS_PER_MONTH / events;
  const keptMonth = table * gbMonth('dynamodbStorageGbMonth') + log * gbMonth('s3StorageGbMonth');
  const expiringMonth = expiringByteMonths * gbMonth('dynamodbStorageGbMonth');
  const rows: BenchRow[] = [
    {
      metric: 'storage kept for good per event',
      value: Math.round(table + log),
      unit: 'B/event',
      note: `${events} events accepted and integrated (one per delivery and in deliveries of ${DELIVERY_BATCH}, the mix's changes and observations): the table ${Math.round(table)} B an event (${kept.items} items more, each its size by DynamoDB's rules and ${ITEM_STORAGE_OVERHEAD_BYTES} B of overhead; by key class: ${Object.entries(kept.forGoodByClass).filter(([, b]) => b !== 0).sort(([, a], [, b]) => b - a).map(([c, b]) => `${c} ${Math.round(b / events)} B`).join(', ')}), the tile log ${Math.round(log)} B (${kept.logObjects} objects more); besides, ${Math.round(kept.expiring / events)} B an event that expires (the deliveries' items, 7 days), the pending index ${Math.round(kept.index / events)} B (nothing waits once integrated) and the last batch's journal, ${Math.round(kept.journal / events)} B, which the next batch deletes`,
    },
    {
      metric: 'storage per million events, a month',
      value: usd(MILLION * keptMonth),
      unit: '$/month',
      note: `what a million events leave costs every month it is kept: the table's $${usd(MILLION * table * gbMonth('dynamodbStorageGbMonth'))} (Standard class, $${prices.prices.dynamodbStorageGbMonth.usd} a GB-month), the tile log's $${usd(MILLION * log * gbMonth('s3StorageGbMonth'))} (S3 Standard); once, for what expires: $${usd(MILLION * expiringMonth)}`,
    },
  ];
  for (const d of DEPLOYMENTS) {
    const month = STORAGE_MONTHS * d.events * keptMonth + d.events * expiringMonth;
    rows.push({
      metric: `storage a month of a ${d.name} deployment after ${STORAGE_MONTHS} months of events`,
      value: usd(month),
      unit: '$/month',
      note: `${(STORAGE_MONTHS * d.events).toLocaleString('en-US')} events kept (${round((STORAGE_MONTHS * d.events * (table + log)) / GB, 2)} GB), and the last week's deliveries; growing by $${usd(d.events * keptMonth)} a month; first-tier prices, no free tier (DynamoDB's first 25 GB are free), the records loaded not counted`,
    });
  }
  return rows;
}

async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const began = performance.now();
  const progress = (what: string) => process.stderr.write(`cost: ${what} (${round((performance.now() - began) / 1000, 1)} s)\n`);
  const prices = loadPrices();
  const facts = stackFacts();
  const bare = stackFacts(synthesizedTemplate({ edge: 'false' }));
  progress('the stack synthesized (with and without the edge)');
  const aws = await startBenchAws(ctx.root, 'cost-records');
  try {
    const anchor = new Date(Date.now() - 15 * 60_000);
    await aws.load([...demoDocument(anchor).records, ...mixRecords(REFERENCES, anchor)]);
    progress('loaded');
    const state = new MixState(new Date(anchor.getTime() + 60_000), 50);
    // The busy reference's reads are priced with the history a busy reference has: the mix first.
    const warmReceivers = await startReceivers(ctx.root, aws, 2);
    const warmSequencer = await startSequencer(ctx.root, aws);
    try {
      await sendAll(warmReceivers, state.deliveries({ events: 120, references: REFERENCES, hotShare: 0.75, seed: 30 }), 2);
      await drainSequencer(aws, warmSequencer);
    } finally {
      await warmReceivers.close();
      await warmSequencer.close();
    }
    progress('the busy references filled');
    const reads = await readCosts(ctx.root, aws, facts, bare);
    progress('the reads measured');
    // What the events measured leave in storage: the table and the tile log read before and after them.
    const s3 = benchS3Client(aws);
    const dynamodb = localClient(aws.endpoints.dynamodb);
    const stored = () => storedBytes(dynamodb, aws.table, s3, BENCH_BUCKET, LEDGER_LOG.keyPrefix);
    let ingest: IngestCosts;
    let kept: StoredBytes;
    try {
      const before = await stored();
      ingest = await ingestCosts(ctx.root, aws, facts, bare, state);
      kept = storedSince(await stored(), before);
    } finally {
      s3.destroy();
      dynamodb.destroy();
    }
    progress('the deliveries and batches measured');

    const rows: BenchRow[] = [];
    const perMillion = (u: Usage) => scaled(price(u, prices), MILLION);
    for (const r of reads) {
      const bill = perMillion(r.origin);
      rows.push({ metric: `per million origin reads: ${r.name}`, value: usd(total(bill)), unit: '$', note: `${itemized(bill)}; ${r.note}` });
    }
    const object = reads.find((r) => r.name === 'object read')!;
    const objectBill = perMillion(object.origin);
    const { 'API Gateway requests': gateway, 'API Gateway data transfer out': transfer, ...rest } = objectBill;
    rows.push({ metric: 'per million origin object reads, all but API Gateway', value: usd(total(rest)), unit: '$', note: `behind the edge (the stack's default: CloudFront's standard logs, no API access log); ${itemized(rest)}; API Gateway adds $${usd(gateway ?? 0)} of requests and $${usd(transfer ?? 0)} of data transfer` });
    const logs = (objectBill['CloudWatch Logs'] ?? 0) + (objectBill['CloudWatch Logs (infrequent access)'] ?? 0);
    rows.push({ metric: 'CloudWatch Logs per million origin object reads', value: usd(logs), unit: '$', note: object.note });
    const { 'API Gateway requests': _bg, 'API Gateway data transfer out': _bt, ...bareRest } = perMillion(object.bareOrigin);
    rows.push({ metric: 'per million object reads without the edge (edge=false), all but API Gateway', value: usd(total(bareRest)), unit: '$', note: `the API the public entry, its stage writing the access log: ${itemized(bareRest)}` });
    if ((object.bareOrigin.logBytesStandard ?? 0) > 0) {
      // What the Standard-class bytes (API Gateway's access log line) would cost in the Infrequent Access class.
      const { logBytesStandard, ...others } = object.bareOrigin;
      const moved = perMillion({ ...others, logBytesInfrequentAccess: (others.logBytesInfrequentAccess ?? 0) + logBytesStandard! });
      const { 'API Gateway requests': _g, 'API Gateway data transfer out': _t, ...movedRest } = moved;
      rows.push({ metric: 'per million object reads without the edge, all but API Gateway, every log group Infrequent Access', value: usd(total(movedRest)), unit: '$', note: `what the Standard class's ${logBytesStandard} B a read (the access log) would cost at the Infrequent Access price: ${itemized(movedRest)}` });
    }
    for (const hit of EDGE_HIT_RATIOS) {
      for (const r of reads) {
        const bill = perMillion(throughEdge(r.origin, r.viewerBytes, hit));
        rows.push({ metric: `per million reads at ${hit * 100}% edge hits: ${r.name}`, value: usd(total(bill)), unit: '$', note: `CloudFront's price for every read, the origin's for ${round((1 - hit) * 100, 0)}%: ${itemized(bill)}` });
      }
    }

    const delivery = perMillion(ingest.delivery);
    const entry = facts.edge ? 'through the edge' : 'to the API';
    rows.push({ metric: 'per million deliveries at the receiver', value: usd(total(delivery)), unit: '$', note: `${entry}: ${itemized(delivery)}; ${ingest.deliveryNote}` });
    const direct = perMillion(ingest.directDelivery);
    rows.push({ metric: "per million deliveries at the receiver, posted to the API's own URL", value: usd(total(direct)), unit: '$', note: `past the edge (output ApiUrl): no CloudFront request, and no web ACL in front; ${itemized(direct)}` });
    for (const n of PRICED_BATCHES) {
      const bill = perMillion(perEvent(ingest, n));
      rows.push({ metric: `per million events, one per delivery, sequencer batches of ${n}`, value: usd(total(bill)), unit: '$', note: `${itemized(bill)}; by part: ${shares(prices, receiverShare(ingest, 'one'), sequencerShare(ingest, n))}` });
    }
    const batchDelivery = perMillion(ingest.batchDelivery);
    rows.push({ metric: `per million deliveries of ${DELIVERY_BATCH} events at the receiver`, value: usd(total(batchDelivery)), unit: '$', note: `${itemized(batchDelivery)}; ${ingest.batchDeliveryNote}` });
    const batched = perMillion(perEvent(ingest, FULL_BATCH, 'batch'));
    rows.push({
      metric: `per million events, in deliveries of ${DELIVERY_BATCH}, sequencer batches of ${FULL_BATCH}`,
      value: usd(total(batched)),
      unit: '$',
      note: `${itemized(batched)}; by part: ${shares(prices, receiverShare(ingest, 'batch'), sequencerShare(ingest, FULL_BATCH))}`,
    });
    const directEvents = perMillion(perEvent(ingest, FULL_BATCH, 'direct'));
    rows.push({
      metric: `per million events, one per delivery posted to the API's own URL, sequencer batches of ${FULL_BATCH}`,
      value: usd(total(directEvents)),
      unit: '$',
      note: `${itemized(directEvents)}; by part: ${shares(prices, receiverShare(ingest, 'direct'), sequencerShare(ingest, FULL_BATCH))}`,
    });
    // The same events with the table provisioned (tableCapacity=provisioned) at its default target: what a steady load costs.
    const sentAs: Record<'one' | 'direct' | 'batch', string> = { one: 'one per delivery', direct: "one per delivery posted to the API's own URL", batch: `in deliveries of ${DELIVERY_BATCH}` };
    for (const reserved of [undefined, '1-year', '3-year'] as const) {
      const billing: TableBilling = { ...PROVISIONED, reserved };
      for (const sent of ['one', 'direct', 'batch'] as const) {
        const bill = scaled(price(perEvent(ingest, FULL_BATCH, sent), prices, billing), MILLION);
        rows.push({
          metric: `per million events, ${sentAs[sent]}, sequencer batches of ${FULL_BATCH}, the table provisioned${reserved ? `, its capacity reserved for ${reserved === '1-year' ? 'a year' : 'three years'}` : ''}`,
          value: usd(total(bill)),
          unit: '$',
          note: `a steady load, auto scaling keeping ${PROVISIONED_DEFAULTS.targetUtilizationPercent}% of the capacity in use${reserved ? `, all of it reserved capacity (a ${reserved} term at the largest saving stated for it: an assumption, bench/prices.json)` : ''}: ${itemized(bill)}; by part: ${shares(prices, receiverShare(ingest, sent), sequencerShare(ingest, FULL_BATCH), billing)}`,
        });
      }
    }
    for (const [name, usage, note] of [
      ['a sequencer batch of 1', ingest.batchOfOne, ingest.batchNotes[0]],
      [`a sequencer batch of ${FULL_BATCH}`, ingest.batchOfMany, ingest.batchNotes[1]],
      ['a sequencer run with nothing waiting (the minute\'s schedule)', ingest.idleTick, ingest.batchNotes[2]],
    ] as const) {
      const bill = price(usage, prices);
      rows.push({ metric: `per thousand: ${name}`, value: usd(total(bill) * 1000), unit: '$', note: `${itemized(scaled(bill, 1000))}; ${note}` });
    }
    rows.push(...monthlyRows(prices, facts, reads, ingest));
    rows.push(...storageRows(prices, kept, ingest.events));
    rows.push({ metric: 'prices', value: Object.values(prices.prices).filter((p) => p.assumption).length, unit: 'assumed prices', note: `bench/prices.json, ${prices.region}, checked ${prices.checked}; assumed: ${Object.entries(prices.prices).filter(([, p]) => p.assumption).map(([k]) => k).join(', ')}` });
    return rows;
  } finally {
    await aws.close();
  }
}

export const section: BenchSection = { name: 'cost', run, timeoutMs: 8 * 60_000 };
