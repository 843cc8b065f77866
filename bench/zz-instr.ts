// Counts instructions of a cold require (valgrind, fixed V8 seeds) for the card floor and every function that reads nothing.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { operations } from '../functions/contract/operations';
import { lambdaOperations } from '../lib/stack/operation-functions';
import { CARD_FLOOR_SOURCE } from './lib/baseline';
import { bundle } from './lib/bundle';
const root = path.resolve(__dirname, '..');
const count = (file: string) => {
  const out = execFileSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, '--hash-seed=42', '--random-seed=42', '/tmp/req.js', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH!, POWERTOOLS_LOG_LEVEL: 'INFO' } } as never);
  return out;
};
(async () => {
  writeFileSync('/tmp/req.js', 'require(process.argv[2]);');
  const only = process.argv.slice(2);
  const floor = (await bundle({ name: 'cf.ts', contents: CARD_FLOOR_SOURCE }, '/tmp/qb2/cf', root)).file;
  const run = (file: string) => {
    try { execFileSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, '--hash-seed=42', '--random-seed=42', '/tmp/req.js', file], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH!, POWERTOOLS_LOG_LEVEL: 'INFO' } }); } catch (e) { return NaN; }
    return NaN;
  };
  void run; void count;
  const measure = (file: string): number => {
    const r = require('node:child_process').spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, '--hash-seed=42', '--random-seed=42', '/tmp/req.js', file], { encoding: 'utf8', env: { PATH: process.env.PATH!, POWERTOOLS_LOG_LEVEL: 'INFO' } });
    return Number(/Collected : (\d+)/.exec(r.stderr)![1]);
  };
  const base = measure(floor);
  console.log('card floor', (base / 1e6).toFixed(2), 'M');
  for (const op of lambdaOperations(operations).filter((o) => o.integration.access === 'none' && (only.length === 0 || only.includes(o.operationId)))) {
    const b = await bundle(op.integration.entry, `/tmp/qb2/${op.operationId}`, root);
    const n = measure(b.file);
    console.log(op.operationId.padEnd(26), ((n - base) / 1e6).toFixed(2), 'M over the floor;', (b.bytes / 1024).toFixed(1), 'KiB');
  }
})();
