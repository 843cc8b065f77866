/**
 * Bulk loads (`load-bulk`): `npm run load` of synthetic NDJSON files of 20,000 and 200,000 object
 * records (bench/lib/synthetic-records.ts, seed 1, about 0.8 KB a record), each into a fresh
 * store, and `--export` of the 200,000. Each load is the real CLI in its own process; its peak
 * resident memory is the operating system's (GNU time's maximum resident set size of the loader's
 * process, which runs TypeScript through tsx in the same process), its throughput the records of
 * the file over the process's wall time (start-up and the checking pass included).
 *
 * The goals (issue 23): peak memory at most 400 MB at 200,000 records and within 1.2x of the
 * 20,000-record load; records/s at 200,000 at least 0.8x those at 20,000.
 *
 * The store (dynalite) runs in a process of its own, on disk in a temporary folder: held in
 * memory, it would grow with the data (about 15 KB a record, 3 GB at 200,000) and its own
 * slowing down with size would be measured as the loader's. Its peak memory is reported apart.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeSyntheticFile } from '../lib/synthetic-records';
import { round } from '../lib/stats';
import { freePort, startStore } from '../lib/store-process';
import type { BenchContext, BenchRow, BenchSection } from '../lib/types';

const SMALL = Number(process.env.LOAD_BULK_SMALL ?? 20_000);
const LARGE = Number(process.env.LOAD_BULK_LARGE ?? 200_000);
const MiB = 1024 * 1024;
const GNU_TIME = '/usr/bin/time';

/** Peak resident memory of a live process (the kernel's high-water mark), in bytes. */
const peakOf = (pid: number): number => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;

interface Run {
  seconds: number;
  peakBytes: number;
  stdout: string;
  /** How the peak was measured. */
  method: string;
}

/**
 * The loader CLI as a user runs it, under GNU time when the machine has it (the exact maximum
 * resident set size, from the kernel at exit); else /proc's high-water mark read every 100 ms
 * while it runs (a lower bound by at most the last 100 ms).
 */
function runLoader(root: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const node = [process.execPath, '--import', 'tsx', path.join(root, 'bin/load.ts'), ...args];
    const timed = existsSync(GNU_TIME);
    const started = performance.now();
    const child = timed
      ? spawn(GNU_TIME, ['-f', 'BENCH_PEAK_KB=%M', ...node], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(node[0], node.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let polled = 0;
    const poll = timed ? null : setInterval(() => {
      try {
        polled = Math.max(polled, peakOf(child.pid!));
      } catch {
        // gone
      }
    }, 100);
    child.stdout!.on('data', (d: Buffer) => (stdout += d));
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    child.once('error', reject);
    child.on('exit', (code) => {
      if (poll) clearInterval(poll);
      const seconds = (performance.now() - started) / 1000;
      if (code !== 0) return reject(new Error(`load ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
      const kb = Number(/BENCH_PEAK_KB=(\d+)/.exec(stderr)?.[1] ?? NaN);
      resolve({ seconds, peakBytes: timed ? kb * 1024 : polled, stdout, method: timed ? 'GNU time, maximum resident set size' : '/proc VmHWM polled every 100 ms' });
    });
  });
}

async function loadInto(ctx: BenchContext, dir: string, file: string, label: string): Promise<Run & { storePeakBytes: number }> {
  const port = await freePort();
  const store = await startStore(ctx.root, port, path.join(dir, `store-${label}`));
  try {
    const keys = path.join(dir, `keys-${label}`);
    const run = await runLoader(ctx.root, [file, '--endpoint', `http://127.0.0.1:${port}`, '--table', 'bulk', '--create-table', '--dev-key-dir', keys, '--tiles-dir', path.join(keys, 'tiles')]);
    return { ...run, storePeakBytes: peakOf(store.pid!) };
  } finally {
    store.kill('SIGKILL');
  }
}

export const section: BenchSection = {
  name: 'load-bulk',
  timeoutMs: 90 * 60_000,
  run: async (ctx: BenchContext): Promise<BenchRow[]> => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-load-bulk-'));
    try {
      const small = path.join(dir, `records-${SMALL}.ndjson`);
      const large = path.join(dir, `records-${LARGE}.ndjson`);
      await writeSyntheticFile(small, SMALL, 1);
      await writeSyntheticFile(large, LARGE, 1);
      const a = await loadInto(ctx, dir, small, 'small');
      const b = await loadInto(ctx, dir, large, 'large');
      const exported = await runLoader(ctx.root, [large, '--export', path.join(dir, 'export'), '--dev-key-dir', path.join(dir, 'keys-export')]);
      const checked = await runLoader(ctx.root, [large, '--dry-run']);
      const rate = (records: number, run: Run) => records / run.seconds;
      const mib = (bytes: number) => round(bytes / MiB, 0);
      const note = (records: number, run: Run) => `${records.toLocaleString('en-US')} records in ${round(run.seconds, 1)} s; peak ${mib(run.peakBytes)} MiB (${run.method})`;
      return [
        { metric: `load ${LARGE.toLocaleString('en-US')} records: peak resident memory of the loader`, value: mib(b.peakBytes), unit: 'MiB', note: `goal: at most 400 MB; ${b.method}` },
        { metric: `load: peak memory, ${LARGE.toLocaleString('en-US')} vs ${SMALL.toLocaleString('en-US')} records`, value: round(b.peakBytes / a.peakBytes, 2), unit: 'x', note: `goal: at most 1.2x; ${mib(a.peakBytes)} -> ${mib(b.peakBytes)} MiB` },
        { metric: `load ${SMALL.toLocaleString('en-US')} records: throughput`, value: round(rate(SMALL, a), 0), unit: 'records/s', note: note(SMALL, a) },
        { metric: `load ${LARGE.toLocaleString('en-US')} records: throughput`, value: round(rate(LARGE, b), 0), unit: 'records/s', note: note(LARGE, b) },
        { metric: `load: records/s, ${LARGE.toLocaleString('en-US')} vs ${SMALL.toLocaleString('en-US')} records`, value: round(rate(LARGE, b) / rate(SMALL, a), 2), unit: 'x', note: 'goal: at least 0.8x; the store on disk in its own process, a fresh one for each load' },
        { metric: `store process (dynalite, on disk): peak resident memory, ${SMALL.toLocaleString('en-US')} / ${LARGE.toLocaleString('en-US')} records`, value: mib(b.storePeakBytes), unit: 'MiB', note: `${mib(a.storePeakBytes)} MiB at ${SMALL.toLocaleString('en-US')}; the store's own, not the loader's` },
        { metric: `export ${LARGE.toLocaleString('en-US')} records (--export, DynamoDB import files): throughput`, value: round(rate(LARGE, exported), 0), unit: 'records/s', note: `${note(LARGE, exported)}; ${/as (\d+) items in (\d+) files/.exec(exported.stdout)?.slice(1).join(' items, ') ?? ''} files` },
        { metric: `export ${LARGE.toLocaleString('en-US')} records: peak resident memory`, value: mib(exported.peakBytes), unit: 'MiB', note: exported.method },
        { metric: `check only (--dry-run) ${LARGE.toLocaleString('en-US')} records: throughput`, value: round(rate(LARGE, checked), 0), unit: 'records/s', note: note(LARGE, checked) },
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
