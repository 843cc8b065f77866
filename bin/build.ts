/**
 * npm run build [-- --out DIR] [--records FILE]: every published artefact, generated from the
 * canonical sources: the contract (dist/contract) and the developer documents (dist/site, keyed as
 * in the catalogue bucket, which the stack deploys as is). With --records, the records file the
 * deployment is (or will be) loaded with: the ingress examples of /developers/sandbox/examples.json
 * are derived from its records; without, they are templates naming the fields to fill
 * (docs/deploy.md#published-examples).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SITE_DIR } from '../lib/local/documents';
import { buildSite, pruneSite, writeSite } from '../lib/publish/site';
import { canonicalSources } from '../lib/publish/sources';
import { ingressRecordsOf } from '../lib/publish/ingress-examples';
import { fileSource } from '../lib/loader/source';

const run = (script: string) => execFileSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, script)], { stdio: 'inherit' });

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' }, records: { type: 'string' } } });
  run('contract.ts');
  const out = path.resolve(values.out ?? SITE_DIR);
  const ingressRecords = values.records ? await ingressRecordsOf(await fileSource(values.records)) : undefined;
  const site = buildSite({ ...canonicalSources(), ingressRecords });
  await writeSite(out, site);
  for (const key of await pruneSite(out, site)) console.log(`removed ${key} (no longer built)`);
  console.log(`wrote ${site.size} documents to ${path.relative(process.cwd(), out) || '.'}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
