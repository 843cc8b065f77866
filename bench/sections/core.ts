/**
 * The living-object read path: what each Lambda bundle weighs and costs at cold start, what the
 * resolve handler costs with the store taken out, how the local HTTP path compares with a bare
 * server doing the same read, how many store requests one read takes, and whether a long history
 * slows an as-of read.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DEMO_OBJECTS, demoObjectRecords } from '../../fixtures/demo';
import { DEMO_CREDENTIALS, DEMO_STATUS_LISTS } from '../../fixtures/demo-credentials';
import { DEMO_PROOFS } from '../../fixtures/demo-proofs';
import { TIMELINE_WINDOW_DEFAULT } from '../../functions/contract/timeline-window';
import { operations } from '../../functions/contract/operations';
import { storeClient } from '../../functions/store/client';
import { environmentRecords } from '../../functions/store/environment';
import type { LocalService } from '../../lib/local/service';
import { demoQuery } from '../../lib/publish/demo-values';
import { lambdaOperations, type LambdaOperation } from '../../lib/stack/operation-functions';
import { BASELINE_SOURCE, CARD_BASELINE_SOURCE, CARD_FLOOR_SOURCE, MIDDY_ONLY_SOURCE, POWERTOOLS_ONLY_SOURCE } from '../lib/baseline';
import { bundle, type Bundle } from '../lib/bundle';
import { coldInit, functionEnvironment } from '../lib/cold-start';
import { getEvent, lambdaContext, sandboxExampleEvent, type LambdaHandler } from '../lib/events';
import { httpLoad } from '../lib/http-load';
import { median, medianInterval, percentile, ratio, round, timeCalls } from '../lib/stats';
import { countStoreRequests } from '../lib/store-requests';
import { seeded } from '../lib/synthetic-records';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';

// More than the 15 the issue asks for: on this shared machine a median of 15 moved a function by
// up to 0.1x between runs of the same bundle.
const COLD_RUNS = 31;
const HANDLER_WARMUP = 200;
const HANDLER_ITERATIONS = 2000;
const AS_OF_WARMUP = 30;
const AS_OF_ITERATIONS = 300;
const HTTP_SECONDS = 5;
const HTTP_CONNECTIONS = 10;
const READS_COUNTED = 10;

const SHORT = DEMO_OBJECTS.current;
const LONG = DEMO_OBJECTS.longHistory;

const kib = (bytes: number) => round(bytes / 1024, 1);

const COLD_ORDER_SEED = 20261124;

/** A seeded Fisher-Yates shuffle (mulberry32): the same orders every run of the bench. */
function shuffler(seed: number): <T>(items: readonly T[]) => T[] {
  const next = seeded(seed);
  return (items) => {
    const shuffled = [...items];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    return shuffled;
  };
}

const EMPTY_MODULE = 'exports.handler = async () => ({ statusCode: 200, body: "" });\n';

/**
 * The yardsticks besides the stock baseline and the empty module (bench/lib/baseline.ts): the
 * design card's runtime, each package alone and both together, without and with the SDK.
 */
const CARD_YARDSTICKS = {
  'middy-only': { source: MIDDY_ONLY_SOURCE, credentials: 'environment' },
  'powertools-only': { source: POWERTOOLS_ONLY_SOURCE, credentials: 'environment' },
  'card-floor': { source: CARD_FLOOR_SOURCE, credentials: 'environment' },
  'card-baseline': { source: CARD_BASELINE_SOURCE, credentials: 'sdk-chain' },
} as const;

/** The goals (bench/README.md, Cold start): table readers against both baselines, the others against the card floor. */
const GOALS = { stockBaseline: 0.95, cardBaseline: 1.0, cardFloor: 1.05 } as const;

/** Demo values for path and query parameters, by parameter name (first) or operationId.name. */
function demoParameters(): Record<string, string> {
  return {
    reference: SHORT,
    'getCommercialProof.reference': DEMO_PROOFS.current,
    claimId: DEMO_CREDENTIALS.active,
    listId: DEMO_STATUS_LISTS.revocation,
  };
}

/**
 * The first request a cold function answers. A table reader: its own route with demo values, one
 * store read. A function that reads nothing: a GET without Accept (the catalogues and the landing
 * indexes answer JSON with an ETag), or the first published example of its sandbox route.
 */
function firstEvent(op: LambdaOperation) {
  if (op.method === 'POST') return sandboxExampleEvent(op.path);
  const demo = demoParameters();
  const value = (name: string) => demo[`${op.operationId}.${name}`] ?? demo[name];
  const pathParameters = Object.fromEntries(Object.keys(op.pathParams ?? {}).map((name) => [name, value(name)]));
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(value(name)));
  // Optional query parameters that change what is read are left out, except a page's entered reference (without
  // it, no read); required ones carry the demo values the published examples use (lib/publish/demo-values.ts).
  const required = Object.fromEntries(new URLSearchParams(demoQuery(op)));
  const query = { ...required, ...(op.operationId === 'getVerifyPage' ? { reference: value('reference') } : {}) };
  return getEvent(op.path, path, Object.keys(pathParameters).length > 0 ? pathParameters : null, Object.keys(query).length > 0 ? query : null);
}

async function bundlesAndColdInit(ctx: BenchContext, service: LocalService): Promise<BenchRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-bundles-'));
  try {
    const ops = lambdaOperations(operations);
    // The stock client (the SDK's own credential chain): the yardstick. The functions' bundles put the
    // environment's credentials in the chain's place (lib/stack/bundling.ts); so does the second one.
    const baseline = await bundle({ name: 'baseline.ts', contents: BASELINE_SOURCE }, path.join(dir, 'baseline'), ctx.root, { credentials: 'sdk-chain' });
    const baselineEnvCredentials = await bundle({ name: 'baseline-env.ts', contents: BASELINE_SOURCE }, path.join(dir, 'baseline-env'), ctx.root);
    mkdirSync(path.join(dir, 'empty'));
    const emptyModule = path.join(dir, 'empty', 'index.js');
    writeFileSync(emptyModule, EMPTY_MODULE);
    const yardsticks = new Map<string, Bundle>();
    for (const [id, { source, credentials }] of Object.entries(CARD_YARDSTICKS)) {
      yardsticks.set(id, await bundle({ name: `${id}.ts`, contents: source }, path.join(dir, id), ctx.root, { credentials }));
    }
    const bundles = new Map<string, Bundle>();
    for (const op of ops) bundles.set(op.operationId, await bundle(op.integration.entry, path.join(dir, op.operationId), ctx.root));

    const storeEnv = {
      AWS_ENDPOINT_URL_DYNAMODB: service.storeEndpoint,
      TABLE_NAME: process.env.TABLE_NAME ?? 'records',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      LEDGER_VERIFIER_KEYS: process.env.LEDGER_VERIFIER_KEYS ?? '',
      // The embedded store may be slow under load; the bench measures, it does not test timeouts.
      STORE_REQUEST_TIMEOUT_MS: '5000',
    };
    type Subject = { id: string; file: string; env: Record<string, string>; event?: object };
    const subjects: Subject[] = [
      { id: 'baseline', file: baseline.file, env: functionEnvironment(null) },
      { id: 'empty', file: emptyModule, env: functionEnvironment(null) },
      { id: 'baseline-env-credentials', file: baselineEnvCredentials.file, env: functionEnvironment(null) },
      ...[...yardsticks].map(([id, built]) => ({ id, file: built.file, env: functionEnvironment(null) })),
      ...ops.map((op) => ({ id: op.operationId, file: bundles.get(op.operationId)!.file, env: functionEnvironment(op) })),
    ];
    // First answers: the table readers against both baselines doing one Query, the functions that
    // read nothing against the card floor answering.
    const answering = ops.filter((op) => op.integration.access === 'table-read' || op.integration.access === 'none');
    const firstRequestSubjects: Subject[] = [
      { id: 'baseline', file: baseline.file, env: { ...functionEnvironment(null), ...storeEnv }, event: {} },
      { id: 'card-baseline', file: yardsticks.get('card-baseline')!.file, env: { ...functionEnvironment(null), ...storeEnv }, event: {} },
      { id: 'empty', file: emptyModule, env: functionEnvironment(null), event: {} },
      { id: 'card-floor', file: yardsticks.get('card-floor')!.file, env: functionEnvironment(null), event: {} },
      ...answering.map((op) => ({
        id: op.operationId,
        file: bundles.get(op.operationId)!.file,
        env: { ...functionEnvironment(op), ...(op.integration.access === 'table-read' ? storeEnv : {}) },
        event: firstEvent(op),
      })),
    ];

    // Every subject once a round, so that machine noise spreads over all of them instead of hitting one
    // bundle's runs; in a new (seeded) order each round, so that no subject always starts right after
    // the same neighbour (the yardsticks did: the empty module always after the baseline).
    const ready = new Map<string, number[]>(subjects.map((s) => [s.id, []]));
    const requireTimes = new Map<string, number[]>(subjects.map((s) => [s.id, []]));
    const readyCpu = new Map<string, number[]>(subjects.map((s) => [s.id, []]));
    const answered = new Map<string, number[]>(firstRequestSubjects.map((s) => [s.id, []]));
    const answeredCpu = new Map<string, number[]>(firstRequestSubjects.map((s) => [s.id, []]));
    const order = shuffler(COLD_ORDER_SEED);
    for (let run = 0; run < COLD_RUNS; run++) {
      for (const s of order(subjects)) {
        const init = await coldInit(s.file, s.env);
        ready.get(s.id)!.push(init.readyMs);
        requireTimes.get(s.id)!.push(init.requireMs);
        readyCpu.get(s.id)!.push(init.cpuMs);
      }
      for (const s of order(firstRequestSubjects)) {
        const first = await coldInit(s.file, s.env, s.event);
        answered.get(s.id)!.push(first.answeredMs!);
        answeredCpu.get(s.id)!.push(first.answeredCpuMs!);
      }
    }

    const cpu = (id: string) => median(readyCpu.get(id)!);
    // Ratios are paired: each round's start of the subject over the same round's start of its
    // yardstick, then the median of those. A stretch of the run the machine was slower in then slows
    // both sides of a ratio instead of whichever side happened to draw more of it.
    const pairedRatios = (samples: Map<string, number[]>, id: string, yardstick: string) => {
      const base = samples.get(yardstick)!;
      return samples.get(id)!.map((value, i) => value / base[i]);
    };
    const paired = (samples: Map<string, number[]>, id: string, yardstick: string) => round(median(pairedRatios(samples, id, yardstick)), 2);
    const cpuRatio = (id: string, yardstick: string) => paired(readyCpu, id, yardstick);
    // Against a goal, with the 95% interval of that median (bench/lib/stats.ts): a goal inside it is
    // met in some runs and missed in others of the same bundles, and the note says so.
    const verdict = (id: string, yardstick: string, goal: number) => {
      const ratios = pairedRatios(readyCpu, id, yardstick);
      const value = round(median(ratios), 2);
      const [low, high] = medianInterval(ratios).map((bound) => round(bound, 2));
      const met = value <= goal;
      const onTheLine = low <= goal && goal < high;
      const flags = [...(met ? [] : ['GOAL NOT MET']), ...(onTheLine ? ['the goal inside the interval'] : [])];
      return { value, met, onTheLine, note: `goal ${goal}x; 95% interval ${low}-${high}x${flags.length > 0 ? `; ${flags.join(', ')}` : ''}` };
    };
    const wallRatio = (id: string, yardstick: string) => paired(ready, id, yardstick);
    const yardstickRow = (id: string, what: string, against: 'empty' | 'baseline', note: string): BenchRow[] => [
      { metric: `bundle size: ${what}`, value: kib(yardsticks.get(id)!.bytes), unit: 'KiB', note: `${ratio(yardsticks.get(id)!.bytes, baseline.bytes)}x the baseline` },
      {
        metric: `cold init CPU ratio: ${what}`,
        value: cpuRatio(id, against),
        unit: against === 'empty' ? 'x empty module' : 'x baseline',
        note: `${note}; wall ${wallRatio(id, against)}x; CPU ${round(cpu(id), 1)} ms`,
      },
    ];
    const rows: BenchRow[] = [
      { metric: 'bundle size: baseline (DynamoDB client and Query only)', value: kib(baseline.bytes), unit: 'KiB', note: "minified index.js, esbuild with the stack's options" },
      {
        metric: 'cold init: baseline (DynamoDB client and Query only)',
        value: round(median(ready.get('baseline')!), 1),
        unit: 'ms',
        note: `median of ${COLD_RUNS} fresh node processes, start to handler export, every subject interleaved; require ${round(median(requireTimes.get('baseline')!), 1)} ms`,
      },
      { metric: 'cold init: bare node, empty module', value: round(median(ready.get('empty')!), 1), unit: 'ms', note: `median of ${COLD_RUNS}` },
      { metric: 'cold init CPU: baseline (DynamoDB client and Query only)', value: round(cpu('baseline'), 1), unit: 'ms', note: `median of ${COLD_RUNS}: user + system CPU time of the process when the handler is ready` },
      { metric: 'cold init CPU: bare node, empty module', value: round(cpu('empty'), 1), unit: 'ms', note: `median of ${COLD_RUNS}` },
      { metric: 'cold init CPU: card baseline', value: round(cpu('card-baseline'), 1), unit: 'ms', note: `median of ${COLD_RUNS}; wall ${round(median(ready.get('card-baseline')!), 1)} ms` },
      { metric: 'cold init CPU: card floor', value: round(cpu('card-floor'), 1), unit: 'ms', note: `median of ${COLD_RUNS}; wall ${round(median(ready.get('card-floor')!), 1)} ms` },
      ...yardstickRow('middy-only', '@middy/core alone', 'empty', 'a middy handler answering, no logger'),
      ...yardstickRow('powertools-only', 'the Powertools Logger alone', 'empty', 'made, given the context, one INFO line an answer; no middy'),
      ...yardstickRow('card-floor', 'card floor (@middy/core and the Powertools Logger)', 'empty', 'both, as every function uses them; the yardstick of functions that read nothing'),
      ...yardstickRow('card-baseline', 'card baseline (the stock client, @middy/core and the Powertools Logger)', 'baseline', 'the stock baseline with the card\'s runtime: a yardstick of functions that read the table'),
      {
        metric: 'bundle size: baseline with environment credentials',
        value: kib(baselineEnvCredentials.bytes),
        unit: 'KiB',
        note: `${ratio(baselineEnvCredentials.bytes, baseline.bytes)}x the baseline: the same client with the credential chain the functions use`,
      },
      {
        metric: 'cold init CPU ratio: baseline with environment credentials',
        value: cpuRatio('baseline-env-credentials', 'baseline'),
        unit: 'x baseline',
        note: 'what replacing the SDK\'s credential chain by the environment\'s credentials alone is worth on its own',
      },
      {
        metric: 'first invocation: baseline (init + client set-up + one Query)',
        value: round(median(answered.get('baseline')!), 1),
        unit: 'ms',
        note: `median of ${COLD_RUNS} fresh processes, start to the first answer, against the embedded store`,
      },
      {
        metric: 'first invocation CPU ratio: card baseline',
        value: paired(answeredCpu, 'card-baseline', 'baseline'),
        unit: 'x baseline',
        note: 'the card\'s runtime answering one Query, against the stock client doing the same',
      },
      {
        metric: 'first invocation CPU ratio: card floor',
        value: paired(answeredCpu, 'card-floor', 'empty'),
        unit: 'x empty module',
        note: 'the card\'s runtime answering (one log line), against the empty module answering',
      },
    ];
    const missed: string[] = [];
    const onTheLine: string[] = [];
    for (const op of ops) {
      const b = bundles.get(op.operationId)!;
      const readsTable = op.integration.access === 'table-read';
      // The receivers carry the DynamoDB client too (they write pending events): the same yardsticks.
      const usesTable = readsTable || op.integration.access === 'ingress-write';
      const id = op.operationId;
      rows.push(
        {
          metric: `bundle size: ${id}`,
          value: kib(b.bytes),
          unit: 'KiB',
          note: `${ratio(b.bytes, baseline.bytes)}x baseline; largest: ${b.largest.slice(0, 3).map((c) => `${c.name} ${kib(c.bytes)} KiB`).join(', ')}`,
        },
        { metric: `cold init: ${id}`, value: round(median(ready.get(id)!), 1), unit: 'ms', note: `median of ${COLD_RUNS}; require ${round(median(requireTimes.get(id)!), 1)} ms; CPU ${round(cpu(id), 1)} ms` },
      );
      if (usesTable) {
        const stock = verdict(id, 'baseline', GOALS.stockBaseline);
        const card = verdict(id, 'card-baseline', GOALS.cardBaseline);
        if (!stock.met || !card.met) missed.push(id);
        if (stock.onTheLine || card.onTheLine) onTheLine.push(id);
        rows.push(
          { metric: `cold init CPU ratio: ${id}`, value: stock.value, unit: 'x baseline', note: `${stock.note}; wall ${wallRatio(id, 'baseline')}x` },
          { metric: `cold init CPU ratio vs card baseline: ${id}`, value: card.value, unit: 'x card baseline', note: `${card.note}; wall ${wallRatio(id, 'card-baseline')}x` },
        );
      } else {
        const floor = verdict(id, 'card-floor', GOALS.cardFloor);
        if (!floor.met) missed.push(id);
        if (floor.onTheLine) onTheLine.push(id);
        rows.push(
          { metric: `cold init CPU ratio vs card floor: ${id}`, value: floor.value, unit: 'x card floor', note: `${floor.note}; wall ${wallRatio(id, 'card-floor')}x` },
          { metric: `cold init CPU ratio: ${id}`, value: cpuRatio(id, 'empty'), unit: 'x empty module', note: `wall ${wallRatio(id, 'empty')}x` },
        );
      }
      if (answered.has(id)) {
        const yardstick = readsTable ? 'baseline' : 'card-floor';
        rows.push({
          metric: `first invocation CPU ratio: ${id}`,
          value: paired(answeredCpu, id, yardstick),
          unit: readsTable ? 'x baseline' : 'x card floor',
          note: `${readsTable ? `init + one request (${firstEvent(op).path}) against the embedded store, vs the baseline's init + one Query; card baseline ${paired(answeredCpu, id, 'card-baseline')}x` : `init + one request (${firstEvent(op).httpMethod} ${firstEvent(op).path}), vs the card floor's init + answer`}; wall ${paired(answered, id, yardstick)}x; ${round(median(answeredCpu.get(id)!), 1)} ms CPU`,
        });
      }
    }
    rows.push({
      metric: 'cold start goals met',
      value: ops.length - missed.length,
      unit: `of ${ops.length} functions`,
      note: [
        missed.length === 0 ? `every function within its goals (CPU, ${COLD_RUNS} rounds)` : `not met: ${missed.join(', ')}`,
        ...(onTheLine.length > 0 ? [`a goal inside the 95% interval of (met or not in another run): ${onTheLine.join(', ')}`] : []),
      ].join('; '),
    });
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function handlerOf(ctx: BenchContext, operationId: string): { op: LambdaOperation; handler: LambdaHandler } {
  const op = lambdaOperations(operations).find((o) => o.operationId === operationId);
  if (!op) throw new Error(`the contract table has no Lambda operation ${operationId}`);
  // The same module the local server and the Lambda run (here from source; the bundle holds the same code).
  return { op, handler: require(path.join(ctx.root, op.integration.entry)).handler as LambdaHandler };
}

function objectEvent(reference: string, asOf?: string) {
  return getEvent('/v1/objects/{reference}', `/v1/objects/${encodeURIComponent(reference)}`, { reference }, asOf ? { asOf } : null);
}

async function expectOk(handler: LambdaHandler, event: ReturnType<typeof getEvent>): Promise<void> {
  const out = await handler(event, lambdaContext);
  if (out.statusCode !== 200) throw new Error(`${event.path} answered ${out.statusCode}: ${out.body}`);
}

function demoHistory(ctx: BenchContext, reference: string): string[] {
  const record = (demoObjectRecords(ctx.anchor) as { reference: string; history: { at: string }[] }[]).find((r) => r.reference === reference);
  if (!record) throw new Error(`no demo object ${reference}`);
  return record.history.map((h) => h.at).sort();
}

/** An instant at `fraction` of a demo object's history: an as-of view that cuts the timeline there. */
function inHistory(ctx: BenchContext, reference: string, fraction = 0.5): string {
  const instants = demoHistory(ctx, reference);
  return instants[Math.floor((instants.length - 1) * fraction)];
}

const midHistory = (ctx: BenchContext, reference: string) => inHistory(ctx, reference);

async function storeRequestsPerRead(ctx: BenchContext, service: LocalService): Promise<BenchRow[]> {
  const counter = countStoreRequests(service.storeEndpoint);
  const rows: BenchRow[] = [];
  try {
    for (const [reference, label] of [[SHORT, 'short history'], [LONG, 'long history']] as const) {
      counter.reset();
      for (let i = 0; i < READS_COUNTED; i++) {
        for (const query of ['', `?asOf=${encodeURIComponent(midHistory(ctx, reference))}`]) {
          const res = await fetch(`${service.url}/v1/objects/${encodeURIComponent(reference)}${query}`);
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`GET /v1/objects/${reference}${query} answered ${res.status}`);
        }
      }
      if (counter.count === 0) throw new Error('no store request was seen: the counter does not see the SDK\'s requests');
      const perRead = counter.count / (2 * READS_COUNTED);
      rows.push({
        metric: `store requests per object read: ${reference} (${label})`,
        value: perRead,
        unit: 'requests/read',
        note: `${perRead === 2 ? '' : 'NOT 2, the design sends exactly two together (the entries and the head in force: one round trip); '}${2 * READS_COUNTED} HTTP reads (current and asOf), every HTTP request the SDK sent to the store counted`,
      });
    }
  } finally {
    counter.stop();
  }
  return rows;
}

async function asOfLatency(ctx: BenchContext): Promise<BenchRow[]> {
  const { handler } = handlerOf(ctx, 'resolveObject');
  const EQUAL_WINDOW = 3;
  const event = (reference: string, fraction: number, limit?: number) => {
    const e = objectEvent(reference, inHistory(ctx, reference, fraction));
    if (limit) e.queryStringParameters = { ...e.queryStringParameters, limit: String(limit) };
    return e;
  };
  const targets = {
    short: event(SHORT, 0.5),
    long: event(LONG, 0.5),
    shortEqual: event(SHORT, 0.5, EQUAL_WINDOW),
    longEqual: event(LONG, 0.5, EQUAL_WINDOW),
    longEarly: event(LONG, 0.1),
    longLate: event(LONG, 0.9),
  };
  const samples = Object.fromEntries(Object.keys(targets).map((k) => [k, [] as number[]])) as Record<keyof typeof targets, number[]>;
  // Interleaved, so that every variant sees the same machine conditions.
  for (let i = 0; i < AS_OF_WARMUP + AS_OF_ITERATIONS; i++) {
    for (const [name, e] of Object.entries(targets) as [keyof typeof targets, ReturnType<typeof getEvent>][]) {
      const [t] = await timeCalls(() => expectOk(handler, e), 1, 0);
      if (i >= AS_OF_WARMUP) samples[name].push(t);
    }
  }
  const entries = (ref: string) => demoHistory(ctx, ref).length;
  const note = `${AS_OF_ITERATIONS} in-process handler calls each, interleaved, real SDK and embedded store`;
  return [
    { metric: `asOf read p50: ${SHORT} (${entries(SHORT)} entries)`, value: round(median(samples.short)), unit: 'ms', note: `${note}; asOf mid-history` },
    { metric: `asOf read p50: ${LONG} (${entries(LONG)} entries)`, value: round(median(samples.long)), unit: 'ms', note: `asOf mid-history: a full window of ${TIMELINE_WINDOW_DEFAULT} entries` },
    { metric: `asOf read p99: ${LONG}`, value: round(percentile(samples.long, 99)), unit: 'ms' },
    {
      metric: 'asOf latency ratio long/short (p50)',
      value: ratio(median(samples.long), median(samples.short)),
      unit: 'x',
      note: `default window: the long object returns ${TIMELINE_WINDOW_DEFAULT} entries, the short one its few`,
    },
    {
      metric: `asOf latency ratio long/short, equal window (limit=${EQUAL_WINDOW}, p50)`,
      value: ratio(median(samples.longEqual), median(samples.shortEqual)),
      unit: 'x',
      note: 'the same amount of data returned: what the history length alone costs',
    },
    {
      metric: `asOf latency ratio ${LONG} late/early in history (p50)`,
      value: ratio(median(samples.longLate), median(samples.longEarly)),
      unit: 'x',
      note: 'asOf at 90% vs 10% of the history: the key condition seeks, nothing is scanned',
    },
  ];
}

/** Replays recorded store answers from memory: the handler's own CPU cost, without I/O. */
async function handlerLatencyWithoutStore(ctx: BenchContext): Promise<BenchRow[]> {
  const client = storeClient() as unknown as { send: (command: { constructor: { name: string }; input: any }) => Promise<unknown> };
  const realSend = client.send.bind(client);
  // By the key and the key condition, not the instant (each call reads at its own "now"): a read's two Queries name the same key, the entries and the head in force.
  const keyOf = (command: { constructor: { name: string }; input: any }) =>
    `${command.constructor.name} ${command.input.ExpressionAttributeValues?.[':pk']?.S ?? JSON.stringify(command.input.Key ?? null)} ${command.input.KeyConditionExpression ?? ''}`;
  const recorded = new Map<string, unknown>();
  let replayed = 0;
  const targets: { label: string; operationId: string; event: ReturnType<typeof getEvent> }[] = [
    { label: 'getHealth', operationId: 'getHealth', event: getEvent('/health', '/health', null) },
    { label: `resolveObject ${SHORT}`, operationId: 'resolveObject', event: objectEvent(SHORT) },
    { label: `resolveObject ${LONG}`, operationId: 'resolveObject', event: objectEvent(LONG) },
  ];
  const rows: BenchRow[] = [];
  try {
    client.send = async (command) => {
      const out = await realSend(command);
      recorded.set(keyOf(command), out);
      return out;
    };
    for (const t of targets) await expectOk(handlerOf(ctx, t.operationId).handler, t.event);
    client.send = async (command) => {
      const out = recorded.get(keyOf(command));
      if (!out) throw new Error(`no recorded answer for ${keyOf(command)}`);
      replayed++;
      return out;
    };
    for (const t of targets) {
      const { handler } = handlerOf(ctx, t.operationId);
      const before = replayed;
      const times = await timeCalls(() => expectOk(handler, t.event), HANDLER_ITERATIONS, HANDLER_WARMUP);
      const storeCalls = (replayed - before) / (HANDLER_ITERATIONS + HANDLER_WARMUP);
      const note = `${HANDLER_ITERATIONS} in-process calls after ${HANDLER_WARMUP} warm-up; store answers replayed from memory (${storeCalls} per call)`;
      rows.push(
        { metric: `handler p50 without store: ${t.label}`, value: round(median(times)), unit: 'ms', note },
        { metric: `handler p99 without store: ${t.label}`, value: round(percentile(times, 99)), unit: 'ms' },
      );
    }
  } finally {
    delete (client as { send?: unknown }).send;
  }
  return rows;
}

/** A node:http server that does the same single store read and answers its result as JSON, nothing more. */
async function startBareServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const reference = decodeURIComponent(new URL(req.url ?? '/', 'http://bare').pathname.split('/').pop() ?? '');
    environmentRecords().readWindow(reference, new Date().toISOString(), TIMELINE_WINDOW_DEFAULT).then(
      (window) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(window));
      },
      () => {
        res.writeHead(503);
        res.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function httpThroughput(service: LocalService): Promise<BenchRow[]> {
  const bare = await startBareServer();
  try {
    const path = `/v1/objects/${SHORT}`;
    const ours = await httpLoad(`${service.url}${path}`, { seconds: HTTP_SECONDS, connections: HTTP_CONNECTIONS });
    const base = await httpLoad(`${bare.url}${path}`, { seconds: HTTP_SECONDS, connections: HTTP_CONNECTIONS });
    for (const [name, r] of [['local service', ours], ['bare server', base]] as const) {
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers and ${r.errors} errors under load`);
    }
    const note = `autocannon in its own process, ${HTTP_CONNECTIONS} connections, ${HTTP_SECONDS} s after a 1 s warm-up; both servers read the same embedded store in this process`;
    return [
      { metric: `HTTP throughput: GET ${path}`, value: Math.round(ours.requestsPerSecond), unit: 'req/s', note },
      {
        metric: 'HTTP throughput: bare node:http, same single read',
        value: Math.round(base.requestsPerSecond),
        unit: 'req/s',
        note: "readWindow (the record's two Queries, sent together, and their items' decoding), answered as JSON; no routing, validation, domain or problem handling",
      },
      { metric: 'HTTP throughput ratio (service/bare)', value: ratio(ours.requestsPerSecond, base.requestsPerSecond), unit: 'x' },
      { metric: `HTTP p99: GET ${path}`, value: ours.p99Ms, unit: 'ms' },
      { metric: 'HTTP p99: bare node:http, same single read', value: base.p99Ms, unit: 'ms' },
      { metric: 'HTTP p99 ratio (service/bare)', value: ratio(Math.max(ours.p99Ms, 1), Math.max(base.p99Ms, 1)), unit: 'x', note: 'autocannon reports whole milliseconds; below 1 ms counts as 1' },
    ];
  } finally {
    await bare.close();
  }
}

export const section: BenchSection = {
  name: 'core',
  // Some 2,000 fresh processes (every function and yardstick, 31 rounds, started and answering).
  timeoutMs: 20 * 60_000,
  run: async (ctx) => {
    const service = await ctx.service();
    const rows = await bundlesAndColdInit(ctx, service);
    rows.push(...(await storeRequestsPerRead(ctx, service)));
    rows.push(...(await asOfLatency(ctx)));
    rows.push(...(await httpThroughput(service)));
    rows.push(...(await handlerLatencyWithoutStore(ctx)));
    return rows;
  },
};
