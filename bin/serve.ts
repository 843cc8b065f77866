/**
 * npm start [-- --data DIR]
 * npm start -- --endpoint URL [--table NAME] [--region R] [--demo] [--tiles DIR]
 * npm start -- --assembly DIR [--demo]
 *
 * Every operation of the contract table on http://127.0.0.1:3000 (PORT overrides), through the
 * same handler modules the Lambdas run. By default the store is embedded (dynalite, in memory or
 * on disk under DIR) and loaded with the demo data. With --endpoint the handlers read an external
 * DynamoDB-compatible endpoint instead (`npm run store`, DynamoDB Local, or DynamoDB itself with
 * the ambient AWS credentials); its table is loaded with the demo data only when --demo is given.
 * The ledger's development signing key lives in DIR (in .data/ otherwise); its verifier key is
 * what the handlers trust (LEDGER_VERIFIER_KEYS), unless the environment sets other keys for an
 * external table. The ledger's tile log is served under /ledger/ from DIR/tiles (a fresh folder
 * for an in-memory store), or from --tiles DIR (e.g. .data/tiles, where `npm run load --
 * --endpoint` writes it).
 *
 * With --assembly DIR it serves instead the cloud assembly `npx cdk synth -o DIR` wrote, driven by
 * its template, with IAM enforced (lib/assembly/runner.ts, docs/deploy.md#before-you-deploy); with
 * --demo too, after the operator's steps: demo data loaded as the loader role, event sources
 * activated, the ledger key trusted.
 */
import { parseArgs } from 'node:util';
import { DEMO_OBJECTS } from '../fixtures/demo';
import { DEMO_PROOFS } from '../fixtures/demo-proofs';
import { describeNotEmulated, startAssemblyRunner } from '../lib/assembly/runner';
import { startLocalService } from '../lib/local/service';

const USAGE =
  'usage: npm start [-- --data DIR]\n       npm start -- --endpoint URL [--table NAME] [--region R] [--demo] [--tiles DIR]\n       npm start -- --assembly DIR [--demo]';

/** Serves a synthesized cloud assembly until Ctrl-C. */
async function serveAssembly(dir: string, demo: boolean, port: number | undefined): Promise<number> {
  // Lambda runs Node.js 22; the SDK's notice about this machine's Node.js major says nothing about the stack.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const runner = await startAssemblyRunner({ assemblyDir: dir, demo, port, accessLogs: process.env.ACCESS_LOGS === '1' });
  const u = runner.invokeUrl;
  const others = Object.entries(runner.urls).filter(([, url]) => url !== u);
  console.log(`${runner.stackName} from ${dir} on ${u} (the stage's invoke URL)${others.map(([id, url]) => `\n${id} on ${url}`).join('')}

Not emulated: ${runner.notEmulated.length === 0 ? 'nothing' : `\n  ${describeNotEmulated(runner.notEmulated).join('\n  ')}`}
${demo ? `\nDemo data loaded as the loader role; ledger verifier key (the local KMS key): ${runner.verifierKey}\n` : '\nThe table is empty and every event source gated, as after a first deployment (--demo loads the demo data).\n'}
Try:
  curl -s ${u}/health
  curl -s ${u}/v1/objects/${DEMO_OBJECTS.current}
  npm run verify -- ${u}/v1/objects/${DEMO_OBJECTS.current}
  npm run emit -- svc.living-object.state-changed.v1 ${DEMO_OBJECTS.current} previousState=DELIVERED state=RETURNED --url ${u}

Every function's log lines are printed with its name; IAM refusals start with IAM. Ctrl-C stops everything.`);
  stopOnSignal(() => runner.close());
  return 0;
}

/** Ctrl-C (or SIGTERM) closes what runs, once, then exits. */
function stopOnSignal(close: () => Promise<void>): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        data: { type: 'string' },
        endpoint: { type: 'string' },
        table: { type: 'string' },
        region: { type: 'string' },
        demo: { type: 'boolean', default: false },
        tiles: { type: 'string' },
        assembly: { type: 'string' },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.assembly !== undefined) {
    if (values.endpoint || values.data || values.table || values.region || values.tiles) {
      console.error(`--assembly takes only --demo: the stack's own resources are run locally\n${USAGE}`);
      return 2;
    }
    return serveAssembly(values.assembly, values.demo, process.env.PORT ? Number(process.env.PORT) : undefined);
  }
  if (values.endpoint === undefined && (values.table || values.region || values.demo)) {
    console.error(`--table, --region and --demo go with --endpoint (or --assembly)\n${USAGE}`);
    return 2;
  }
  const port = Number(process.env.PORT ?? 3000);
  const service = await startLocalService({
    port,
    dataDir: values.data,
    endpoint: values.endpoint,
    table: values.table,
    region: values.region,
    loadDemo: values.demo,
    tilesDir: values.tiles,
    onSequenced: (run) => {
      const versions = run.appended > 0 ? `, ${run.appended} new version${run.appended === 1 ? '' : 's'} in the ledger (tree size ${run.treeSize})` : '';
      console.log(`sequencer: ${run.sequenced} event${run.sequenced === 1 ? '' : 's'} integrated${versions}`);
      for (const [delivery, reason] of Object.entries(run.reasons)) console.log(`sequencer: set aside ${delivery}: ${reason}`);
    },
    onProgress: (written, total) => {
      if (total > 1000 && (written === total || written % 1000 < 25)) process.stderr.write(`\rloading demo data: ${written}/${total} records`);
      if (written === total && total > 1000) process.stderr.write('\n');
    },
  });
  const u = service.url;
  const store = values.endpoint
    ? `store: ${values.endpoint}, table ${values.table ?? 'trust-records'}${values.demo ? ', demo data loaded' : ''}`
    : `store: embedded at ${service.storeEndpoint}, ${values.data ? `data in ${values.data}` : 'in memory'}`;
  console.log(`Public trust and verification service on ${u} (${store})

Open ${u}/verify or ${u}/trust-receipt/${DEMO_OBJECTS.current} in a browser, or try:
  curl -s ${u}/health
  curl -s ${u}/v1/objects/${DEMO_OBJECTS.current}
  curl -s "${u}/v1/objects/${DEMO_OBJECTS.current}?asOf=$(date -u -d '-2 days' +%Y-%m-%dT%H:%M:%SZ)"
  curl -si "${u}/v1/objects/${DEMO_OBJECTS.longHistory}?limit=5"
  curl -s ${u}/v1/commercial-proofs/${DEMO_PROOFS.current}
  curl -s ${u}/v1/ledger
  npm run verify -- ${u}/v1/objects/${DEMO_OBJECTS.current}
  npm run verify -- ${u}/v1/commercial-proofs/${DEMO_PROOFS.tampered}   # fails on purpose: a demo record altered after logging
  npm run emit -- svc.living-object.state-changed.v1 ${DEMO_OBJECTS.current} previousState=DELIVERED state=RETURNED   # a signed event; read the object again
  curl -s ${u}/developers/sandbox/examples.json

Ledger verifier key${values.endpoint && !values.demo ? '' : ` (development key, kept in ${values.data ?? '.data/'})`}: ${process.env.LEDGER_VERIFIER_KEYS}

Ctrl-C stops everything.`);
  stopOnSignal(() => service.close());
  return 0;
}

main().then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (error) => {
    console.error(`could not start: ${(error as Error).message}`);
    process.exit(1);
  },
);
