/**
 * Synthetic record files for bulk loads: deterministic for a seed (same seed and count, same
 * bytes), written as a stream (any count in flat memory). Object records shaped like the demo's
 * orders, about 1 KB each (30,000 make a file of about 29 MB), with 2 to 9 history entries, some
 * versions not yet anchored, and fictitious restricted data. No real personal data.
 *
 *   npm run records -- --count 200000 [--seed 1] [--format ndjson|document] --out FILE
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';

/** mulberry32: a small, well-known seeded generator of numbers in [0, 1); enough for varied, reproducible data and orders. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = ['ORDER', 'WARRANTY', 'DEVICE', 'SUBSCRIPTION', 'PURCHASE'];
const FLOWS: Record<string, string[]> = {
  ORDER: ['PLACED', 'CONFIRMED', 'SHIPPED', 'DELIVERED', 'RETURNED'],
  WARRANTY: ['ACTIVE', 'SUPERSEDED'],
  DEVICE: ['IN_SERVICE', 'RECALLED', 'ARCHIVED'],
  SUBSCRIPTION: ['ACTIVE', 'CANCELLED'],
  PURCHASE: ['PLACED', 'FULFILLED', 'DELIVERED'],
};
const SOURCES = ['COMMERCE_PLATFORM_SYNC', 'CARRIER_FEED', 'DEVICE_REGISTRY_SYNC'];
const BASE = Date.parse('2026-01-01T00:00:00Z');
const MINUTE = 60_000;

/** The n-th record for a seed (records are independent, so a file can be written in any amount). */
export function syntheticRecord(seed: number, n: number): Record<string, unknown> {
  const random = seeded(seed * 1_000_003 + n);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const objectType = pick(TYPES);
  const flow = FLOWS[objectType];
  const reference = `SYN-${seed}-${String(n).padStart(9, '0')}`;
  let at = BASE + Math.floor(random() * 300 * 24 * 60) * MINUTE;
  const history: Record<string, unknown>[] = [];
  const steps = 2 + Math.floor(random() * 8);
  let state = 0;
  for (let i = 0; i < steps; i++) {
    at += (1 + Math.floor(random() * 3 * 24 * 60)) * MINUTE;
    const instant = new Date(at).toISOString();
    if (i === 0 || (random() < 0.4 && state + 1 < flow.length)) {
      if (i > 0) state++;
      const change: Record<string, unknown> = { type: 'STATE_CHANGED', at: instant, state: flow[state] };
      if (i > 0 && random() < 0.05) change.anchored = false;
      history.push(change);
    } else {
      history.push({ type: 'AUTHORITY_OBSERVED', at: instant, source: pick(SOURCES) });
    }
  }
  const number = `${2026}-${String(n).padStart(7, '0')}`;
  return {
    kind: 'OBJECT',
    reference,
    objectType,
    businessReference: `${objectType} ${number}`,
    title: `${objectType[0]}${objectType.slice(1).toLowerCase()} ${number}`,
    authority: 'Service platform',
    freshnessSeconds: pick([3600, 86_400, 604_800]),
    history,
    restricted: {
      customer: { name: `Customer ${n} (fictitious)`, email: `customer-${n}@example.invalid` },
      note: `synthetic record ${n} of seed ${seed}`,
    },
  };
}

export type SyntheticFormat = 'ndjson' | 'document';

/** Writes `count` records of `seed` to `file`: NDJSON, or one { "records": [...] } document. */
export async function writeSyntheticFile(file: string, count: number, seed = 1, format: SyntheticFormat = 'ndjson'): Promise<void> {
  const out = createWriteStream(file);
  const put = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  if (format === 'document') await put('{"records":[\n');
  for (let n = 0; n < count; n++) {
    const line = JSON.stringify(syntheticRecord(seed, n));
    await put(format === 'document' ? `${n > 0 ? ',\n' : ''}${line}` : `${line}\n`);
  }
  if (format === 'document') await put('\n]}\n');
  out.end();
  await once(out, 'close');
}

if (require.main === module) {
  const { values } = parseArgs({ options: { count: { type: 'string' }, seed: { type: 'string', default: '1' }, format: { type: 'string', default: 'ndjson' }, out: { type: 'string' } } });
  if (!values.count || !values.out || !['ndjson', 'document'].includes(values.format!)) {
    console.error('usage: npm run records -- --count N [--seed S] [--format ndjson|document] --out FILE');
    process.exit(2);
  }
  void writeSyntheticFile(values.out, Number(values.count), Number(values.seed), values.format as SyntheticFormat).then(() => console.error(`wrote ${values.count} records to ${values.out}`));
}
