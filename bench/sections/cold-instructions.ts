/**
 * The cold start counted in machine instructions: each function's bundle and each yardstick
 * loaded once under valgrind (callgrind, counting only), with V8's hash and random seeds fixed.
 * The count of a bundle repeats to within a few thousandths of a percent, where the CPU time the
 * core section measures moves by a few percent between rounds: these ratios tell the functions
 * that sit on a goal's line apart from those clearly on one side. They are instructions, not time
 * (a process start also spends time the count does not see: page faults, file reads), so the
 * goals stay the core section's, in CPU time.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { operations } from '../../functions/contract/operations';
import { lambdaOperations } from '../../lib/stack/operation-functions';
import { BASELINE_SOURCE, CARD_BASELINE_SOURCE, CARD_FLOOR_SOURCE, EMPTY_SOURCE } from '../lib/baseline';
import { bundle } from '../lib/bundle';
import { FUNCTION_NODE_OPTIONS, functionEnvironment } from '../lib/cold-start';
import { round } from '../lib/stats';
import type { BenchRow, BenchSection } from '../lib/types';

const run = promisify(execFile);

/** Loads the bundle as the core section's probe does, up to a callable handler. */
const PROBE = "const m = require(process.argv[1]); if (typeof m.handler !== 'function') process.exit(3);";

async function valgrindVersion(): Promise<string> {
  try {
    return (await run('valgrind', ['--version'])).stdout.trim();
  } catch {
    throw new Error('valgrind is not installed: this section counts instructions with it (Debian: apt-get install valgrind)');
  }
}

/** Instructions a fresh process executes from start to the handler being ready. */
async function instructions(file: string, env: Record<string, string>): Promise<number> {
  const { stderr } = await run(
    'valgrind',
    ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, '--hash-seed=42', '--random-seed=42', ...FUNCTION_NODE_OPTIONS, '-e', PROBE, file],
    { env: { PATH: process.env.PATH ?? '', ...env }, maxBuffer: 16 * 1024 * 1024 },
  );
  const collected = /Collected : (\d+)/.exec(stderr);
  if (!collected) throw new Error(`valgrind reported no instruction count for ${file}: ${stderr.slice(-500)}`);
  return Number(collected[1]);
}

/** Runs `task` over `items`, `width` at a time (the counts do not depend on what else runs). */
async function inParallel<T, R>(items: readonly T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i]);
      }
    }),
  );
  return results;
}

const millions = (count: number) => round(count / 1e6, 1);
/** Three decimals: a count repeats far closer than that. */
const ratio = (count: number, base: number) => round(count / base, 3);

export const section: BenchSection = {
  name: 'cold-instructions',
  timeoutMs: 30 * 60_000,
  async run(ctx) {
    const version = await valgrindVersion();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-instructions-'));
    try {
      const ops = lambdaOperations(operations);
      const yardsticks = [
        { id: 'stock baseline', source: BASELINE_SOURCE, credentials: 'sdk-chain' as const },
        { id: 'card baseline', source: CARD_BASELINE_SOURCE, credentials: 'sdk-chain' as const },
        { id: 'card floor', source: CARD_FLOOR_SOURCE, credentials: 'environment' as const },
        { id: 'empty module', source: EMPTY_SOURCE, credentials: 'environment' as const },
      ];
      const subjects = [
        ...(await Promise.all(
          yardsticks.map(async (y, i) => ({ id: y.id, file: (await bundle({ name: `yardstick-${i}.ts`, contents: y.source }, path.join(dir, `yardstick-${i}`), ctx.root, { credentials: y.credentials })).file, env: functionEnvironment(null) })),
        )),
        ...(await Promise.all(ops.map(async (op) => ({ id: op.operationId, file: (await bundle(op.integration.entry, path.join(dir, op.operationId), ctx.root)).file, env: functionEnvironment(op) })))),
      ];
      const counts = new Map<string, number>();
      const measured = await inParallel(subjects, Math.max(1, os.availableParallelism()), (s) => instructions(s.file, s.env));
      subjects.forEach((s, i) => counts.set(s.id, measured[i]));

      const count = (id: string) => counts.get(id)!;
      const rows: BenchRow[] = yardsticks.map((y) => ({
        metric: `cold init instructions: ${y.id}`,
        value: millions(count(y.id)),
        unit: 'M instructions',
        note: `one load under ${version} (callgrind), start to handler export`,
      }));
      for (const op of ops) {
        const id = op.operationId;
        // The same yardsticks as the core section: the receivers carry the DynamoDB client too.
        const usesTable = op.integration.access === 'table-read' || op.integration.access === 'ingress-write';
        rows.push(
          usesTable
            ? { metric: `cold init instruction ratio: ${id}`, value: ratio(count(id), count('stock baseline')), unit: 'x stock baseline', note: `${ratio(count(id), count('card baseline'))}x card baseline; ${millions(count(id))} M` }
            : { metric: `cold init instruction ratio: ${id}`, value: ratio(count(id), count('card floor')), unit: 'x card floor', note: `${millions(count(id) - count('card floor'))} M over it; ${millions(count(id))} M` },
        );
      }
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
