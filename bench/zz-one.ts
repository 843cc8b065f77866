import path from 'node:path';
import { bundle } from './lib/bundle';
import { CARD_FLOOR_SOURCE } from './lib/baseline';
const root = path.resolve(__dirname, '..');
const measure = (file: string): number => {
  const r = require('node:child_process').spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, '--hash-seed=42', '--random-seed=42', '/tmp/req.js', file], { encoding: 'utf8', env: { PATH: process.env.PATH!, POWERTOOLS_LOG_LEVEL: 'INFO' } });
  return Number(/Collected : (\d+)/.exec(r.stderr)![1]);
};
(async () => {
  const floor = measure((await bundle({ name: 'cf.ts', contents: CARD_FLOOR_SOURCE }, '/tmp/qb2/cf', root)).file);
  for (const entry of process.argv.slice(2)) {
    const b = await bundle(entry, `/tmp/qb2/one-${path.basename(entry, '.ts')}`, root);
    console.log(entry, ((measure(b.file) - floor) / 1e6).toFixed(2), 'M;', (b.bytes / 1024).toFixed(1), 'KiB');
  }
})();
