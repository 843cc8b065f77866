import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { CompactRange, MerkleTree } from '#verify/node/merkle-tree';
import { formatDuration, progressText } from '../../lib/loader/progress';
import { importLine } from '../../lib/loader/import-files';
import { syntheticRecord } from '../../bench/lib/synthetic-records';
import { validateRecords } from '../../lib/loader/load';

const leaf = (i: number) => createHash('sha256').update(`leaf ${i}`).digest();

describe('CompactRange: a stored log checked in O(log n) memory', () => {
  it('gives the RFC 9162 root of every size the full tree gives (seeded sizes up to 5,000)', () => {
    const tree = new MerkleTree();
    const range = new CompactRange();
    expect(range.root().equals(tree.root())).toBe(true);
    const sizes = new Set(fc.sample(fc.integer({ min: 1, max: 5000 }), { seed: 9162, numRuns: 60 }));
    for (let i = 0; i < 5000; i++) {
      tree.append(leaf(i));
      range.append(leaf(i));
      if (sizes.has(i + 1) || i < 70) expect({ size: i + 1, same: range.root().equals(tree.root()) }).toEqual({ size: i + 1, same: true });
    }
  });
});

describe('progress lines', () => {
  it('say how far, how fast and how long is left', () => {
    expect(progressText('writing', 'records', 12_000, 200_000, 6)).toBe('writing: 12,000/200,000 records (6%), 2,000 records/s, ETA 1 min 34 s');
    expect(progressText('checking', 'bytes', 50 * 2 ** 20, 200 * 2 ** 20, 2, '90,000 records')).toBe('checking: 50.0/200.0 MiB (25%), 90,000 records, 25.0 MiB/s, ETA 6 s');
    // No rate (nor ETA) before there is time enough behind it to mean something.
    expect(progressText('writing', 'records', 500, 200_000, 0.01)).toBe('writing: 500/200,000 records (0%)');
    expect(progressText('writing', 'records', 200_000, 200_000, 100)).toBe('writing: 200,000/200,000 records (100%), 2,000 records/s');
    expect([formatDuration(59.2), formatDuration(3 * 3600 + 125)]).toEqual(['1 min 0 s', '3 h 2 min']);
  });
});

describe('DynamoDB import lines', () => {
  it('are one {"Item": ...} object a line, binary values in base64, nothing else', () => {
    const line = importLine({ pk: { S: 'L#LOG' }, sk: { S: 'E#000000000001' }, leafHash: { B: Buffer.from([0, 1, 254, 255]) }, version: { N: '3' }, done: { BOOL: true } });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({ Item: { pk: { S: 'L#LOG' }, sk: { S: 'E#000000000001' }, leafHash: { B: 'AAH+/w==' }, version: { N: '3' }, done: { BOOL: true } } });
  });
});

describe('synthetic record files', () => {
  it('are the same for a seed, valid, and about 0.8 KB a record', () => {
    const records = Array.from({ length: 200 }, (_, n) => syntheticRecord(4, n));
    expect(records).toEqual(Array.from({ length: 200 }, (_, n) => syntheticRecord(4, n)));
    expect(validateRecords({ records })).toHaveLength(200);
    const bytes = records.reduce((n, r) => n + JSON.stringify(r).length + 1, 0) / records.length;
    expect(bytes).toBeGreaterThan(600);
    expect(bytes).toBeLessThan(1100);
  });
});
