/**
 * capacity (docs/capacity.md): what the write path and the main reads cost DynamoDB, partition by
 * partition, under DynamoDB's documented sizing rules, and how the sequencer and the receivers
 * bear a round trip to AWS.
 *
 * The deployed bundles run as Lambda runs them (bench/lib/capacity/functions.ts), reaching dynalite,
 * s3rver and the KMS stand-in only through the accounting proxy (bench/lib/capacity/aws-proxy.ts),
 * which prices every DynamoDB request they make by the items it really read and wrote, per
 * partition key. The records are loaded with `npm run load`. Then:
 *   1. the mix: E deliveries over R objects and a few hot references (BENCH_CAPACITY_EVENTS,
 *      BENCH_CAPACITY_REFERENCES, BENCH_CAPACITY_HOT_SHARE; default 1,000 over 1,000, a quarter to
 *      three hot references), sent to the receivers' functions, then integrated by the sequencer's
 *      function (a run per stream batch of STREAM_BATCH_SIZE, as the table's stream wakes it): units per event by key class, the hottest
 *      key of each, and the ingest rate at which that key reaches a partition's limit;
 *   2. the main reads of the busiest reference, one at a time: their read units;
 *   3. throughput with a fixed delay on every AWS call (0 and 5 ms, accounting off): the receivers
 *      alone, the sequencer alone, and both at once (ingest end to end), on mixes of their own;
 *   4. every priced request compared with the ConsumedCapacity dynalite reports for it.
 */
import os from 'node:os';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { DEV_INGRESS_SECRETS_FILE, localClient } from '../../lib/local/service';
import { dynamoLedgerLock } from '../../functions/store/dynamodb/ledger-head';
import { demoDocument } from '../../fixtures/demo';
import { RECORD_PK_PREFIX, recordHeadsPk, recordPk, referenceOfRecordPk } from '../../functions/store/layout';
import { devSecrets, signedHeaders } from '../../lib/ingress/emit';
import type { AccountingSnapshot } from '../lib/capacity/aws-proxy';
import { apiEvent, drainSequencer, integrateStreamed, keepSequencerStream, scheduledEvent, SEQUENCER_MEMORY_MB, startDeployedFunction, startPartWriters, startSequencer, startSequencerInParts, type SequencerSummary } from '../lib/capacity/functions';
import { EVENTS_PER_PART } from '../../functions/ledger-writer/lambda-parts';
import { STREAM_BEHIND_MS } from '../../functions/ledger-writer/pending-age';
import { partOf, partsForEvents } from '../../functions/ledger-writer/parts';
import { DEFAULT_SETTINGS } from '../../lib/stack/settings';
import { FULL_VCPU_MB } from '../lib/cost/model';
import { asBatch, HOT_REFERENCES, MixState, mixRecords, type Delivery } from '../lib/capacity/mix';
import { operation, READ_ROUTES } from '../lib/capacity/routes';
import { startBenchAws, type BenchAws } from '../lib/capacity/stand-ins';
import { STREAM_BATCH_SIZE } from '../../lib/stack/sequencer';
import { ACCOUNT_PROVISIONED_QUOTA_UNITS_PER_SECOND, keyClass, PARTITION_READ_UNITS_PER_SECOND, PARTITION_WRITE_UNITS_PER_SECOND, TABLE_QUOTA_UNITS_PER_SECOND } from '../lib/capacity/units';
import type { FunctionProcess, Invocation } from '../lib/lambda-process';
import { round } from '../lib/stats';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';

const EVENTS = Number(process.env.BENCH_CAPACITY_EVENTS ?? 1000);
const REFERENCES = Number(process.env.BENCH_CAPACITY_REFERENCES ?? 1000);
const HOT_SHARE = Number(process.env.BENCH_CAPACITY_HOT_SHARE ?? 0.25);
/** Deliveries of each timed mix (per delay and mode). */
const TIMED_EVENTS = Number(process.env.BENCH_CAPACITY_TIMED_EVENTS ?? STREAM_BATCH_SIZE);
/** Rounds of timed mixes per delay, in alternating order. */
// Four: with two, one slow round on a 2-core machine moved a ratio by 0.1 or more between runs.
const ROUNDS = Number(process.env.BENCH_CAPACITY_ROUNDS ?? 4);
const DELAYS_MS = [0, 5];
/** Deliveries in flight at once: one per receiver execution environment. */
const RECEIVERS = 4;
const SEED = 29;
/** The key class of a record's own partitions (its timeline and identities; its versions' heads). */
const RECORD_KEY_CLASS = RECORD_PK_PREFIX;

export interface ReceiverPool {
  deliver(d: Delivery): Promise<Invocation<APIGatewayProxyResult>>;
  close(): Promise<void>;
}

/** RECEIVERS execution environments of the lifecycle receiver and one of the webhook receiver, each delivery signed as its source signs it. */
export async function startReceivers(root: string, aws: BenchAws, count = RECEIVERS): Promise<ReceiverPool> {
  const lifecycle = operation('receiveLifecycleEvent');
  const webhook = operation('receiveSourceWebhook');
  const pools: Record<string, FunctionProcess[]> = { lifecycle: [], webhook: [] };
  // The webhook receiver gets a tenth of the mix (a commercial proof's snapshots): one environment.
  for (let i = 0; i < count; i++) pools.lifecycle.push(await startDeployedFunction(root, aws, lifecycle.integration.entry, 'ingress-write', `ReceiveLifecycle${i}`));
  pools.webhook.push(await startDeployedFunction(root, aws, webhook.integration.entry, 'ingress-write', 'ReceiveWebhook'));
  const secrets = devSecrets(DEV_INGRESS_SECRETS_FILE);
  let next = 0;
  return {
    deliver: (d) => {
      const headers = { 'content-type': d.contentType ?? 'application/cloudevents+json', ...signedHeaders(d.body, [secrets[d.sourceId]]) };
      const isLifecycle = d.path === lifecycle.path;
      const event = apiEvent('POST', isLifecycle ? lifecycle.path : webhook.path, d.path, { pathParameters: isLifecycle ? null : { sourceId: d.sourceId }, headers, body: d.body });
      const pool = isLifecycle ? pools.lifecycle : pools.webhook;
      return pool[next++ % pool.length].invoke<APIGatewayProxyResult>(event);
    },
    close: async () => {
      for (const fn of [...pools.lifecycle, ...pools.webhook]) await fn.close();
    },
  };
}

/** Whether a delivery was taken whole: one event accepted (202), or a batch answered 200 with every event accepted. */
const acceptedWhole = (d: Delivery, answer: APIGatewayProxyResult): boolean =>
  d.contentType === 'application/cloudevents-batch+json' ? answer.statusCode === 200 && (JSON.parse(answer.body) as { accepted: number; events: number }).accepted === (JSON.parse(answer.body) as { events: number }).events : answer.statusCode === 202;

/** Sends every delivery, `concurrency` at a time; each must be accepted whole (acceptedWhole). */
export async function sendAll(receivers: ReceiverPool, deliveries: readonly Delivery[], concurrency = RECEIVERS): Promise<Invocation<APIGatewayProxyResult>[]> {
  const out: Invocation<APIGatewayProxyResult>[] = [];
  let next = 0;
  const worker = async () => {
    while (next < deliveries.length) {
      const d = deliveries[next++];
      const answer = await receivers.deliver(d);
      if (answer.error || !acceptedWhole(d, answer.result)) throw new Error(`a ${d.type} delivery for ${d.reference} answered ${answer.result?.statusCode ?? answer.error}: ${answer.result?.body ?? ''}`);
      out.push(answer);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

const sumRuns = (runs: Invocation<SequencerSummary>[]) =>
  runs.reduce((n, r) => ({ batches: n.batches + r.result.batches, deliveries: n.deliveries + r.result.deliveries, sequenced: n.sequenced + r.result.sequenced, setAside: n.setAside + r.result.setAside }), { batches: 0, deliveries: 0, sequenced: 0, setAside: 0 });

interface ClassFigures {
  name: string;
  read: number;
  write: number;
  hottestRead: { key: string; units: number };
  hottestWrite: { key: string; units: number };
  keys: number;
}

/** Units by key class: a table partition's class is its key's leading characters (R#, P#, L#); an index's partitions form a class of their own. */
export function classFigures(snapshot: Pick<AccountingSnapshot, 'partitions'>): ClassFigures[] {
  const classes = new Map<string, ClassFigures>();
  for (const p of snapshot.partitions) {
    const name = p.index ? `index ${p.index}` : keyClass(p.partitionKey);
    const c = classes.get(name) ?? { name, read: 0, write: 0, hottestRead: { key: '', units: 0 }, hottestWrite: { key: '', units: 0 }, keys: 0 };
    c.read += p.readUnits;
    c.write += p.writeUnits;
    c.keys++;
    if (p.readUnits > c.hottestRead.units) c.hottestRead = { key: p.partitionKey, units: p.readUnits };
    if (p.writeUnits > c.hottestWrite.units) c.hottestWrite = { key: p.partitionKey, units: p.writeUnits };
    classes.set(name, c);
  }
  return [...classes.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** A partition's limits a second (units.ts cites them). */
const PARTITION_LIMITS = { read: PARTITION_READ_UNITS_PER_SECOND, write: PARTITION_WRITE_UNITS_PER_SECOND };

/**
 * The ingest rate (events/s) at which the hottest key of a class reaches a partition's limit, if
 * events keep arriving in the mix's proportions: each key's units grow with the event rate.
 */
export function ingestCeiling(c: Pick<ClassFigures, 'hottestRead' | 'hottestWrite'>, events: number): { eventsPerSecond: number; bound: 'write' | 'read' } {
  return ceilingAt({ read: c.hottestRead.units, write: c.hottestWrite.units }, events, PARTITION_LIMITS);
}

/** The ingest rate the write path aims at (issue: no partition key over a small share of its limits there). */
export const TARGET_EVENTS_PER_SECOND = 10_000;

/**
 * The share of a partition's limits a class's keys take at `rate` events a second of this mix: its
 * hottest key's, and each key's were the class's units spread evenly over its keys (what a hashed
 * class such as the pending index's shards tends to as events add up; the hottest key of a sample
 * of 1,000 events lies above it by chance). Reads weigh against 3,000 a second, writes 1,000.
 */
export function shareOfLimits(c: Pick<ClassFigures, 'read' | 'write' | 'hottestRead' | 'hottestWrite' | 'keys'>, events: number, rate = TARGET_EVENTS_PER_SECOND): { hottest: number; even: number } {
  // A key's share at `rate` is `rate` over the rate at which it reaches its limits.
  const share = (units: { read: number; write: number }) => rate / ceilingAt(units, events, PARTITION_LIMITS).eventsPerSecond;
  return { hottest: share({ read: c.hottestRead.units, write: c.hottestWrite.units }), even: share({ read: c.read / c.keys, write: c.write / c.keys }) };
}

/** The event rate at which `units` (used by `events` events) reach the limits a second, and which of them binds first. */
function ceilingAt(units: { read: number; write: number }, events: number, limits: { read: number; write: number }): { eventsPerSecond: number; bound: 'write' | 'read' } {
  const byWrite = units.write > 0 ? limits.write / (units.write / events) : Infinity;
  const byRead = units.read > 0 ? limits.read / (units.read / events) : Infinity;
  return byWrite <= byRead ? { eventsPerSecond: byWrite, bound: 'write' } : { eventsPerSecond: byRead, bound: 'read' };
}

/**
 * A tick first (nothing waits; it looks at the pending index), so the stream's runs that follow
 * are as they are between the minute's ticks: they take their batch's keys alone (a run the
 * stream wakes looks only when no look was made for 90 s: functions/handlers/sequence-events.ts).
 */
async function lookedJustNow(aws: BenchAws, sequencer: FunctionProcess): Promise<void> {
  await drainSequencer(aws, sequencer);
}

async function mixRows(aws: BenchAws, receivers: ReceiverPool, sequencer: FunctionProcess, state: MixState): Promise<BenchRow[]> {
  const deliveries = state.deliveries({ events: EVENTS, references: REFERENCES, hotShare: HOT_SHARE, seed: SEED });
  const hotEvents = deliveries.filter((d) => (HOT_REFERENCES as readonly string[]).includes(d.reference)).length;
  await lookedJustNow(aws, sequencer);
  await aws.control.reset();
  await sendAll(receivers, deliveries);
  const received = await aws.control.snapshot();
  const runs = await integrateStreamed(aws, sequencer);
  const all = await aws.control.snapshot();
  const done = sumRuns(runs);
  if (done.sequenced !== EVENTS || done.setAside !== 0) throw new Error(`the sequencer integrated ${done.sequenced} of ${EVENTS} deliveries, set ${done.setAside} aside`);

  const mix = `${EVENTS} deliveries over ${REFERENCES} objects and ${HOT_REFERENCES.length} hot references (${hotEvents} deliveries, ${round((100 * hotEvents) / EVENTS, 1)}%: ${HOT_REFERENCES.join(', ')}), ${RECEIVERS} receivers at once, then ${done.batches} sequencer batches, a run each woken by the stream`;
  const rows: BenchRow[] = [
    { metric: 'mix: deliveries integrated', value: done.sequenced, unit: 'events', note: mix },
    { metric: 'all partitions: write units per event', value: round(all.totals.writeUnits / EVENTS, 2), unit: 'WU/event', note: `receivers ${round(received.totals.writeUnits / EVENTS, 2)}, sequencer ${round((all.totals.writeUnits - received.totals.writeUnits) / EVENTS, 2)}; index writes ${round(all.totals.indexWriteUnits / EVENTS, 2)}` },
    { metric: 'all partitions: read units per event', value: round(all.totals.readUnits / EVENTS, 2), unit: 'RU/event', note: `receivers ${round(received.totals.readUnits / EVENTS, 2)}, sequencer ${round((all.totals.readUnits - received.totals.readUnits) / EVENTS, 2)}` },
    {
      metric: 'store requests per event',
      value: round(all.totals.requests / EVENTS, 2),
      unit: 'requests/event',
      note: Object.entries(all.operations).map(([op, o]) => `${op} ${round(o.requests / EVENTS, 2)}`).join(', '),
    },
    {
      metric: 'sequencer: store requests per event',
      value: round((all.totals.requests - received.totals.requests) / EVENTS, 2),
      unit: 'requests/event',
      // What its CPU time goes with: each request is the SDK's serialization, signing and parsing.
      note: Object.entries(all.operations)
        .map(([op, o]) => [op, o.requests - (received.operations[op]?.requests ?? 0)] as const)
        .filter(([, n]) => n > 0)
        .map(([op, n]) => `${op} ${round(n / EVENTS, 2)}`)
        .join(', '),
    },
  ];
  let lowest = { eventsPerSecond: Infinity, name: '' };
  const classes = classFigures(all);
  for (const c of classes) {
    const ceiling = ingestCeiling(c, EVENTS);
    const share = shareOfLimits(c, EVENTS);
    if (ceiling.eventsPerSecond < lowest.eventsPerSecond) lowest = { eventsPerSecond: ceiling.eventsPerSecond, name: c.name };
    rows.push(
      { metric: `${c.name}: write units per event`, value: round(c.write / EVENTS, 3), unit: 'WU/event', note: `${c.keys} partition keys; read units per event ${round(c.read / EVENTS, 3)}` },
      {
        metric: `${c.name}: hottest key, units per event`,
        value: round(Math.max(c.hottestWrite.units, c.hottestRead.units / 3) / EVENTS, 3),
        unit: 'WU/event',
        note: `writes: ${c.hottestWrite.key || '-'} ${round(c.hottestWrite.units / EVENTS, 3)} WU/event; reads: ${c.hottestRead.key || '-'} ${round(c.hottestRead.units / EVENTS, 3)} RU/event (a read unit weighs a third of a write unit against the partition's limits)`,
      },
      {
        metric: `${c.name}: ingest ceiling`,
        value: Number.isFinite(ceiling.eventsPerSecond) ? Math.round(ceiling.eventsPerSecond) : 0,
        unit: 'events/s',
        note: Number.isFinite(ceiling.eventsPerSecond)
          ? `the hottest key reaches ${ceiling.bound === 'write' ? `${PARTITION_WRITE_UNITS_PER_SECOND} WU/s` : `${PARTITION_READ_UNITS_PER_SECOND} RU/s`} at this rate of this mix; at ${TARGET_EVENTS_PER_SECOND.toLocaleString('en-US')} events/s it takes ${percent(share.hottest)} of a partition's limits (each of the class's ${c.keys} keys ${percent(share.even)}, were its units spread evenly)`
          : 'no units',
      },
    );
  }
  rows.push({ metric: 'lowest ingest ceiling (any partition key)', value: Math.round(lowest.eventsPerSecond), unit: 'events/s', note: `set by ${lowest.name}` });
  rows.push(...spreadCeilingRows(all, deliveries));
  rows.push(...tableQuotaRows(all, EVENTS));

  // The ledger's keys share one partition: what each kind of item takes of it per batch.
  const ledger = all.sortClasses.filter((s) => keyClass(s.partitionKey) === 'L#');
  const ledgerWrites = ledger.reduce((n, s) => n + s.writeUnits, 0);
  rows.push({
    metric: 'ledger partition: write units per batch',
    value: round(ledgerWrites / done.batches, 1),
    unit: 'WU/batch',
    note: `${ledger.map((s) => `${s.sortClass} ${round(s.writeUnits / done.batches, 1)}`).join(', ')} (by sort key class); ${round(ledgerWrites / EVENTS, 2)} WU per event`,
  });
  rows.push(...dynaliteRows(all));
  return rows;
}

/**
 * Beside the partitions' limits, the table's own (docs/capacity.md#the-tables-quotas): by default a
 * table takes at most 40,000 read and 40,000 write units a second, on demand or provisioned, and so
 * does each of its indexes on demand; a provisioned table and its indexes together stay within the
 * account's 80,000 (units.ts cites the quotas). The event rate of this mix at which each is reached.
 * Every one is adjustable: a deployment past it asks for more (docs/deploy.md#dynamodbs-quotas).
 */
export function tableQuotaRows(snapshot: Pick<AccountingSnapshot, 'partitions'>, events: number): BenchRow[] {
  const parts = new Map<string, { read: number; write: number }>();
  for (const p of snapshot.partitions) {
    const name = p.index ? `index ${p.index}` : 'table';
    const sum = parts.get(name) ?? { read: 0, write: 0 };
    sum.read += p.readUnits;
    sum.write += p.writeUnits;
    parts.set(name, sum);
  }
  const quota = (units: number) => ({ read: units, write: units });
  const value = (n: number) => (Number.isFinite(n) ? Math.round(n) : 0);
  const perEvent = ({ read, write }: { read: number; write: number }) => `${round(write / events, 2)} WU and ${round(read / events, 2)} RU an event`;
  const rows: BenchRow[] = [];
  let lowest = { eventsPerSecond: Infinity, name: '' };
  for (const [name, units] of [...parts].sort(([a], [b]) => (a === 'table' ? -1 : b === 'table' ? 1 : a.localeCompare(b)))) {
    const ceiling = ceilingAt(units, events, quota(TABLE_QUOTA_UNITS_PER_SECOND));
    if (ceiling.eventsPerSecond < lowest.eventsPerSecond) lowest = { eventsPerSecond: ceiling.eventsPerSecond, name };
    rows.push({
      metric: `${name}: ingest ceiling at the default table quota`,
      value: value(ceiling.eventsPerSecond),
      unit: 'events/s',
      note: `${perEvent(units)}; its ${ceiling.bound} units reach ${TABLE_QUOTA_UNITS_PER_SECOND.toLocaleString('en-US')} a second at this rate of this mix`,
    });
  }
  const together = [...parts.values()].reduce((n, u) => ({ read: n.read + u.read, write: n.write + u.write }), { read: 0, write: 0 });
  const provisioned = ceilingAt(together, events, quota(ACCOUNT_PROVISIONED_QUOTA_UNITS_PER_SECOND));
  rows.push({
    metric: 'table and its indexes together, provisioned: ingest ceiling at the default account quota',
    value: value(provisioned.eventsPerSecond),
    unit: 'events/s',
    note: `${perEvent(together)}; their ${provisioned.bound} units reach the account's ${ACCOUNT_PROVISIONED_QUOTA_UNITS_PER_SECOND.toLocaleString('en-US')} a second of provisioned capacity at this rate`,
  });
  rows.push({
    metric: 'lowest ingest ceiling at the default quotas, on demand',
    value: value(lowest.eventsPerSecond),
    unit: 'events/s',
    note: `set by ${lowest.name}; provisioned, the account's quota too: ${value(Math.min(lowest.eventsPerSecond, provisioned.eventsPerSecond))}; every quota is adjustable (a Service Quotas request), the partitions' limits are not`,
  });
  return rows;
}

/**
 * What the mix's hot references hide: the ceiling of the keys every event shares (the index's
 * shards, the ledger's keys, the events' own), which events spread over many references meet
 * first; and one record's own partitions (its entries' and its heads'), in events a second sent to
 * that one reference: the lower of the two.
 */
export function spreadCeilingRows(snapshot: Pick<AccountingSnapshot, 'partitions' | 'sortClasses'>, deliveries: readonly Pick<Delivery, 'reference'>[]): BenchRow[] {
  const classes = classFigures(snapshot);
  const rows: BenchRow[] = [];
  let shared = { eventsPerSecond: Infinity, name: '' };
  for (const c of classes) {
    if (c.name === RECORD_KEY_CLASS) continue;
    const ceiling = ingestCeiling(c, deliveries.length);
    if (ceiling.eventsPerSecond < shared.eventsPerSecond) shared = { eventsPerSecond: ceiling.eventsPerSecond, name: c.name };
  }
  rows.push({
    metric: "lowest ingest ceiling, a record's own key aside (events spread over many references)",
    value: Number.isFinite(shared.eventsPerSecond) ? Math.round(shared.eventsPerSecond) : 0,
    unit: 'events/s',
    note: shared.name ? `set by ${shared.name}: the keys every event shares, and each event's own` : 'no units',
  });
  // The reference whose partition takes the most writes, and each of its partitions.
  const hottest = classes.find((c) => c.name === RECORD_KEY_CLASS)?.hottestWrite.key;
  if (!hottest) return rows;
  const reference = referenceOfRecordPk(hottest);
  const sentToIt = deliveries.filter((d) => d.reference === reference).length;
  if (sentToIt === 0) return rows;
  const keys = snapshot.partitions.filter((p) => !p.index && (p.partitionKey === recordPk(reference) || p.partitionKey === recordHeadsPk(reference)));
  const perKey = keys.map((p) => {
    const ceiling = ingestCeiling({ hottestWrite: { key: p.partitionKey, units: p.writeUnits }, hottestRead: { key: p.partitionKey, units: p.readUnits } }, sentToIt);
    // Which of its items take the units (entries T#, heads V#, the genesis #), per event sent to it.
    const byItem = snapshot.sortClasses
      .filter((s) => s.partitionKey === p.partitionKey && s.writeUnits > 0)
      .map((s) => `${s.sortClass} ${round(s.writeUnits / sentToIt, 2)}`)
      .join(', ');
    const limit = ceiling.bound === 'write' ? `${PARTITION_WRITE_UNITS_PER_SECOND} WU/s` : `${PARTITION_READ_UNITS_PER_SECOND} RU/s`;
    return { ceiling, note: `${p.partitionKey} ${round(p.writeUnits / sentToIt, 2)} WU${byItem ? ` (${byItem})` : ''} and ${round(p.readUnits / sentToIt, 2)} RU, ${Math.round(ceiling.eventsPerSecond)} events/s to ${limit}` };
  });
  const lowest = Math.min(...perKey.map((k) => k.ceiling.eventsPerSecond));
  rows.push({
    metric: 'one reference: events a second its own partitions take',
    value: Math.round(lowest),
    unit: 'events/s',
    note: `${reference} (${sentToIt} of the mix's ${deliveries.length} events), per event sent to it: ${perKey.map((k) => k.note).join('; ')}`,
  });
  return rows;
}

function dynaliteRows(snapshot: AccountingSnapshot): BenchRow[] {
  const d = snapshot.dynalite;
  const explained = Object.values(d.explained).reduce((n, c) => n + c, 0);
  const unexplained = d.compared - d.agreed - explained;
  const byOp = Object.entries(d.byOperation).map(([op, o]) => `${op} ${o.agreed}/${o.compared}`).join(', ');
  const reasons = Object.entries(d.explained).map(([why, n]) => `${n}: ${why}`).join('; ');
  const examples = d.disagreements.slice(0, 3).map((x) => `${x.operation}: ours ${x.ours}, dynalite ${x.dynalite} (${x.detail})`).join('; ');
  return [
    { metric: 'requests priced as dynalite prices them (table and index reads, table writes)', value: round(d.compared ? d.agreed / d.compared : 0, 4), unit: 'share', note: `${d.agreed} of ${d.compared} (${byOp}); known differences: ${reasons || 'none'}` },
    { metric: 'requests priced otherwise than dynalite, for no known reason', value: unexplained, unit: 'requests', note: examples || 'none' },
  ];
}

async function readRows(root: string, aws: BenchAws): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const functions = new Map<string, FunctionProcess>();
  try {
    for (const route of READ_ROUTES) {
      if (!functions.has(route.operationId)) {
        const op = operation(route.operationId);
        functions.set(route.operationId, await startDeployedFunction(root, aws, op.integration.entry, 'table-read', route.operationId));
      }
      const fn = functions.get(route.operationId)!;
      // Once to start the function (its first store call sets up a connection), then measured.
      await fn.invoke(route.event());
      await aws.control.reset();
      const answer = await fn.invoke<APIGatewayProxyResult>(route.event());
      const units = await aws.control.snapshot();
      if (answer.error || answer.result.statusCode !== 200) throw new Error(`${route.name} answered ${answer.result?.statusCode ?? answer.error}: ${answer.result?.body?.slice(0, 500)}`);
      const entries = route.operationId === 'resolveObject' ? (JSON.parse(answer.result.body).timeline?.length ?? 0) : null;
      rows.push({
        metric: `read units: ${route.name}`,
        value: units.totals.readUnits,
        unit: 'RU/read',
        note: `${units.totals.requests} store requests (${Object.entries(units.operations).map(([op, o]) => `${op} ${o.requests}: ${o.readUnits} RU`).join(', ')})${entries !== null ? `; ${entries} timeline entries answered` : ''}; one partition supports ${Math.floor(PARTITION_READ_UNITS_PER_SECOND / Math.max(units.totals.readUnits, 0.5))} such reads/s`,
      });
    }
  } finally {
    for (const fn of functions.values()) await fn.close();
  }
  return rows;
}

interface Timed {
  receiveMs: number;
  sequenceMs: number;
  endToEndMs: number;
  events: number;
  /** The sequencer alone: its CPU time (and its main thread's, null where not known), its batches, and its AWS calls made one after another. */
  sequencerCpuMs: number;
  sequencerMainThreadCpuMs: number | null;
  batches: number;
  sequentialTrips: number;
  /** Its AWS calls in all (sent together or not), and by operation. */
  sequencerCalls: number;
  callsByOperation: Record<string, number>;
}

const zero = (): Timed => ({ receiveMs: 0, sequenceMs: 0, endToEndMs: 0, events: 0, sequencerCpuMs: 0, sequencerMainThreadCpuMs: 0, batches: 0, sequentialTrips: 0, sequencerCalls: 0, callsByOperation: {} });

/** Adds calls by operation into `into`. */
function addCalls(into: Record<string, number>, calls: Record<string, number>): void {
  for (const [operation, n] of Object.entries(calls)) into[operation] = (into[operation] ?? 0) + n;
}

/**
 * One round with `delayMs` on every AWS call: a mix sent to the receivers alone, then integrated
 * by the sequencer alone; another sent while the sequencer runs (ingest end to end, as the table's
 * stream invokes it). Times in ms.
 */
async function timedRound(aws: BenchAws, receivers: ReceiverPool, sequencer: FunctionProcess, state: MixState, delayMs: number, seed: number): Promise<Timed> {
  await aws.control.configure({ accounting: false, delayMs });
  const mix = (n: number) => state.deliveries({ events: TIMED_EVENTS, references: REFERENCES, hotShare: 0, seed: seed + n, integratedMeanwhile: true });
  try {
    await lookedJustNow(aws, sequencer);
    let started = performance.now();
    await sendAll(receivers, mix(0));
    const receiveMs = performance.now() - started;
    await aws.control.reset();
    started = performance.now();
    const runs = await integrateStreamed(aws, sequencer);
    const sequenceMs = performance.now() - started;
    const { trips } = await aws.control.snapshot();
    const done = sumRuns(runs);
    if (done.sequenced !== TIMED_EVENTS) throw new Error(`with ${delayMs} ms: ${done.sequenced} of ${TIMED_EVENTS} integrated`);

    started = performance.now();
    let sending = true;
    let sequenced = 0;
    const sent = sendAll(receivers, mix(1)).finally(() => (sending = false));
    // As the stream wakes it: what arrived while a run worked is the next run's batch (up to 100).
    const integrating = (async () => {
      for (;;) {
        const wasSending = sending;
        const runs = await integrateStreamed(aws, sequencer);
        sequenced += runs.reduce((n, r) => n + r.result.sequenced, 0);
        if (!wasSending && runs.length === 0) return;
        if (runs.length === 0) await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await Promise.all([sent, integrating]);
    const endToEndMs = performance.now() - started;
    if (sequenced !== TIMED_EVENTS) throw new Error(`end to end with ${delayMs} ms: ${sequenced} of ${TIMED_EVENTS} integrated`);
    return { receiveMs, sequenceMs, endToEndMs, events: TIMED_EVENTS, sequencerCpuMs: runs.reduce((n, r) => n + r.cpuMs, 0), sequencerMainThreadCpuMs: mainThreadMs(runs), batches: done.batches, sequentialTrips: trips.sequential, sequencerCalls: trips.calls, callsByOperation: trips.byOperation };
  } finally {
    await aws.control.configure({ accounting: true, delayMs: 0 });
  }
}

/** A receiver's AWS calls made one after another per delivery: deliveries one at a time, with a delay so calls sent together surely overlap. */
async function receiverTrips(aws: BenchAws, receivers: ReceiverPool, state: MixState): Promise<{ perDelivery: number; cpuMs: number }> {
  const deliveries = state.deliveries({ events: 20, references: REFERENCES, hotShare: 0, seed: SEED + 7, integratedMeanwhile: true });
  await aws.control.configure({ accounting: false, delayMs: DELAYS_MS[1] });
  try {
    await aws.control.reset();
    const answers = await sendAll(receivers, deliveries, 1);
    const { trips } = await aws.control.snapshot();
    return { perDelivery: trips.sequential / deliveries.length, cpuMs: answers.reduce((n, a) => n + a.cpuMs, 0) / answers.length };
  } finally {
    await aws.control.configure({ accounting: true, delayMs: 0 });
  }
}

/**
 * One log takes events only as fast as its one sequencer integrates them (one writer holds the
 * log's lease at a time): events a second from the sequencer's CPU time per event, on one core of
 * this machine, and with its calls one after another each waiting DELAYS_MS[1]. `which` says what
 * the sequencer remembered of the records (functions/store/dynamodb/record-tails.ts).
 */
type OneLogFigures = Pick<Timed, 'sequencerCpuMs' | 'events' | 'batches' | 'sequencerCalls' | 'callsByOperation'> & Partial<Pick<Timed, 'sequencerMainThreadCpuMs'>>;

export function oneLogRow(which: string, none: OneLogFigures, some: OneLogFigures, tripsPerBatch: number): BenchRow {
  const events = none.events + some.events;
  const byOperation: Record<string, number> = {};
  addCalls(byOperation, none.callsByOperation);
  addCalls(byOperation, some.callsByOperation);
  const calls = Object.entries(byOperation).sort(([, a], [, b]) => b - a).map(([operation, n]) => `${operation} ${round(n / events, 2)}`).join(', ');
  const cpuPerEvent = (none.sequencerCpuMs + some.sequencerCpuMs) / events;
  const perBatch = events / (none.batches + some.batches);
  const withWaits = (perBatch * 1000) / (cpuPerEvent * perBatch + DELAYS_MS[1] * tripsPerBatch);
  // Its main thread's share: the rest is V8's helper threads (the collector's, the compiler's), which one vCPU runs in turn with it.
  const main = sumKnown(none.sequencerMainThreadCpuMs ?? null, some.sequencerMainThreadCpuMs ?? null);
  const mainNote = main === null ? '' : `; its main thread ${round(main / events, 2)} ms an event (${round((100 * main) / (none.sequencerCpuMs + some.sequencerCpuMs), 0)}% of its CPU time; the rest V8's helper threads)`;
  return {
    metric: `one log${which}: events a second its sequencer takes, from its CPU time`,
    value: Math.round(1000 / cpuPerEvent),
    unit: 'events/s',
    note: `${round(cpuPerEvent, 2)} ms of CPU per event on one core of this machine (batches of ${round(perBatch, 0)}; ${round((none.sequencerCalls + some.sequencerCalls) / events, 2)} AWS calls per event: ${calls})${mainNote}; ${Math.round(withWaits)} events/s with ${round(tripsPerBatch, 1)} waits of ${DELAYS_MS[1]} ms a batch; one sequencer writes a log at a time (its lease); the sequencer function's ${SEQUENCER_MEMORY_MB} MB ${SEQUENCER_MEMORY_MB >= FULL_VCPU_MB ? 'give it a whole vCPU' : `give it ${round(SEQUENCER_MEMORY_MB / FULL_VCPU_MB, 2)} of a vCPU`} (one at ${FULL_VCPU_MB} MB)`,
  };
}

/** The main thread's CPU time of these runs, null when any is not known (not Linux). */
function mainThreadMs(runs: readonly { mainThreadCpuMs: number | null }[]): number | null {
  return runs.reduce<number | null>((n, r) => sumKnown(n, r.mainThreadCpuMs), 0);
}

const percent = (share: number): string => `${round(100 * share, share < 0.1 ? 1 : 0)}%`;

const sumKnown = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a + b);

/** Deliveries waiting at once in backlogRow's rounds: two full batches, what one look at the pending index lists, so the sequencer runs as it does under a steady load. */
const BACKLOG_EVENTS = 1000;
const BACKLOG_ROUNDS = 2;

/**
 * The one-log row for a backlog (what a sequencer meets under a load it cannot keep up with: every
 * batch full, one look at the pending index's 64 shards for two batches), every record read after
 * another writer: by key, where its genesis says its newest items are (the sequencer's and the
 * loader's geneses say it).
 */
function backlogRow(timed: Timed & { changedBefore: number }, tripsPerBatch: number): BenchRow {
  const row = oneLogRow(`, a backlog of ${BACKLOG_EVENTS} events, every record read (another writer held the lease before)`, timed, zero(), tripsPerBatch);
  return { ...row, note: `${round((100 * timed.changedBefore) / timed.events, 0)}% of its events name a record the sequencer changed before, the rest a record only loaded (either read by key, where its genesis says its newest items are); ${row.note}` };
}

/**
 * The sequencer's batches right after another writer held the log's lease (taken and released
 * here, as a load or another sequencer would): it remembers nothing of the records, so it reads
 * every one it integrates: by key where the record's genesis says where its newest items are (a
 * record the sequencer changed or a load wrote), else by Query (a genesis of a layout before). `rounds` rounds of
 * `events` deliveries sent, then integrated, no delay; `changedBefore` counts the events whose
 * record a delivery before named (all are integrated: checked).
 */
async function afterAnotherWriter(aws: BenchAws, receivers: ReceiverPool, sequencer: FunctionProcess, state: MixState, seed: number, { events = TIMED_EVENTS, rounds = ROUNDS, woken = 'stream' as 'stream' | 'tick' } = {}): Promise<Timed & { changedBefore: number }> {
  const total = { ...zero(), changedBefore: 0 };
  const client = localClient(aws.endpoints.dynamodb);
  const lock = dynamoLedgerLock(client, aws.table);
  await aws.control.configure({ accounting: false, delayMs: 0 });
  try {
    // What the receivers took before and no sequencer integrated yet (the mix's states count on it).
    await drainSequencer(aws, sequencer);
    for (let round = 0; round < rounds; round++) {
      const namedBefore = new Set(state.named);
      const deliveries = state.deliveries({ events, references: REFERENCES, hotShare: 0, seed: seed + round, integratedMeanwhile: true });
      await sendAll(receivers, deliveries);
      const other = `bench:another-writer:${round}`;
      await lock.acquire(other, { at: new Date().toISOString(), leaseMs: 60_000 });
      await lock.release(other);
      await aws.control.reset();
      const runs = woken === 'stream' ? await integrateStreamed(aws, sequencer) : await drainSequencer(aws, sequencer);
      const done = sumRuns(runs);
      if (done.sequenced !== events) throw new Error(`after another writer: ${done.sequenced} of ${events} integrated`);
      const { trips } = await aws.control.snapshot();
      total.events += events;
      total.batches += done.batches;
      total.sequencerCpuMs += runs.reduce((n, r) => n + r.cpuMs, 0);
      total.sequencerMainThreadCpuMs = sumKnown(total.sequencerMainThreadCpuMs, mainThreadMs(runs));
      total.sequencerCalls += trips.calls;
      total.changedBefore += deliveries.filter((d) => namedBefore.has(d.reference)).length;
      addCalls(total.callsByOperation, trips.byOperation);
    }
    return total;
  } finally {
    client.destroy();
    await aws.control.configure({ accounting: true, delayMs: 0 });
  }
}

/**
 * Throughput with no delay and with DELAYS_MS[1] on every call, in ROUNDS rounds whose order
 * alternates (ABBA...), so a machine whose load drifts (other processes, the JIT warming) weighs on
 * both alike; ratios of the summed times. Beside them, what does not depend on the machine's load:
 * the AWS calls made one after another (each adds the delay), and the ratio they imply with the
 * functions' own CPU time as the time without delay.
 */
async function delayRows(aws: BenchAws, receivers: ReceiverPool, sequencer: FunctionProcess, state: MixState): Promise<BenchRow[]> {
  const totals = new Map<number, Timed>(DELAYS_MS.map((d) => [d, zero()]));
  let seed = SEED + 100;
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? DELAYS_MS : [...DELAYS_MS].reverse();
    for (const delay of order) {
      const t = await timedRound(aws, receivers, sequencer, state, delay, (seed += 10));
      const sum = totals.get(delay)!;
      for (const key of Object.keys(sum) as (keyof Timed)[]) {
        if (key === 'callsByOperation') addCalls(sum.callsByOperation, t.callsByOperation);
        else if (key === 'sequencerMainThreadCpuMs') sum[key] = sumKnown(sum[key], t[key]);
        else sum[key] += t[key];
      }
    }
  }
  const [none, some] = DELAYS_MS.map((d) => totals.get(d)!);
  const perSecond = (t: Timed, key: 'receiveMs' | 'sequenceMs' | 'endToEndMs') => (t.events * 1000) / t[key];
  const load = os.loadavg()[0];
  const row = (what: string, key: 'receiveMs' | 'sequenceMs' | 'endToEndMs', how: string): BenchRow => ({
    metric: `${what}, ${DELAYS_MS[1]} ms per AWS call / none`,
    value: round(perSecond(some, key) / perSecond(none, key), 2),
    unit: 'x',
    note: `${round(perSecond(none, key), 1)} events/s with no delay, ${round(perSecond(some, key), 1)} with ${DELAYS_MS[1]} ms on every DynamoDB, S3 and KMS call; ${ROUNDS} alternating rounds of ${TIMED_EVENTS} deliveries over ${REFERENCES} objects; ${how}; load average ${round(load, 1)} on ${os.cpus().length} CPUs`,
  });
  const tripsPerBatch = some.sequentialTrips / some.batches;
  const cpuPerBatch = (none.sequencerCpuMs + some.sequencerCpuMs) / (none.batches + some.batches);
  const receiver = await receiverTrips(aws, receivers, state);
  const modelled = (cpuMs: number, trips: number) => cpuMs / (cpuMs + DELAYS_MS[1] * trips);
  return [
    row('sequencer throughput', 'sequenceMs', `the deliveries all waiting, a run per stream batch of ${STREAM_BATCH_SIZE}`),
    row('receivers throughput', 'receiveMs', `${RECEIVERS} deliveries in flight`),
    row('ingest end to end', 'endToEndMs', 'receivers and sequencer at once, from the first delivery to the last integrated'),
    {
      metric: 'sequencer: AWS calls one after another, per batch',
      value: round(tripsPerBatch, 1),
      unit: 'calls/batch',
      note: `${round(some.sequentialTrips, 0)} of ${some.batches} batches of ${round(some.events / some.batches, 0)} deliveries over ${REFERENCES} objects (calls in flight together count once); each adds the round trip to AWS`,
    },
    {
      metric: `sequencer: ${DELAYS_MS[1]} ms per AWS call / none, from its CPU time and its calls one after another`,
      value: round(modelled(cpuPerBatch, tripsPerBatch), 2),
      unit: 'x',
      note: `${round(cpuPerBatch, 1)} ms of CPU per batch against ${round(cpuPerBatch + DELAYS_MS[1] * tripsPerBatch, 1)} ms with ${round(tripsPerBatch, 1)} waits of ${DELAYS_MS[1]} ms: independent of the machine's load`,
    },
    oneLogRow(', the sequencer warm', none, some, tripsPerBatch),
    oneLogRow(', every record read (another writer held the lease before each batch)', await afterAnotherWriter(aws, receivers, sequencer, state, SEED + 500), zero(), tripsPerBatch),
    backlogRow(await afterAnotherWriter(aws, receivers, sequencer, state, SEED + 600, { events: BACKLOG_EVENTS, rounds: BACKLOG_ROUNDS, woken: 'tick' }), tripsPerBatch),
    {
      metric: 'receiver: AWS calls one after another, per delivery',
      value: round(receiver.perDelivery, 2),
      unit: 'calls/delivery',
      note: `${round(receiver.cpuMs, 1)} ms of CPU per delivery: ${round(modelled(receiver.cpuMs, receiver.perDelivery), 2)}x with ${DELAYS_MS[1]} ms per call by the same reckoning`,
    },
  ];
}

/** Part writers the bench runs beside the sequencer (the stack's default is DEFAULT_SETTINGS.sequencerParts). */
const BENCH_PARTS = Number(process.env.BENCH_CAPACITY_PARTS ?? 6);
/**
 * Events a part in the rounds in parts: about what the stack's default parts hold in a batch a
 * stream invocation brings (its 6 MB cut it at about 4,900 records, over 16 part writers: about
 * 300 each), so the sequencer's work an event, its invocations' share included, is measured at
 * the size it meets.
 */
const BENCH_PART_EVENTS = 300;
/** Batches in each round in parts. */
const PARTS_BATCHES = 2;
/** Events of one delivery in the rounds in parts (CloudEvents' JSON batch format): the events, not the receivers, are what these rounds measure. */
const PARTS_DELIVERY = 100;

export interface PartsTimed {
  events: number;
  batches: number;
  sequencerCpuMs: number;
  sequencerMainThreadCpuMs: number | null;
  partCpuMs: number;
  partMainThreadCpuMs: number | null;
  partInvocations: number;
  /** The AWS calls made one after another (the sequencer's and, while it waits on them, its part writers'); invocations apart. */
  sequentialTrips: number;
  invocations: number;
  /** A stream record's JSON as Lambda hands it over, on average (bytes): a stream invocation's 6 MB hold so many. */
  imageBytes: number;
  /** The references of the round's events, in the order they were sent (the stream's). */
  references: string[];
}

/** `deliveries` as batch deliveries of PARTS_DELIVERY events of one source each, in order. */
function inBatches(deliveries: readonly Delivery[]): Delivery[] {
  const out: Delivery[] = [];
  let current: Delivery[] = [];
  for (const d of deliveries) {
    if (current.length > 0 && (current.length === PARTS_DELIVERY || current[0].sourceId !== d.sourceId || current[0].path !== d.path)) {
      out.push(asBatch(current));
      current = [];
    }
    current.push(d);
  }
  if (current.length > 0) out.push(asBatch(current));
  return out;
}

/**
 * One round in parts: PARTS_BATCHES full batches of the sequencer configured with BENCH_PARTS part
 * writers, woken by the stream as the stack sets it (a stream batch a full batch), `delayMs` on
 * every AWS call and invocation. What the sequencer and the part writers spent, apart.
 */
async function partsRound(aws: BenchAws, receivers: ReceiverPool, sequencer: FunctionProcess, pool: Awaited<ReturnType<typeof startPartWriters>>, state: MixState, delayMs: number, seed: number, woken: 'stream' | 'tick' = 'stream'): Promise<PartsTimed> {
  const batch = BENCH_PARTS * BENCH_PART_EVENTS;
  const events = PARTS_BATCHES * batch;
  await aws.control.configure({ accounting: false, delayMs: 0 });
  try {
    // One delivery at a time: a hundred events' reads at once are what the embedded store takes within the receivers' one-second timeout.
    const sent = state.deliveries({ events, references: REFERENCES, hotShare: 0, seed, integratedMeanwhile: true });
    await sendAll(receivers, inBatches(sent), 1);
    await aws.control.configure({ delayMs });
    await aws.control.reset();
    pool.take();
    let imageBytes = 0;
    // Woken by the stream: its batches, each a full batch. By the tick (as a stream run that finds
    // the sequencer behind is): one run drains the index, batch after batch, its part writers
    // routing the keys it lists; what the stream brought meanwhile is dropped.
    const runs = woken === 'stream' ? await integrateStreamed(aws, sequencer, batch, (records) => (imageBytes = records.reduce<number>((n, r) => n + JSON.stringify(r).length, 0) / Math.max(1, records.length))) : [await tick(aws, sequencer)];
    const { trips, calls } = await aws.control.snapshot();
    const parts = pool.take();
    const done = sumRuns(runs);
    if (done.sequenced !== events) throw new Error(`in parts with ${delayMs} ms: ${done.sequenced} of ${events} integrated`);
    return {
      events,
      batches: done.batches,
      sequencerCpuMs: runs.reduce((n, r) => n + r.cpuMs, 0),
      sequencerMainThreadCpuMs: mainThreadMs(runs),
      partCpuMs: parts.cpuMs,
      partMainThreadCpuMs: parts.mainThreadCpuMs,
      partInvocations: parts.invocations,
      sequentialTrips: trips.sequential,
      invocations: Object.values(calls.lambda).reduce((n, c) => n + c, 0),
      imageBytes,
      references: sent.map((d) => d.reference),
    };
  } finally {
    await aws.control.configure({ accounting: true, delayMs: 0 });
  }
}

/** One run as the minute's tick invokes it (it drains the index); the stream's records of what it integrated dropped. */
async function tick(aws: BenchAws, sequencer: FunctionProcess): Promise<Invocation<SequencerSummary>> {
  const run = await sequencer.invoke<SequencerSummary>(scheduledEvent());
  if (run.error) throw new Error(`the sequencer failed: ${run.error}\n${run.logText.slice(-2000)}`);
  await aws.control.takeStream();
  return run;
}

export interface PartsFigures {
  sequencerMsPerEvent: number;
  partMsPerEvent: number;
  waitsPerBatch: number;
  /** The events a stream invocation hands over at most. */
  streamBatch?: number;
  /** The references of a stream of the mix's events, in order: the parts are cut from it as the sequencer cuts them. */
  references?: readonly string[];
}

/**
 * One log's rate with `writers` part writers, from what was measured: a full batch B (EVENTS_PER_PART
 * a part writer, and no more than a stream invocation holds: `streamBatch`), cut in as many parts as
 * the sequencer cuts it (partsForEvents), takes the sequencer's CPU for B events, the largest part's
 * CPU for its events (the parts run at once, each on its vCPU, and the batch waits for the largest),
 * and `waits` waits of DELAYS_MS[1] (its calls one after another, its part writers' while it waits
 * on them, and its rounds of invocations): B events in that time.
 */
export function partsRate(figures: PartsFigures, writers: number, delayMs = DELAYS_MS[1]): number {
  const { batch, largest } = batchInParts(writers, figures.streamBatch, figures.references);
  return (batch * 1000) / (figures.sequencerMsPerEvent * batch + figures.partMsPerEvent * largest + figures.waitsPerBatch * delayMs);
}

/**
 * The batch `writers` part writers take (a full part each, no more than a stream invocation holds),
 * its parts, and the events of a part on average and of the largest. The sequencer cuts a batch by
 * reference (partOf: a record's events in one part), so its parts differ in size. With `references`
 * the largest is, over the whole batches they hold, the mean of each batch's largest part; without,
 * the parts are taken as even.
 */
export function batchInParts(writers: number, streamBatch = Number.POSITIVE_INFINITY, references: readonly string[] = []): { batch: number; parts: number; perPart: number; largest: number } {
  const batch = Math.min(writers * EVENTS_PER_PART, streamBatch);
  const parts = partsForEvents(batch, EVENTS_PER_PART, writers);
  const perPart = batch / parts;
  const batches = Math.floor(references.length / batch);
  if (batches === 0) return { batch, parts, perPart, largest: perPart };
  let largest = 0;
  for (let b = 0; b < batches; b++) {
    const counts = new Array<number>(parts).fill(0);
    for (let i = b * batch; i < (b + 1) * batch; i++) counts[partOf(references[i], parts)]++;
    largest += Math.max(...counts);
  }
  return { batch, parts, perPart, largest: largest / batches };
}

/** A synchronous invocation's payload at most (a stream batch Lambda hands the sequencer): 6 MB (Lambda quotas). */
export const INVOCATION_PAYLOAD_BYTES = 6 * 1024 * 1024;

/**
 * One log in parts (docs/capacity.md#one-log-many-writers): the sequencer configured as the stack
 * configures it with part writers, BENCH_PARTS of them running here, each in a process of its own,
 * invoked through the bench's Lambda. Two rounds (no delay: the CPU time; DELAYS_MS[1]: the waits),
 * then the rates they imply for BENCH_PARTS part writers and for the stack's default.
 */
async function partsRows(root: string, aws: BenchAws, receivers: ReceiverPool, single: FunctionProcess, state: MixState): Promise<BenchRow[]> {
  // What the receivers stored before and the sequencer in one process has not taken.
  await drainSequencer(aws, single);
  const pool = await startPartWriters(root, aws, BENCH_PARTS);
  const sequencer = await startSequencerInParts(root, aws, BENCH_PARTS);
  try {
    // Warm both (their first batch loads their clients and JIT): not counted.
    const warm = await partsRound(aws, receivers, sequencer, pool, state, 0, SEED + 900);
    const none = await partsRound(aws, receivers, sequencer, pool, state, 0, SEED + 910);
    const some = await partsRound(aws, receivers, sequencer, pool, state, DELAYS_MS[1], SEED + 920);
    // A backlog: a run that drains the index (the tick's, or a stream run that finds the sequencer behind) takes full batches whatever the stream's shards hold.
    const drained = await partsRound(aws, receivers, sequencer, pool, state, DELAYS_MS[1], SEED + 930, 'tick');
    const events = none.events + some.events;
    const sequencerMsPerEvent = (none.sequencerCpuMs + some.sequencerCpuMs) / events;
    const partMsPerEvent = (none.partCpuMs + some.partCpuMs) / events;
    // Each round of invocations (its part writers invoked at once) waits once more; the tile round runs beside the journal's writes, counted all the same.
    const waitsPerBatch = (some.sequentialTrips + some.invocations / BENCH_PARTS) / some.batches;
    // What one stream invocation can hand over (6 MB of records of the size measured): the batch a run the stream wakes takes at most.
    const streamBatch = Math.floor(INVOCATION_PAYLOAD_BYTES / ((none.imageBytes + some.imageBytes) / 2));
    // The mix's events in the order sent, the warm round's too: whole batches of them show how unevenly a batch falls into parts.
    const figures: PartsFigures = { sequencerMsPerEvent, partMsPerEvent, waitsPerBatch, streamBatch, references: [...warm.references, ...none.references, ...some.references] };
    const main = sumKnown(none.sequencerMainThreadCpuMs, some.sequencerMainThreadCpuMs);
    const partMain = sumKnown(none.partMainThreadCpuMs, some.partMainThreadCpuMs);
    const perBatch = events / (none.batches + some.batches);
    const rateRow = (writers: number, which: string): BenchRow => {
      const { batch, parts, perPart, largest } = batchInParts(writers, streamBatch, figures.references);
      return {
        metric: `one log in parts, ${writers} part writers${which}: events a second, from CPU time and waits`,
        value: Math.round(partsRate(figures, writers)),
        unit: 'events/s',
        note: `a batch of ${batch}${batch < writers * EVENTS_PER_PART ? ` (what a stream invocation's ${INVOCATION_PAYLOAD_BYTES / 2 ** 20} MB hold of records of ${Math.round((none.imageBytes + some.imageBytes) / 2)} bytes)` : ''} in ${parts} parts of ${Math.round(perPart)} on average, the largest ${Math.round(largest)} (cut by reference, over ${REFERENCES} objects): the sequencer's ${round(sequencerMsPerEvent * batch, 0)} ms of CPU, the largest part's ${round(partMsPerEvent * largest, 0)} ms (the parts at once, each on a vCPU of its own: the batch waits for the largest), ${round(waitsPerBatch, 1)} waits of ${DELAYS_MS[1]} ms; ${Math.round(partsRate(figures, writers, 0))} events/s with no wait`,
      };
    };
    return [
      {
        metric: 'one log in parts: events a second its sequencer takes, from its CPU time',
        value: Math.round(1000 / sequencerMsPerEvent),
        unit: 'events/s',
        note: `${round(sequencerMsPerEvent, 3)} ms of CPU per event on one core of this machine (batches of ${round(perBatch, 0)} in up to ${BENCH_PARTS} parts)${main === null ? '' : `, its main thread ${round(main / events, 3)} ms`}: what it does for a batch in parts (route its events, append every part's new versions, sign, journal and publish, give each part its evidence) bounds one log however many part writers there are`,
      },
      {
        metric: 'one log in parts: the part writers\' CPU time per event',
        value: round(partMsPerEvent, 2),
        unit: 'ms/event',
        note: `${round(partMsPerEvent * BENCH_PART_EVENTS, 0)} ms for a part of ${BENCH_PART_EVENTS} (planned, its tiles stored, then written: ${round((none.partInvocations + some.partInvocations) / (none.batches + some.batches), 1)} invocations a batch)${partMain === null ? '' : `, its main thread ${round(partMain / events, 2)} ms`}; ${Math.round(1000 / partMsPerEvent)} events/s a part writer`,
      },
      {
        metric: 'one log in parts: waits per batch',
        value: round(waitsPerBatch, 1),
        unit: 'waits/batch',
        note: `the AWS calls made one after another, the sequencer's and (while it waits on them) its part writers', ${round(some.sequentialTrips / some.batches, 1)} a batch, and its ${round(some.invocations / some.batches / BENCH_PARTS, 0)} rounds of invocations (to plan, to store tiles, to write: ${round(some.invocations / some.batches, 1)} invocations a batch, a round's sent at once): each wait adds the round trip to AWS`,
      },
      rateRow(BENCH_PARTS, ' (a full batch of theirs)'),
      rateRow(DEFAULT_SETTINGS.sequencerParts, ' (the stack\'s default)'),
      drainedRow(drained, figures, DEFAULT_SETTINGS.sequencerParts),
    ];
  } finally {
    await sequencer.close();
    await pool.close();
  }
}

/**
 * One log in parts when the sequencer is behind: Lambda hands it one shard of the stream a run, so
 * full batches come from the runs that drain the pending index (the tick's, and a stream run whose
 * records waited more than STREAM_BEHIND_MS: functions/ledger-writer/pending-age.ts). Such a run
 * looks at the index and has its part writers route the keys it lists (they read the events),
 * which a stream run does not; its batches are not cut by a stream invocation's 6 MB. The rate
 * with `writers` part writers, from the drained round's own CPU times and waits, as partsRate
 * reckons it.
 */
export function drainedRow(drained: PartsTimed, streamed: PartsFigures, writers: number): BenchRow {
  const figures: PartsFigures = {
    sequencerMsPerEvent: drained.sequencerCpuMs / drained.events,
    partMsPerEvent: drained.partCpuMs / drained.events,
    waitsPerBatch: (drained.sequentialTrips + drained.invocations / BENCH_PARTS) / drained.batches,
    references: [...(streamed.references ?? []), ...drained.references],
  };
  const { batch, parts, perPart, largest } = batchInParts(writers, undefined, figures.references);
  return {
    metric: `one log in parts, ${writers} part writers, the sequencer behind (a run that drains the index): events a second, from CPU time and waits`,
    value: Math.round(partsRate(figures, writers)),
    unit: 'events/s',
    note: `a run that drains the index (the tick's; a stream run whose records waited more than ${STREAM_BEHIND_MS / 1000} s) takes full batches, not one shard's share of the stream: a batch of ${batch} in ${parts} parts of ${Math.round(perPart)}, the largest ${Math.round(largest)}; the sequencer ${round(figures.sequencerMsPerEvent, 3)} ms of CPU an event (${Math.round(1000 / figures.sequencerMsPerEvent)} events/s on one core; a stream run's ${round(streamed.sequencerMsPerEvent, 3)}: its look's 64 Queries, and a round of invocations in which the part writers read the events the index lists and answer each one's reference), the part writers ${round(figures.partMsPerEvent, 2)} ms, ${round(figures.waitsPerBatch, 1)} waits of ${DELAYS_MS[1]} ms a batch (measured in ${drained.batches} batches of ${Math.round(drained.events / drained.batches)} in up to ${BENCH_PARTS} parts); ${Math.round(partsRate(figures, writers, 0))} events/s with no wait`,
  };
}

async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const began = performance.now();
  const aws = await startBenchAws(ctx.root);
  const closing: { close(): Promise<void> }[] = [];
  try {
    // The demo's records and the mix's objects, loaded half an hour before now: every event is newer (the mix's events are 50 ms apart).
    const anchor = new Date(Date.now() - 30 * 60_000);
    const progress = (what: string) => process.stderr.write(`capacity: ${what} (${round((performance.now() - began) / 1000, 1)} s)\n`);
    await aws.load([...demoDocument(anchor).records, ...mixRecords(REFERENCES, anchor)]);
    progress(`loaded the demo data and ${REFERENCES} objects`);
    const receivers = await startReceivers(ctx.root, aws);
    closing.push(receivers);
    const sequencer = await startSequencer(ctx.root, aws);
    closing.push(sequencer);
    const state = new MixState(new Date(anchor.getTime() + 60_000), 50);
    // The sequencer is woken as on AWS: by the stream batch of what the receivers stored (the backlog row by the minute's tick).
    await keepSequencerStream(aws);

    const rows = await mixRows(aws, receivers, sequencer, state);
    progress(`the mix of ${EVENTS} deliveries received and integrated`);
    rows.push(...(await readRows(ctx.root, aws)));
    progress('the reads');
    rows.push(...(await delayRows(aws, receivers, sequencer, state)));
    progress('the timed rounds');
    rows.push(...(await partsRows(ctx.root, aws, receivers, sequencer, state)));
    progress('one log in parts');
    return rows;
  } finally {
    for (const c of closing.reverse()) await c.close();
    await aws.close();
  }
}

export const section: BenchSection = { name: 'capacity', run, timeoutMs: 8 * 60_000 };
