/**
 * The cost arithmetic of `npm run bench -- cost` (docs/capacity.md#the-cost-model): billable
 * quantities measured in a run (per request, per delivery, per batch) priced with the dated table
 * bench/prices.json. Pure functions; test/unit/bench-cost.test.ts checks them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface Price {
  usd: number;
  per: number;
  unit: string;
  source: string;
  note?: string;
  assumption?: boolean;
}

export interface PriceTable {
  region: string;
  currency: string;
  checked: string;
  note: string;
  prices: Record<string, Price>;
}

export const PRICES_FILE = path.join(__dirname, '../../prices.json');

export function loadPrices(file = PRICES_FILE): PriceTable {
  return JSON.parse(readFileSync(file, 'utf8')) as PriceTable;
}

/** Dollars per one unit of a price (a request, a GB, a GB-second). */
export function rate(table: PriceTable, name: string): number {
  const price = table.prices[name];
  if (!price) throw new Error(`bench/prices.json has no price ${name}`);
  return price.usd / price.per;
}

/** AWS bills data in GB of 2^30 bytes. */
export const GB = 2 ** 30;

/** What one request (or delivery, or batch) uses of what AWS bills. Absent: none. */
export interface Usage {
  apiGatewayRequests?: number;
  /** Bytes API Gateway sends to the internet (nothing when CloudFront fetches them). */
  apiGatewayBytesOut?: number;
  lambdaRequests?: number;
  lambdaGbSecondsArm?: number;
  lambdaGbSecondsX86?: number;
  dynamodbReadUnits?: number;
  dynamodbWriteUnits?: number;
  /** Billed log bytes (messages and the per-event overhead) by log class. */
  logBytesStandard?: number;
  logBytesInfrequentAccess?: number;
  s3Gets?: number;
  s3Puts?: number;
  kmsAsymmetricRequests?: number;
  secretsManagerCalls?: number;
  cloudfrontRequests?: number;
  cloudfrontBytesOut?: number;
  /** Bytes CloudFront sends to the origin: what a viewer sent that the origin must see (a delivery's body and headers). */
  cloudfrontBytesToOrigin?: number;
}

/**
 * How the record table's units are paid for: per request on demand (the stack's default), or
 * provisioned (context tableCapacity=provisioned) per unit-hour of capacity, which auto scaling keeps
 * `utilization` in use under a steady load: each unit used then costs the unit-hour's price over
 * the 3,600 units a unit-hour serves, divided by the share in use.
 */
export type TableBilling = { mode: 'on-demand' } | { mode: 'provisioned'; utilization: number; reserved?: ReservedTerm };

/**
 * A term of DynamoDB reserved capacity: provisioned units bought ahead for one or three years, at
 * a lower unit-hour (an upfront fee and an hourly rate), paid whether used or not. The provisioned
 * capacity of a steady load, reserved whole, costs its units at that rate.
 */
export type ReservedTerm = '1-year' | '3-year';

export const ON_DEMAND: TableBilling = { mode: 'on-demand' };

/** The price table's name for a unit-hour of provisioned capacity, bought as `reserved` says (or not reserved). */
const unitHourName = (kind: 'read' | 'write', reserved: ReservedTerm | undefined): string =>
  `dynamodb${reserved ? `Reserved${reserved === '1-year' ? '1Year' : '3Year'}` : 'Provisioned'}${kind === 'read' ? 'Read' : 'Write'}CapacityUnitHour`;

/** Dollars per read or write unit consumed, by how the table is billed. */
export function unitRate(table: PriceTable, kind: 'read' | 'write', billing: TableBilling): number {
  if (billing.mode === 'on-demand') return rate(table, kind === 'read' ? 'dynamodbReadRequestUnit' : 'dynamodbWriteRequestUnit');
  return rate(table, unitHourName(kind, billing.reserved)) / 3600 / billing.utilization;
}

/** The line items of a bill, each with the usage it prices and its price (dollars per unit). */
const LINES: { item: string; usage: (keyof Usage)[]; price: (t: PriceTable, billing: TableBilling) => number; scale?: number }[] = [
  { item: 'API Gateway requests', usage: ['apiGatewayRequests'], price: (t) => rate(t, 'apiGatewayRestRequest') },
  { item: 'API Gateway data transfer out', usage: ['apiGatewayBytesOut'], price: (t) => rate(t, 'apiGatewayDataTransferOutGb') / GB },
  { item: 'Lambda requests', usage: ['lambdaRequests'], price: (t) => rate(t, 'lambdaRequest') },
  { item: 'Lambda duration', usage: ['lambdaGbSecondsArm'], price: (t) => rate(t, 'lambdaArmGbSecond') },
  { item: 'Lambda duration (x86)', usage: ['lambdaGbSecondsX86'], price: (t) => rate(t, 'lambdaX86GbSecond') },
  { item: 'DynamoDB reads', usage: ['dynamodbReadUnits'], price: (t, billing) => unitRate(t, 'read', billing) },
  { item: 'DynamoDB writes', usage: ['dynamodbWriteUnits'], price: (t, billing) => unitRate(t, 'write', billing) },
  { item: 'CloudWatch Logs', usage: ['logBytesStandard'], price: (t) => rate(t, 'logsStandardIngestGb') / GB },
  { item: 'CloudWatch Logs (infrequent access)', usage: ['logBytesInfrequentAccess'], price: (t) => rate(t, 'logsInfrequentAccessIngestGb') / GB },
  { item: 'S3 GET', usage: ['s3Gets'], price: (t) => rate(t, 's3GetRequest') },
  { item: 'S3 PUT', usage: ['s3Puts'], price: (t) => rate(t, 's3PutRequest') },
  { item: 'KMS', usage: ['kmsAsymmetricRequests'], price: (t) => rate(t, 'kmsAsymmetricRequest') },
  { item: 'Secrets Manager', usage: ['secretsManagerCalls'], price: (t) => rate(t, 'secretsManagerApiCall') },
  { item: 'CloudFront requests', usage: ['cloudfrontRequests'], price: (t) => rate(t, 'cloudfrontHttpsRequest') },
  { item: 'CloudFront data transfer out', usage: ['cloudfrontBytesOut'], price: (t) => rate(t, 'cloudfrontDataTransferOutGb') / GB },
  { item: 'CloudFront data transfer to origin', usage: ['cloudfrontBytesToOrigin'], price: (t) => rate(t, 'cloudfrontDataTransferToOriginGb') / GB },
];

export type Bill = Record<string, number>;

/** Dollars by line item (only the lines with a cost); the table's units as `billing` says (on demand unless given). */
export function price(usage: Usage, table: PriceTable, billing: TableBilling = ON_DEMAND): Bill {
  const bill: Bill = {};
  for (const line of LINES) {
    const amount = line.usage.reduce((n, k) => n + (usage[k] ?? 0), 0) * line.price(table, billing);
    if (amount > 0) bill[line.item] = (bill[line.item] ?? 0) + amount;
  }
  return bill;
}

export const total = (bill: Bill): number => Object.values(bill).reduce((a, b) => a + b, 0);

/** The bill with each item times `factor` (per million: 1e6). */
export const scaled = (bill: Bill, factor: number): Bill => Object.fromEntries(Object.entries(bill).map(([k, v]) => [k, v * factor]));

/** Usage summed: `a` plus `weight` times `b`. */
export function addUsage(a: Usage, b: Usage, weight = 1): Usage {
  const out: Usage = { ...a };
  for (const [k, v] of Object.entries(b) as [keyof Usage, number][]) out[k] = (out[k] ?? 0) + weight * v;
  return out;
}

/** The items of a bill, largest first, as one line of text. */
export function itemized(bill: Bill, digits = 3): string {
  return Object.entries(bill)
    .sort((a, b) => b[1] - a[1])
    .map(([item, usd]) => `${item} $${usd.toFixed(digits)}`)
    .join(', ');
}

/**
 * Lambda gives a function CPU in proportion to its memory, a whole vCPU at 1,769 MB
 * (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
 */
export const FULL_VCPU_MB = 1769;

/**
 * Billed duration of an invocation, in whole milliseconds (Lambda rounds up to the millisecond):
 * the CPU time measured here stretched to the function's share of a vCPU (assuming a core of this
 * machine does what a Lambda vCPU does), plus the wait for each AWS call made one after another.
 * Only CPU time is measured locally; the waits are assumed (callLatencyMs).
 */
export function billedMs(cpuMs: number, memoryMb: number, sequentialCalls: Partial<Record<Service, number>>, latencyMs: Record<Service, number> = CALL_LATENCY_MS): number {
  const cpu = cpuMs * Math.max(1, FULL_VCPU_MB / memoryMb);
  const waits = (Object.entries(sequentialCalls) as [Service, number][]).reduce((n, [service, calls]) => n + calls * latencyMs[service], 0);
  return Math.max(1, Math.ceil(cpu + waits));
}

export type Service = 'dynamodb' | 's3' | 'kms';

/**
 * The round trip of one call inside a region, as assumed (not measured): a DynamoDB item read or
 * write, an S3 PUT of a small object, a KMS Sign.
 */
export const CALL_LATENCY_MS: Record<Service, number> = { dynamodb: 5, s3: 20, kms: 10 };

/** GB-seconds of an invocation of `memoryMb` billed `ms`. */
export const gbSeconds = (memoryMb: number, ms: number): number => (memoryMb / 1024) * (ms / 1000);

/**
 * CloudWatch Logs bills the data ingested; each line a function writes is one log event. A log
 * event is counted as its message's UTF-8 bytes (the line and its newline, as Lambda sends it)
 * plus 26 bytes, the overhead PutLogEvents counts per event against its batch size
 * (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutLogEvents.html):
 * an assumption, as the pricing page does not say how an event is measured.
 */
export const LOG_EVENT_OVERHEAD_BYTES = 26;

export function logBytes(text: string): { bytes: number; events: number } {
  const lines = text.split('\n').filter((line) => line.length > 0);
  return { bytes: lines.reduce((n, line) => n + Buffer.byteLength(line, 'utf8') + 1 + LOG_EVENT_OVERHEAD_BYTES, 0), events: lines.length };
}

/**
 * The lines Lambda itself writes for an invocation, by the function's log settings
 * (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-log-level.html):
 * plain text writes START, END and REPORT; JSON writes platform.start and platform.report at the
 * system log level INFO (its default), nothing at WARN.
 */
export function platformLines(settings: { logFormat: 'Text' | 'JSON'; systemLogLevel: string | null }, memoryMb: number, durationMs: number): string {
  const id = '8f5c3a6e-1b2d-4c3e-9f4a-5b6c7d8e9f0a';
  const billed = Math.ceil(durationMs);
  const used = 96;
  if (settings.logFormat === 'Text') {
    return [
      `START RequestId: ${id} Version: $LATEST`,
      `END RequestId: ${id}`,
      `REPORT RequestId: ${id}\tDuration: ${durationMs.toFixed(2)} ms\tBilled Duration: ${billed} ms\tMemory Size: ${memoryMb} MB\tMax Memory Used: ${used} MB\t`,
    ].join('\n') + '\n';
  }
  if (settings.systemLogLevel === 'WARN') return '';
  const time = '2026-11-26T12:00:00.000Z';
  return [
    JSON.stringify({ time, type: 'platform.start', record: { requestId: id, version: '$LATEST' } }),
    JSON.stringify({ time, type: 'platform.report', record: { requestId: id, metrics: { durationMs: Number(durationMs.toFixed(3)), billedDurationMs: billed, memorySizeMB: memoryMb, maxMemoryUsedMB: used }, status: 'success' } }),
  ].join('\n') + '\n';
}

/**
 * An API Gateway access log line: the stage's access log format with the request's values
 * (representative ids, time, address and user agent; the measured path, status and length).
 */
export function accessLogLine(format: string, request: { method: string; resourcePath: string; path: string; status: number; responseLength: number }): string {
  const values: Record<string, string> = {
    '$context.requestId': '5f0e2a1c-8d3b-4e6f-a7b9-0c1d2e3f4a5b',
    '$context.extendedRequestId': 'AbCdEfGhIjKlMnO=',
    '$context.requestTime': '26/Nov/2026:12:00:00 +0000',
    '$context.httpMethod': request.method,
    '$context.resourcePath': request.resourcePath,
    '$context.path': `/live${request.path}`,
    '$context.status': String(request.status),
    '$context.protocol': 'HTTP/1.1',
    '$context.responseLength': String(request.responseLength),
    '$context.responseLatency': '23',
    '$context.integrationLatency': '21',
    '$context.integrationStatus': String(request.status),
    '$context.error.responseType': '-',
    '$context.error.message': '-',
    '$context.identity.sourceIp': '203.0.113.42',
    '$context.identity.userAgent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  };
  return format.replace(/\$context\.[A-Za-z.]+/g, (name) => values[name] ?? '-');
}

/**
 * Requests through an edge with a share `hitRatio` answered from its cache: every request is a
 * CloudFront request and sends the viewer's bytes; only the misses reach the origin, whose bytes
 * to CloudFront cost nothing (an AWS origin), while what CloudFront sends it (`bytesToOrigin` a
 * miss: a delivery's body and headers; a read's few hundred bytes of headers are left out) is
 * billed as data transfer to the origin. A delivery is never cached: `hitRatio` 0.
 */
export function throughEdge(origin: Usage, viewerBytes: number, hitRatio: number, bytesToOrigin = 0): Usage {
  const { apiGatewayBytesOut: _free, ...atOrigin } = origin;
  const miss: Usage = bytesToOrigin > 0 ? addUsage(atOrigin, { cloudfrontBytesToOrigin: bytesToOrigin }) : atOrigin;
  return addUsage({ cloudfrontRequests: 1, cloudfrontBytesOut: viewerBytes }, miss, 1 - hitRatio);
}
