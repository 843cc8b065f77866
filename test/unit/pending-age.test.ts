import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import fc from 'fast-check';
import { pendingAgeSeconds, STREAM_BEHIND_MS, streamBehind } from '../../functions/ledger-writer/pending-age';
import { readEmfLine } from '../support/emf';

const SEED = 20261124;

describe('pendingAgeSeconds', () => {
  test('nothing waiting is 0', () => {
    expect(pendingAgeSeconds(null, new Date())).toBe(0);
  });

  test('seconds since the oldest delivery was received, never negative (seeded)', () => {
    const instant = fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2040-01-01T00:00:00Z') });
    fc.assert(
      fc.property(instant, fc.integer({ min: -3_600_000, max: 30 * 86_400_000 }), (received, waitedMs) => {
        const age = pendingAgeSeconds(new Date(received).toISOString(), new Date(received + waitedMs));
        expect(age).toBe(Math.max(0, waitedMs) / 1000);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  test('a receivedAt that is no instant is an error, not a figure', () => {
    expect(() => pendingAgeSeconds('yesterday', new Date())).toThrow(/receivedAt is not an instant/);
  });
});

describe('streamBehind', () => {
  const NOW = Date.parse('2026-12-07T12:00:00.000Z');
  const made = (...seconds: Array<number | undefined>) => seconds.map((s) => ({ dynamodb: s === undefined ? {} : { ApproximateCreationDateTime: s } }));

  test('a batch is behind when its oldest record was made more than STREAM_BEHIND_MS before now, by the stream\'s stamp in whole seconds', () => {
    const at = NOW / 1000;
    expect(streamBehind(made(at, at - 1), NOW)).toBe(false);
    expect(streamBehind(made(at, at - STREAM_BEHIND_MS / 1000), NOW)).toBe(false);
    expect(streamBehind(made(at, at - STREAM_BEHIND_MS / 1000 - 1, at), NOW)).toBe(true);
  });

  test('a batch without stamps, or none at all, says nothing', () => {
    expect(streamBehind([], NOW)).toBe(false);
    expect(streamBehind(made(undefined, undefined), NOW)).toBe(false);
    expect(streamBehind([{}], NOW)).toBe(false);
  });

  test('behind exactly when the oldest stamped record is (seeded)', () => {
    const stamp = fc.option(fc.integer({ min: NOW / 1000 - 3_600, max: NOW / 1000 + 5 }), { nil: undefined });
    fc.assert(
      fc.property(fc.array(stamp, { maxLength: 50 }), (stamps) => {
        const known = stamps.filter((s): s is number => s !== undefined);
        expect(streamBehind(made(...stamps), NOW)).toBe(known.length > 0 && NOW - Math.min(...known) * 1000 > STREAM_BEHIND_MS);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

/**
 * The test reader of embedded-metric-format lines (test/support/emf.ts), against the other
 * implementation of the format, Powertools Metrics (which the sequencer writes with): what one
 * writes the other reads; and what the specification forbids is refused.
 */
describe('reading embedded metric format', () => {
  const written = (build: (m: Metrics) => void) => {
    const metrics = new Metrics({ namespace: 'Test/Namespace', serviceName: 'test-service' });
    build(metrics);
    return JSON.stringify(metrics.serializeMetrics());
  };

  test('reads what Powertools Metrics writes: dimensions, units, several values of one metric', () => {
    const line = written((m) => {
      m.addDimension('TableName', 'records');
      m.addMetric('OldestPendingEventAge', MetricUnit.Seconds, 12.5);
      m.addMetric('Runs', MetricUnit.Count, 1);
      m.addMetric('Runs', MetricUnit.Count, 2);
    });
    expect(readEmfLine(line)).toEqual([
      { namespace: 'Test/Namespace', name: 'OldestPendingEventAge', unit: 'Seconds', values: [12.5], dimensionSets: [{ service: 'test-service', TableName: 'records' }], timestamp: expect.any(Number) },
      { namespace: 'Test/Namespace', name: 'Runs', unit: 'Count', values: [1, 2], dimensionSets: [{ service: 'test-service', TableName: 'records' }], timestamp: expect.any(Number) },
    ]);
  });

  test.each([
    ['no _aws', (d: any) => delete d._aws, /no _aws metadata/],
    ['a timestamp that is not milliseconds', (d: any) => (d._aws.Timestamp = '2026-11-24T00:00:00Z'), /Timestamp/],
    ['a dimension without its member', (d: any) => delete d.TableName, /dimension TableName has no string member/],
    ['a metric without its number', (d: any) => (d.OldestPendingEventAge = '12'), /metric OldestPendingEventAge has no number/],
    ['a unit CloudWatch does not know', (d: any) => (d._aws.CloudWatchMetrics[0].Metrics[0].Unit = 'Minutes'), /unit CloudWatch does not know/],
    ['an empty namespace', (d: any) => (d._aws.CloudWatchMetrics[0].Namespace = ''), /Namespace/],
  ])('refuses %s', (_what, spoil, reason) => {
    const document = JSON.parse(written((m) => {
      m.addDimension('TableName', 'records');
      m.addMetric('OldestPendingEventAge', MetricUnit.Seconds, 12.5);
    }));
    spoil(document);
    expect(() => readEmfLine(JSON.stringify(document))).toThrow(reason);
  });
});
