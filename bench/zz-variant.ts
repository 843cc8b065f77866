import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { esbuildOptionsAsDeployed } from '../lib/stack/bundling';
const root = path.resolve(__dirname, '..');
const measure = (file: string): number => {
  const r = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, '--hash-seed=42', '--random-seed=42', '/tmp/req.js', file], { encoding: 'utf8', env: { PATH: process.env.PATH!, POWERTOOLS_LOG_LEVEL: 'INFO', AWS_REGION: 'eu-central-1', TABLE_NAME: 'records', LEDGER_VERIFIER_KEYS: '' } });
  return Number(/Collected : (\d+)/.exec(r.stderr)![1]);
};
(async () => {
  const [entry, ...aliases] = process.argv.slice(2);
  const pairs = aliases.map((a) => a.split('=') as [string, string]);
  const plugin = { name: 'swap', setup(b: any) { b.onResolve({ filter: /.*/ }, (args: any) => { for (const [from, to] of pairs) if (args.path.endsWith(from)) return { path: path.join(root, to) }; return undefined; }); } };
  const outfile = '/tmp/qb3/variant/index.js';
  mkdirSync(path.dirname(outfile), { recursive: true });
  const opts = esbuildOptionsAsDeployed();
  await build({ entryPoints: [path.join(root, entry)], absWorkingDir: root, ...opts, plugins: [plugin], outfile, logLevel: 'silent' });
  console.log((measure(outfile) / 1e6).toFixed(2), 'M');
})();
