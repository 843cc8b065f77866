import { ACCESS_LOG_FIELDS, accessLogFormat } from '../../lib/stack/public-api';
import {
  accessLogLine,
  addUsage,
  billedMs,
  gbSeconds,
  GB,
  itemized,
  loadPrices,
  logBytes,
  platformLines,
  price,
  scaled,
  throughEdge,
  total,
  unitRate,
  type PriceTable,
} from '../../bench/lib/cost/model';
import { eventsPerBatch, provisionedMonth } from '../../bench/sections/cost';
import { STREAM_BATCH_SIZE } from '../../lib/stack/sequencer';

/**
 * The cost bench's arithmetic (bench/lib/cost/model.ts) and its price table (bench/prices.json):
 * each line item is the usage times the table's price, data in GB of 2^30 bytes, Lambda's duration
 * in GB-seconds of the billed milliseconds, a log event its bytes and its overhead.
 */
const prices = loadPrices();
/** A table of round prices, so the arithmetic is checked apart from today's prices. */
const ROUND: PriceTable = {
  ...prices,
  prices: Object.fromEntries(Object.entries(prices.prices).map(([name, p]) => [name, { ...p, usd: 1, per: 1 }])),
};

describe('the price table', () => {
  test('is dated, names its region and currency, and every price has an AWS source and a unit', () => {
    expect(prices.region).toBe('us-east-1');
    expect(prices.currency).toBe('USD');
    expect(prices.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const [name, p] of Object.entries(prices.prices)) {
      expect({ name, source: p.source }).toEqual({ name, source: expect.stringMatching(/^https:\/\/(aws\.amazon\.com|docs\.aws\.amazon\.com)\//) });
      expect(p.usd).toBeGreaterThan(0);
      expect(p.per).toBeGreaterThan(0);
      expect(p.unit.length).toBeGreaterThan(0);
    }
  });

  test('the figures the bill rests on: a REST call $3.50 a million, an Arm GB-second $0.0000133334, a read unit $0.125 and a write unit $0.625 a million, a logged GB $0.50', () => {
    const perMillion = (name: string) => (prices.prices[name].usd / prices.prices[name].per) * 1e6;
    expect(perMillion('apiGatewayRestRequest')).toBeCloseTo(3.5);
    expect(perMillion('dynamodbReadRequestUnit')).toBeCloseTo(0.125);
    expect(perMillion('dynamodbWriteRequestUnit')).toBeCloseTo(0.625);
    expect(prices.prices.lambdaArmGbSecond.usd).toBe(0.0000133334);
    expect(prices.prices.logsStandardIngestGb.usd).toBe(0.5);
    expect(prices.prices.logsInfrequentAccessIngestGb.usd).toBe(0.25);
  });
});

describe('a bill', () => {
  test('prices each usage by its line: units times the price per unit, bytes per GB of 2^30', () => {
    const bill = price({ apiGatewayRequests: 2, dynamodbReadUnits: 3, logBytesStandard: GB / 2, cloudfrontBytesOut: GB }, ROUND);
    expect(bill).toEqual({ 'API Gateway requests': 2, 'DynamoDB reads': 3, 'CloudWatch Logs': 0.5, 'CloudFront data transfer out': 1 });
    expect(total(bill)).toBe(6.5);
  });

  test('a million object reads at today\'s prices: one REST call and one read unit each are $3.50 and $0.125', () => {
    const bill = scaled(price({ apiGatewayRequests: 1, dynamodbReadUnits: 1 }, prices), 1e6);
    expect(bill['API Gateway requests']).toBeCloseTo(3.5, 6);
    expect(bill['DynamoDB reads']).toBeCloseTo(0.125, 6);
    expect(itemized(bill)).toBe('API Gateway requests $3.500, DynamoDB reads $0.125');
  });

  test('the table provisioned: a unit used costs the unit-hour over the 3,600 it serves, divided by the share in use; at 70%, 0.41x of on demand for writes and for reads', () => {
    expect(prices.prices.dynamodbProvisionedWriteCapacityUnitHour.usd).toBe(0.00065);
    expect(prices.prices.dynamodbProvisionedReadCapacityUnitHour.usd).toBe(0.00013);
    const provisioned = { mode: 'provisioned', utilization: 0.7 } as const;
    // $0.00065 / 3,600 / 0.7 = $0.258 a million write units; $0.00013 / 3,600 / 0.7 = $0.0516 a million read units.
    expect(unitRate(prices, 'write', provisioned) * 1e6).toBeCloseTo(0.2579, 4);
    expect(unitRate(prices, 'read', provisioned) * 1e6).toBeCloseTo(0.05159, 5);
    expect(unitRate(prices, 'write', provisioned) / unitRate(prices, 'write', { mode: 'on-demand' })).toBeCloseTo(0.413, 3);
    // Only the DynamoDB lines change.
    const usage = { apiGatewayRequests: 1, dynamodbReadUnits: 2, dynamodbWriteUnits: 3 };
    const bill = price(usage, ROUND, { mode: 'provisioned', utilization: 0.5 });
    expect(Object.keys(bill)).toEqual(['API Gateway requests', 'DynamoDB reads', 'DynamoDB writes']);
    expect(bill['API Gateway requests']).toBe(1);
    expect(bill['DynamoDB reads']).toBeCloseTo(2 / 1800, 12);
    expect(bill['DynamoDB writes']).toBeCloseTo(3 / 1800, 12);
    expect(price(usage, ROUND)).toEqual({ 'API Gateway requests': 1, 'DynamoDB reads': 2, 'DynamoDB writes': 3 });
  });

  test('reserved capacity: the provisioned unit-hour less what AWS says a term saves at most (54% a year, 77% three years), at the same share in use', () => {
    const provisioned = { mode: 'provisioned', utilization: 0.7 } as const;
    for (const [term, kept] of [['1-year', 0.46], ['3-year', 0.23]] as const) {
      for (const kind of ['read', 'write'] as const) {
        expect(unitRate(prices, kind, { ...provisioned, reserved: term }) / unitRate(prices, kind, provisioned)).toBeCloseTo(kept, 3);
      }
    }
    // $0.0001495 / 3,600 / 0.7 = $0.0593 a million write units: 0.095x of on demand.
    expect(unitRate(prices, 'write', { ...provisioned, reserved: '3-year' }) * 1e6).toBeCloseTo(0.0593, 4);
  });

  test("a provisioned month: the units' cost, but never below the least capacity kept (the table's and its index's minimum for every hour)", () => {
    const hours = (30.4 * 86_400) / 3600;
    // 5 units of each, twice (table and index): at least $0.00065 x 10 x 729.6 h = $4.74 of writes and $0.95 of reads.
    const floor = provisionedMonth({ 'DynamoDB reads': 0.01, 'DynamoDB writes': 0.02, 'Lambda requests': 1 }, prices);
    expect(floor['DynamoDB writes']).toBeCloseTo(0.00065 * 10 * hours, 6);
    expect(floor['DynamoDB reads']).toBeCloseTo(0.00013 * 10 * hours, 6);
    expect(floor['Lambda requests']).toBe(1);
    // A month that uses more than the floor pays for what it uses.
    expect(provisionedMonth({ 'DynamoDB reads': 100, 'DynamoDB writes': 200 }, prices)).toEqual({ 'DynamoDB reads': 100, 'DynamoDB writes': 200 });
  });

  test('usages add with a weight; nothing used costs nothing', () => {
    expect(addUsage({ lambdaRequests: 1 }, { lambdaRequests: 2, s3Puts: 4 }, 0.5)).toEqual({ lambdaRequests: 2, s3Puts: 2 });
    expect(price({}, prices)).toEqual({});
  });
});

describe('Lambda duration', () => {
  test('CPU time stretched to the function\'s share of a vCPU (1,769 MB is one), plus each call\'s wait, rounded up to the millisecond', () => {
    // 10 ms of CPU at 512 MB: 34.55 ms; one DynamoDB call, 5 ms: 40 ms.
    expect(billedMs(10, 512, { dynamodb: 1 })).toBe(40);
    // A function with a vCPU or more runs at this machine's speed.
    expect(billedMs(10, 2048, { dynamodb: 2, s3: 1, kms: 1 })).toBe(10 + 10 + 20 + 10);
    expect(billedMs(0, 512, {})).toBe(1);
  });

  test('GB-seconds: memory in GB times seconds', () => {
    expect(gbSeconds(512, 1000)).toBe(0.5);
    expect(gbSeconds(1024, 250)).toBe(0.25);
  });
});

describe('log bytes', () => {
  test('each line is a log event: its bytes, its newline and 26 bytes of overhead', () => {
    expect(logBytes('a\nbb\n')).toEqual({ events: 2, bytes: 1 + 1 + 26 + (2 + 1 + 26) });
    expect(logBytes('')).toEqual({ events: 0, bytes: 0 });
    expect(logBytes('ü\n').bytes).toBe(2 + 1 + 26);
  });

  test('Lambda\'s own lines: START, END and REPORT in plain text; platform.start and platform.report in JSON at INFO; none at WARN', () => {
    const text = platformLines({ logFormat: 'Text', systemLogLevel: null }, 512, 12.3);
    expect(text.split('\n').filter(Boolean).map((line) => line.split(' ')[0])).toEqual(['START', 'END', 'REPORT']);
    expect(text).toContain('Billed Duration: 13 ms\tMemory Size: 512 MB');
    const json = platformLines({ logFormat: 'JSON', systemLogLevel: 'INFO' }, 1024, 3);
    expect(json.split('\n').filter(Boolean).map((line) => JSON.parse(line).type)).toEqual(['platform.start', 'platform.report']);
    expect(platformLines({ logFormat: 'JSON', systemLogLevel: 'WARN' }, 512, 3)).toBe('');
  });

  test('an access log line is the stage\'s format with the request\'s values: one JSON object', () => {
    const line = accessLogLine(accessLogFormat(), { method: 'GET', resourcePath: '/v1/objects/{reference}', path: '/v1/objects/ORD-1', status: 200, responseLength: 2048 });
    const parsed = JSON.parse(line);
    expect(Object.keys(parsed)).toEqual(Object.keys(ACCESS_LOG_FIELDS));
    expect(parsed).toMatchObject({ httpMethod: 'GET', resourcePath: '/v1/objects/{reference}', path: '/live/v1/objects/ORD-1', status: 200, responseLength: '2048' });
  });
});

describe('an edge and the sequencer\'s batches', () => {
  test('behind an edge every read is a CloudFront request and sends the viewer\'s bytes; only the misses reach the origin, whose bytes to CloudFront are free', () => {
    const origin = { apiGatewayRequests: 1, apiGatewayBytesOut: 2000, lambdaRequests: 1, dynamodbReadUnits: 1 };
    const edge = throughEdge(origin, 1500, 0.95);
    expect(Object.keys(edge).sort()).toEqual(['apiGatewayRequests', 'cloudfrontBytesOut', 'cloudfrontRequests', 'dynamodbReadUnits', 'lambdaRequests']);
    expect(edge).toMatchObject({ cloudfrontRequests: 1, cloudfrontBytesOut: 1500 });
    for (const key of ['apiGatewayRequests', 'lambdaRequests', 'dynamodbReadUnits'] as const) expect(edge[key]).toBeCloseTo(0.05, 12);
    expect(throughEdge(origin, 1500, 0)).toMatchObject({ apiGatewayRequests: 1, lambdaRequests: 1 });
  });

  test('a delivery through the edge is a CloudFront request never kept, whose body and headers CloudFront sends on to the origin at the price of data transfer to the origin', () => {
    const origin = { apiGatewayRequests: 1, apiGatewayBytesOut: 400, lambdaRequests: 1, dynamodbWriteUnits: 3 };
    const edge = throughEdge(origin, 400, 0, 1200);
    expect(edge).toEqual({ cloudfrontRequests: 1, cloudfrontBytesOut: 400, cloudfrontBytesToOrigin: 1200, apiGatewayRequests: 1, lambdaRequests: 1, dynamodbWriteUnits: 3 });
    const bill = price(edge, loadPrices());
    // $0.01 per 10,000 HTTPS requests; $0.02 a GB to the origin (bench/prices.json).
    expect(bill['CloudFront requests']).toBeCloseTo(0.000001, 12);
    expect(bill['CloudFront data transfer to origin']).toBeCloseTo((1200 / GB) * 0.02, 15);
    expect(bill['API Gateway data transfer out']).toBeUndefined();
    // A read's misses carry the same bytes in their share.
    expect(throughEdge(origin, 400, 0.9, 1000).cloudfrontBytesToOrigin).toBeCloseTo(100, 9);
  });

  test('events per batch: what arrives in the stream\'s 2 s window, between 1 and 100', () => {
    expect(eventsPerBatch(100_000)).toBe(1);
    expect(eventsPerBatch(100_000_000)).toBeCloseTo(76.1, 1);
    expect(eventsPerBatch(10_000_000_000)).toBe(STREAM_BATCH_SIZE);
  });
});
