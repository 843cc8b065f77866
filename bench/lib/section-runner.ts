/**
 * Runs one bench section in this (fresh) process and sends its rows to the parent over IPC.
 * argv: SECTION_FILE ANCHOR_ISO
 */
// First: the sections run handlers from source, which import @middy/core (an ES-module-only package).
import '../../lib/local/esm-only-packages';
import path from 'node:path';
import type { LocalService, startLocalService as StartLocalService } from '../../lib/local/service';
import type { BenchContext, BenchRow, BenchSection } from './types';

export type RunnerMessage = { rows: BenchRow[] } | { error: string } | { timeoutMs: number };

function checkRows(name: string, rows: unknown): BenchRow[] {
  if (!Array.isArray(rows)) throw new Error(`section ${name} returned ${typeof rows}, not an array of rows`);
  rows.forEach((row, i) => {
    const r = row as BenchRow;
    if (typeof r?.metric !== 'string' || typeof r.unit !== 'string' || typeof r.value !== 'number' || !Number.isFinite(r.value)) {
      throw new Error(`section ${name}, row ${i}: expected { metric: string, value: finite number, unit: string }, got ${JSON.stringify(row)}`);
    }
  });
  return rows as BenchRow[];
}

async function main(): Promise<RunnerMessage> {
  const [file, anchorIso] = process.argv.slice(2);
  const section = (require(file) as { section?: BenchSection }).section;
  if (!section || typeof section.name !== 'string' || typeof section.run !== 'function') {
    throw new Error(`${file} does not export \`section = { name, run }\``);
  }
  if (section.timeoutMs) process.send!({ timeoutMs: section.timeoutMs } satisfies RunnerMessage);
  let service: Promise<LocalService> | undefined;
  const ctx: BenchContext = {
    root: path.resolve(__dirname, '../..'),
    anchor: new Date(anchorIso),
    service: () => {
      if (!service) {
        // Loaded on first use: sections that bring their own store do not pay for this one.
        const start = (require('../../lib/local/service') as { startLocalService: typeof StartLocalService }).startLocalService;
        // No sequencer: these sections measure reads, and its polling would be counted among a
        // read's store requests and share the CPU with what is timed (bench/sections/ingress.ts runs its own).
        service = start({ port: 0, anchor: new Date(anchorIso), sequencer: false });
      }
      return service;
    },
  };
  try {
    return { rows: checkRows(section.name, await section.run(ctx)) };
  } finally {
    if (service) await (await service).close();
  }
}

main()
  .catch((error: Error) => ({ error: error.stack ?? String(error) }))
  .then((message) => {
    process.send!(message, () => process.exit(0));
  });
