/**
 * npm run build [-- --out DIR]: every published artefact, generated from the canonical sources:
 * the contract (dist/contract) and the developer documents (dist/site, keyed as in the
 * catalogue bucket, which the stack deploys as is).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SITE_DIR } from '../lib/local/documents';
import { buildSite, pruneSite, writeSite } from '../lib/publish/site';
import { canonicalSources } from '../lib/publish/sources';

const run = (script: string) => execFileSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, script)], { stdio: 'inherit' });

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  run('contract.ts');
  const out = path.resolve(values.out ?? SITE_DIR);
  const site = buildSite(canonicalSources());
  await writeSite(out, site);
  for (const key of await pruneSite(out, site)) console.log(`removed ${key} (no longer built)`);
  console.log(`wrote ${site.size} documents to ${path.relative(process.cwd(), out) || '.'}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
