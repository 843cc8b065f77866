/**
 * npm start [-- --fresh | --data DIR]
 * npm start -- --endpoint URL [--table NAME] [--region R] [--demo] [--tiles DIR]
 * npm start -- --assembly DIR [--demo]
 *
 * Every operation of the contract table on http://127.0.0.1:3000 (PORT overrides), through the
 * same handler modules the Lambdas run. By default the store is embedded (dynalite) and kept on
 * disk in .data/demo/ with its tile log, and the demo data is loaded into it on every start:
 * records no event changed get versions around the current time (so a current view stays fresh),
 * the log keeps every entry of the earlier runs and only grows, so a monitor that audited it
 * before a restart passes after it. --fresh removes .data/demo/ first: a new log, which a monitor
 * holding the old one's state reports as rewritten. --data DIR keeps the store in DIR instead.
 * With --endpoint the handlers read an external DynamoDB-compatible endpoint instead (`npm run
 * store`, DynamoDB Local, or DynamoDB itself with the ambient AWS credentials); its table is
 * loaded with the demo data only when --demo is given.
 * The ledger's development signing key lives in DIR (in .data/ otherwise); its verifier key is
 * what the handlers trust (LEDGER_VERIFIER_KEYS), unless the environment sets other keys for an
 * external table. The ledger's tile log is served under /ledger/ from DIR/tiles, or from --tiles
 * DIR (e.g. .data/tiles, where `npm run load -- --endpoint` writes it). LOCAL_DATA_DIR moves
 * .data/ elsewhere.
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
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_PORT, demoStoreDir, localDataRoot, monitorStateFile } from '../lib/local/data-dir';
import { ensureStoreFree } from '../lib/local/embedded-store';
import { startLocalService } from '../lib/local/service';

const USAGE =
  'usage: npm start [-- --fresh | --data DIR]\n       npm start -- --endpoint URL [--table NAME] [--region R] [--demo] [--tiles DIR]\n       npm start -- --assembly DIR [--demo]';

/**
 * What the service's own /health says now, as the banner's first words: the banner never calls a
 * service ready that /health does not (a table that exists but holds no completed load is not).
 */
async function readinessLine(baseUrl: string, loadHint: string): Promise<string> {
  try {
    const health = (await (await fetch(`${baseUrl}/health`)).json()) as { status?: string; readiness?: { persistence?: string } };
    if (health.status === 'OK') return 'Ready: /health says OK (the table holds a completed load).';
    return `Not ready: /health says ${health.status ?? 'nothing'} (persistence ${health.readiness?.persistence ?? 'unknown'}): ${loadHint}`;
  } catch (error) {
    return `Not ready: /health did not answer (${(error as Error).message}).`;
  }
}

/** Serves a synthesized cloud assembly until Ctrl-C. */
async function serveAssembly(dir: string, demo: boolean, port: number | undefined): Promise<number> {
  // Lambda runs Node.js 22; the SDK's notice about this machine's Node.js major says nothing about the stack.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const runner = await startAssemblyRunner({ assemblyDir: dir, demo, port, accessLogs: process.env.ACCESS_LOGS === '1' });
  const u = runner.invokeUrl;
  const others = Object.entries(runner.urls).filter(([, url]) => url !== u);
  const readiness = await readinessLine(u, `no load into the table has completed: load it as the loader role (docs/deploy.md), or start with --demo.`);
  console.log(`${runner.stackName} from ${dir} on ${u} (the stage's invoke URL)${others.map(([id, url]) => `\n${id} on ${url}`).join('')}
${readiness}

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

/** A file as a person at the repository root would type it. */
function typed(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

/** A folder as a person at the repository root would type it. */
function displayed(dir: string): string {
  const shown = typed(dir);
  return shown === dir ? dir : `${shown}/`;
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
        fresh: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.assembly !== undefined) {
    if (values.endpoint || values.data || values.table || values.region || values.tiles || values.fresh) {
      console.error(`--assembly takes only --demo: the stack's own resources are run locally\n${USAGE}`);
      return 2;
    }
    return serveAssembly(values.assembly, values.demo, process.env.PORT ? Number(process.env.PORT) : undefined);
  }
  if (values.endpoint === undefined && (values.table || values.region || values.demo)) {
    console.error(`--table, --region and --demo go with --endpoint (or --assembly)\n${USAGE}`);
    return 2;
  }
  if (values.fresh && (values.endpoint || values.data)) {
    console.error(`--fresh starts over the demo store npm start keeps in ${displayed(demoStoreDir())}; to start another folder or table over, remove it yourself\n${USAGE}`);
    return 2;
  }
  const port = process.env.PORT ? Number(process.env.PORT) : DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`PORT must be a port number (0 to 65535), not ${process.env.PORT}`);
    return 2;
  }
  // Without --data (and --endpoint) the store is kept in .data/demo, the development key at .data/ as ever.
  const keptStore = values.endpoint === undefined && values.data === undefined;
  const dataDir = values.data ?? (keptStore ? demoStoreDir() : undefined);
  if (values.fresh) {
    // Never remove a store another process has open.
    if (existsSync(dataDir!)) await ensureStoreFree(dataDir!);
    await rm(dataDir!, { recursive: true, force: true });
  }
  const continued = dataDir !== undefined && existsSync(path.join(dataDir, 'CURRENT'));
  const service = await startLocalService({
    port,
    dataDir,
    keyDir: keptStore ? localDataRoot() : undefined,
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
    : `store: embedded at ${service.storeEndpoint}, data in ${displayed(dataDir!)}`;
  const monitorState = typed(monitorStateFile(u));
  const logNote = values.endpoint
    ? ''
    : values.fresh
      ? `\nStarted over (--fresh): this is a new log. A monitor that audited the earlier one reports it as a problem (a fork,
or a log that shrank): start the monitor over too (rm ${monitorState}*, or give it another --state FILE).\n`
      : continued
        ? `\nThe demo log of earlier runs continues (kept in ${displayed(dataDir!)}). The demo data is loaded again around now: records
no event changed get new versions, appended, so the log only grows. npm start -- --fresh starts a new log.\n`
        : `\nA new demo log, kept in ${displayed(dataDir!)} across restarts (npm start -- --fresh starts it over).\n`;
  const readiness = await readinessLine(u, `no load into table ${values.table ?? 'trust-records'} has completed: npm run load -- FILE --endpoint ${values.endpoint} --table ${values.table ?? 'trust-records'} (or start with --demo).`);
  console.log(`Public trust and verification service on ${u} (${store})
${readiness}
${logNote}
Open ${u}/verify or ${u}/trust-receipt/${DEMO_OBJECTS.current} in a browser, or try:
  curl -s ${u}/health
  curl -s ${u}/v1/objects/${DEMO_OBJECTS.current}
  curl -s "${u}/v1/objects/${DEMO_OBJECTS.current}?asOf=$(date -u -d '-2 days' +%Y-%m-%dT%H:%M:%SZ)"
  curl -si "${u}/v1/objects/${DEMO_OBJECTS.longHistory}?limit=5"
  curl -s ${u}/v1/commercial-proofs/${DEMO_PROOFS.current}
  curl -s ${u}/v1/ledger
  npm run verify -- ${u}/v1/objects/${DEMO_OBJECTS.current}
  npm run verify -- ${u}/v1/commercial-proofs/${DEMO_PROOFS.tampered}   # fails on purpose: a demo record altered after logging
  npm run emit -- svc.living-object.state-changed.v1 ${DEMO_OBJECTS.current} previousState=DELIVERED state=RETURNED --url ${u}   # a signed event; read the object again
  npm run monitor -- ${u}   # audit the whole log; run it again after a restart: only the growth
  curl -s ${u}/developers/sandbox/examples.json

Ledger verifier key${values.endpoint && !values.demo ? '' : ` (development key, kept in ${displayed(values.data ?? localDataRoot())})`}: ${process.env.LEDGER_VERIFIER_KEYS}

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
