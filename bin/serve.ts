/**
 * npm start [-- --data DIR]: embedded DynamoDB-compatible store, demo data through the loader,
 * and every operation of the contract table on http://127.0.0.1:3000 (PORT overrides). The
 * ledger's development signing key lives in DIR (in .data/ for an in-memory store); its verifier
 * key is what the handlers trust (LEDGER_VERIFIER_KEYS), as a deployment's configuration would.
 */
import { parseArgs } from 'node:util';
import { DEMO_OBJECTS } from '../fixtures/demo';
import { DEMO_PROOFS } from '../fixtures/demo-proofs';
import { startLocalService } from '../lib/local/service';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: 'string' } } });
  const port = Number(process.env.PORT ?? 3000);
  const service = await startLocalService({
    port,
    dataDir: values.data,
    onProgress: (written, total) => {
      if (total > 1000 && (written === total || written % 1000 < 25)) process.stderr.write(`\rloading demo data: ${written}/${total} items`);
      if (written === total && total > 1000) process.stderr.write('\n');
    },
  });
  const u = service.url;
  console.log(`Public trust and verification service on ${u} (store: ${service.storeEndpoint}${values.data ? `, data in ${values.data}` : ', in memory'})

Try:
  curl -s ${u}/health
  curl -s ${u}/v1/objects/${DEMO_OBJECTS.current}
  curl -s "${u}/v1/objects/${DEMO_OBJECTS.current}?asOf=$(date -u -d '-3 days' +%Y-%m-%dT%H:%M:%SZ)"
  curl -si "${u}/v1/objects/${DEMO_OBJECTS.longHistory}?limit=5"
  curl -s ${u}/v1/commercial-proofs/${DEMO_PROOFS.current}
  curl -s ${u}/v1/ledger
  npm run verify -- ${u}/v1/commercial-proofs/${DEMO_PROOFS.tampered}
  curl -s ${u}/developers/sandbox/examples.json

Ledger verifier key (development key, kept in ${values.data ?? '.data/'}): ${process.env.LEDGER_VERIFIER_KEYS}

Ctrl-C stops everything.`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await service.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  console.error(`could not start: ${(error as Error).message}`);
  process.exit(1);
});
