import { DEMO_OUTPUTS, developmentIngressKeys, loadDemoAsLoaderRole, type DemoOutputs } from '../demo';
import type { Deployment, Provisioner } from './provisioner';

/**
 * No resource type: with --demo, what an operator does after the first deploy (../demo.ts), from
 * the stack's outputs, before any trigger delivers: trust the ledger key (its verifier key as every
 * read function's LEDGER_VERIFIER_KEYS, a ledger origin and a public origin where the template names
 * none), load the demo records as the loader role, which publishes the documents derived from them (the
 * ingress examples), and activate the event sources.
 */
export const demo: Provisioner = {
  types: [],
  async provision(deployment) {
    if (!deployment.options.demo) return;
    const { services, functions, account, log } = deployment;
    const outputs = handoverOutputs(deployment, demoOutputs(deployment));
    const ledgerKey = services.kms.keys.get(outputs.LedgerKeyArn);
    if (!ledgerKey) throw new Error(`the ledger key ${outputs.LedgerKeyArn} is not an Ed25519 signing key of this template`);
    const origin = ledgerOrigin(deployment, outputs);
    const verifierKey = ledgerKey.verifierKey(origin);
    for (const { host } of functions.all()) {
      const env = host.definition.environment;
      // A template that learns the key at deploy time (Custom::LedgerVerifierKey) already trusts it; an older one is told here.
      if ('LEDGER_VERIFIER_KEYS' in env && !env.LEDGER_VERIFIER_KEYS) env.LEDGER_VERIFIER_KEYS = verifierKey;
      if ('LEDGER_ORIGIN' in env && !env.LEDGER_ORIGIN) env.LEDGER_ORIGIN = origin;
      // The public origin an operator configures (or the edge's domain): here, the stage's own URL.
      if ('PUBLIC_BASE_URL' in env && !env.PUBLIC_BASE_URL && deployment.api) env.PUBLIC_BASE_URL = deployment.api.invokeUrl;
    }
    deployment.verifierKey = verifierKey;
    const loader = services.iam.issuer.issue({ kind: 'role', roleArn: outputs.LoaderRoleArn, sessionName: 'loader' }, 'loader');
    const { endpoints } = services;
    const anchor = deployment.options.anchor ?? new Date();
    const loaded = await loadDemoAsLoaderRole(outputs, origin, loader, { dynamodb: endpoints.dynamodb, s3: endpoints.s3, kms: endpoints.kms, region: account.region }, anchor);
    log(`demo: ${loaded.records} records loaded as the loader role, ledger tree size ${loaded.ledger?.treeSize ?? 0}, signed by ${origin}`);
    log(`demo: ${loaded.published.join(', ')} published by the loader role from the records loaded`);
    services.secrets.standIn.create(outputs.IngressSecretsArn, developmentIngressKeys());
  },
};

function demoOutputs({ outputs }: Deployment): DemoOutputs {
  const missing = DEMO_OUTPUTS.filter((name) => outputs[name] === undefined);
  if (missing.length > 0) throw new Error(`--demo needs the stack outputs ${missing.join(', ')}, which this template does not have`);
  const found = Object.fromEntries(DEMO_OUTPUTS.map((name) => [name, outputs[name]])) as Omit<DemoOutputs, 'LedgerOrigin'>;
  return { ...found, ...(outputs.LedgerOrigin !== undefined ? { LedgerOrigin: outputs.LedgerOrigin } : {}) };
}

/**
 * A template deployed for a key change whose handover is still open (outputs PreviousLedgerKeyArn and
 * PreviousLedgerOrigin, docs/ledger.md#the-runbook) runs against a table whose log is still the previous
 * key's: the demo's records are loaded as the deployment before the key change wrote them, with that key.
 */
function handoverOutputs({ outputs: all, log }: Deployment, outputs: DemoOutputs): DemoOutputs {
  const [keyArn, origin] = [all.PreviousLedgerKeyArn, all.PreviousLedgerOrigin];
  if (!keyArn || !origin) return outputs;
  log(`demo: a key change is being deployed: the records are loaded into the previous key's log (${origin}), as before the change`);
  return { ...outputs, LedgerKeyArn: keyArn, LedgerOrigin: origin };
}

/** The stack's ledger origin (its output, else the sequencer's setting), else one derived from the API's URL as docs/deploy.md derives it. */
function ledgerOrigin({ functions, api }: Deployment, outputs: DemoOutputs): string {
  const sequencerOrigin = functions.all().map(({ host }) => host.definition.environment.LEDGER_ORIGIN).find((o) => o !== undefined);
  const named = outputs.LedgerOrigin || sequencerOrigin;
  if (named) return named;
  if (!api) throw new Error('the demo is provisioned after the REST API');
  const invokeUrl = new URL(api.invokeUrl);
  return `${invokeUrl.host}${invokeUrl.pathname}/ledger`;
}
