import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { operations } from '../functions/contract/operations';
import { lambdaOperations } from '../lib/stack/operation-functions';
import { BASELINE_SOURCE } from './lib/baseline';
import { bundle } from './lib/bundle';
const root = path.resolve(__dirname, '..');
const measure = (file: string): number => {
  const r = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, '--hash-seed=42', '--random-seed=42', '/tmp/req.js', file], { encoding: 'utf8', env: { PATH: process.env.PATH!, POWERTOOLS_LOG_LEVEL: 'INFO', AWS_REGION: 'eu-central-1', TABLE_NAME: 'records', LEDGER_VERIFIER_KEYS: '' } });
  return Number(/Collected : (\d+)/.exec(r.stderr)![1]);
};
(async () => {
  const only = process.argv.slice(2);
  const base = measure((await bundle({ name: 'b.ts', contents: BASELINE_SOURCE }, '/tmp/qb2/baseline', root, { credentials: 'sdk-chain' })).file);
  console.log('stock baseline', (base / 1e6).toFixed(2), 'M');
  for (const op of lambdaOperations(operations).filter((o) => o.integration.access === 'table-read' && (only.length === 0 || only.includes(o.operationId)))) {
    const b = await bundle(op.integration.entry, `/tmp/qb2/${op.operationId}`, root);
    const n = measure(b.file);
    console.log(op.operationId.padEnd(26), ((n - base) / 1e6).toFixed(2), 'M vs stock;', (n / base).toFixed(3), 'x;', (b.bytes / 1024).toFixed(1), 'KiB');
  }
})();
