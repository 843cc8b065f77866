import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { QueuedMessage } from '../local/sqs-stand-in';
import { readCloudAssembly, removeUnpackedAssets, type CfnTemplate, type CloudAssembly } from './cloud-assembly';
import { Closers } from './closers';
import type { Denial } from './endpoints/iam-endpoint';
import { policyModel } from './iam/policy-model';
import { IntrinsicResolver } from './intrinsics';
import type { FunctionHost } from './lambda/function-host';
import { LocalFunctions } from './lambda/local-functions';
import { startLocalServices, type ServiceName } from './local-services';
import { unprovisionedResources, type NotEmulated } from './not-emulated';
import { DEFAULT_ACCOUNT, physicalResources, type LocalAccount } from './physical-names';
import { bucketDeployments } from './provisioners/bucket-deployments';
import { buckets } from './provisioners/buckets';
import { customResources } from './provisioners/custom-resources';
import { demo } from './provisioners/demo';
import { edge } from './provisioners/edge';
import { functions } from './provisioners/functions';
import { iamPolicies } from './provisioners/iam-policies';
import { kmsKeys } from './provisioners/kms-keys';
import type { Deployment, DeploymentOptions, Provisioner } from './provisioners/provisioner';
import { queues } from './provisioners/queues';
import { restApi } from './provisioners/rest-api';
import { schedules } from './provisioners/schedules';
import { secrets } from './provisioners/secrets';
import { streamTriggers } from './provisioners/stream-triggers';
import { tables } from './provisioners/tables';

export { describeNotEmulated, type NotEmulated } from './not-emulated';

/**
 * Runs a synthesized cloud assembly (`npx cdk synth -o DIR`) on this machine, driven by its
 * template: the AWS services on local stand-ins behind endpoints that enforce the template's IAM
 * policies (local-services.ts), and the template's resources brought up in them by one provisioner
 * per resource type (provisioners/): tables, buckets and what the bucket deployments put there,
 * secrets, the KMS keys, queues, the IAM policies, each function from its bundle in the assembly
 * (in processes of its own, with exactly the template's environment and credentials of its own
 * role), the REST API from its import document, the stream and schedule triggers as the template
 * wires them. What it cannot run it names at start (`notEmulated`).
 */

/**
 * The provisioners, in the order they run: each may use what the ones before it brought up (the
 * functions use the tables, keys and queues; the API the functions; the bucket deployments the
 * API's URL; the demo's load comes before the triggers, which deliver only what follows it).
 */
export const PROVISIONERS: readonly Provisioner[] = [tables, buckets, secrets, kmsKeys, queues, iamPolicies, functions, customResources, restApi, edge, bucketDeployments, demo, streamTriggers, schedules];

export interface AssemblyRunnerOptions extends DeploymentOptions {
  assemblyDir: string;
  region?: string;
  account?: string;
  /** Every line the runner and the functions print (default: stdout). */
  log?: (line: string) => void;
}

export interface AssemblyRunner {
  /** http://127.0.0.1:PORT/<stageName> */
  invokeUrl: string;
  /** The base URL of every server the runner started for a resource of the template (the REST API's stage among them), by logical id. */
  urls: Record<string, string>;
  stackName: string;
  /** Resources of the template the runner does not emulate, with why. */
  notEmulated: NotEmulated[];
  /** Functions by logical id. */
  functions: Map<string, FunctionHost>;
  /** Every call the IAM endpoints refused, in order. */
  denials: Denial[];
  /** The stack's outputs, resolved to the local resources (those that resolve). */
  outputs: Record<string, string>;
  /** With --demo: the verifier key the read functions trust (the KMS stand-in's key). */
  verifierKey?: string;
  /** The endpoints of the stand-ins behind the IAM endpoints (no IAM: for inspection only). */
  backends: { dynamodb: string; s3: string };
  /** The IAM-enforcing endpoints the functions are given. */
  endpoints: Record<ServiceName, string>;
  /** Messages in a queue of the template (a dead-letter queue), by logical id. */
  queueMessages(logicalId: string): QueuedMessage[];
  /** Invokes every schedule rule's targets now, as its next tick would, and waits for them. */
  fireSchedules(): Promise<void>;
  /** Waits until every stream mapping has delivered (or given up on) what it holds, and every asynchronous invocation has ended. */
  settled(): Promise<void>;
  /**
   * For tests and rehearsals, never a deployment's own: the function `logicalId` runs with
   * `variables` set over its environment (SEQUENCER_EVENTS_PER_PART=1 cuts a batch of a few events
   * in parts), as UpdateFunctionConfiguration would set them: the environments started before
   * finish their invocation and are replaced. Returns what restores the environment it had.
   */
  overrideEnvironment(logicalId: string, variables: Record<string, string>): () => void;
  /** Credentials of a role of the template, as sts:AssumeRole gives them to its principal (the loader role's, for an operator's command). */
  assumeRole(roleArn: string, sessionName: string): { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Applies the IAM policies of another synthesis of the same stack (a stack update that changes roles, policies, key or bucket policies only). */
  deployPolicies(assemblyDir: string): void;
  close(): Promise<void>;
}

export async function startAssemblyRunner(options: AssemblyRunnerOptions): Promise<AssemblyRunner> {
  const log = options.log ?? ((line: string) => console.log(line));
  const assembly = readCloudAssembly(options.assemblyDir);
  const account: LocalAccount = {
    account: options.account ?? DEFAULT_ACCOUNT,
    region: options.region ?? 'eu-central-1',
    partition: 'aws',
    urlSuffix: 'amazonaws.com',
    stackName: assembly.stackName,
  };
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'assembly-run-'));
  const closers = new Closers();
  closers.add(() => rmSync(workDir, { recursive: true, force: true }));
  closers.add(removeUnpackedAssets);
  try {
    const services = await startLocalServices(account, workDir, log);
    closers.add(() => services.close());
    const { template } = assembly;
    // A queue's Ref is its URL at the local SQS endpoint.
    const physical = physicalResources(template, account, (name) => services.sqs.standIn.urlOf(account.account, name));
    const resolver = new IntrinsicResolver(template, account, physical);
    const deployment: Deployment = {
      assembly,
      template,
      account,
      resolver,
      services,
      options,
      log,
      workDir,
      closers,
      outputs: resolvedOutputs(template, resolver),
      notEmulated: unprovisionedResources(template, resolver, PROVISIONERS.flatMap((p) => p.types)),
      functions: new LocalFunctions(),
      urls: new Map(),
      background: [],
      schedules: [],
    };
    // The Lambda endpoint started with the services; the functions it invokes are provisioned now.
    services.lambda.bind(deployment.functions);
    for (const provisioner of PROVISIONERS) await provisioner.provision(deployment);
    // Only now is it ready: before, /health and every read would answer about data not yet loaded.
    deployment.api?.open();
    return runnerOf(deployment, (dir) => {
      const next: CloudAssembly = readCloudAssembly(dir, assembly.stackName);
      const before = Object.entries(template.Resources).map(([id, r]) => `${id} ${r.Type}`).sort();
      const after = Object.entries(next.template.Resources).map(([id, r]) => `${id} ${r.Type}`).sort();
      if (JSON.stringify(before) !== JSON.stringify(after)) throw new Error('deployPolicies takes a synthesis of the same resources (only their policies may differ)');
      services.iam.evaluator.replaceModel(policyModel(next.template, new IntrinsicResolver(next.template, account, physical)));
      log(`IAM  policies of ${dir} applied`);
    });
  } catch (error) {
    await closers.close();
    throw error;
  }
}

/** The stack's outputs; one naming something not known locally (a deploy-time attribute) is left out. */
function resolvedOutputs(template: CfnTemplate, resolver: IntrinsicResolver): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const [name, output] of Object.entries(template.Outputs ?? {})) {
    try {
      outputs[name] = String(resolver.resolve(output.Value));
    } catch {
      // Left out, as above.
    }
  }
  return outputs;
}

function runnerOf(deployment: Deployment, deployPolicies: (assemblyDir: string) => void): AssemblyRunner {
  const { services, resolver, closers } = deployment;
  if (!deployment.api) throw new Error('the template has no REST API to serve');
  const settled = async () => {
    for (;;) {
      await Promise.all(deployment.background.map((work) => work.settled?.()));
      if (deployment.background.every((work) => work.idle)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return {
    invokeUrl: deployment.api.invokeUrl,
    urls: Object.fromEntries(deployment.urls),
    outputs: deployment.outputs,
    stackName: deployment.assembly.stackName,
    notEmulated: deployment.notEmulated,
    functions: deployment.functions.hosts(),
    denials: services.iam.denials,
    verifierKey: deployment.verifierKey,
    backends: services.backends,
    endpoints: services.endpoints,
    queueMessages: (logicalId) => services.sqs.standIn.messages(String(resolver.ref(logicalId))),
    async fireSchedules() {
      for (const fire of deployment.schedules) await fire();
      await settled();
    },
    settled,
    overrideEnvironment(logicalId, variables) {
      const host = deployment.functions.hosts().get(logicalId);
      if (!host) throw new Error(`no function ${logicalId} runs here`);
      const before = host.definition.environment;
      host.updateEnvironment({ ...before, ...variables });
      return () => host.updateEnvironment(before);
    },
    assumeRole: (roleArn, sessionName) => {
      const { accessKeyId, secretAccessKey, sessionToken } = services.iam.issuer.issue({ kind: 'role', roleArn, sessionName }, sessionName);
      return { accessKeyId, secretAccessKey, sessionToken };
    },
    deployPolicies,
    close: () => closers.close(),
  };
}
