import type { CfnTemplate, CloudAssembly } from '../cloud-assembly';
import type { Closers } from '../closers';
import type { IntrinsicResolver } from '../intrinsics';
import type { LocalFunctions } from '../lambda/local-functions';
import type { LocalServices } from '../local-services';
import type { NotEmulated } from '../not-emulated';
import type { LocalAccount } from '../physical-names';

/**
 * One kind of step of bringing a synthesized stack up on this machine: most take one resource type
 * (and the types that only configure it), and create the template's resources of that type in the
 * local services, as CloudFormation would in AWS. The runner runs them in the order it lists them;
 * each reads what the earlier ones put in the deployment and adds its own.
 */
export interface Provisioner {
  /** The resource types it brings up (with the types it reads as part of them); the runner reports every other type as not emulated. */
  readonly types: readonly string[];
  provision(deployment: Deployment): Promise<void>;
}

/** What the caller asks of the deployment (the rest of AssemblyRunnerOptions is the runner's own). */
export interface DeploymentOptions {
  /** Load the demo data as the loader role, activate the event sources, trust the ledger key. */
  demo?: boolean;
  /** Port of the API (default: any free one). */
  port?: number;
  /** The instant the demo data is generated around (default: now). */
  anchor?: Date;
  /** Print the stage's access log lines (its AccessLogSetting format). */
  accessLogs?: boolean;
  /** Run schedule rules on their own timers (default true; fireSchedules() runs them at once). */
  scheduleTimers?: boolean;
}

/** The REST API's stage, served here. */
export interface LocalApi {
  logicalId: string;
  /** http://127.0.0.1:PORT/<stageName> */
  invokeUrl: string;
  /** Serve from now on (the runner opens it once every provisioner, the demo's load included, is done; until then 503). */
  open(): void;
}

/** Work a provisioner leaves running (stream deliveries, asynchronous invocations), which settled() waits for. */
export interface BackgroundWork {
  readonly idle: boolean;
  settled?(): Promise<void>;
}

/** The stack as it is brought up: the template, the local services, and what the provisioners have made of it so far. */
export interface Deployment {
  readonly assembly: CloudAssembly;
  readonly template: CfnTemplate;
  readonly account: LocalAccount;
  readonly resolver: IntrinsicResolver;
  readonly services: LocalServices;
  readonly options: DeploymentOptions;
  /** Every line the runner and the functions print. */
  readonly log: (line: string) => void;
  /** A temporary folder of this run's own, removed on close. */
  readonly workDir: string;
  /** What is taken down on close, in the reverse order. */
  readonly closers: Closers;
  /** The stack's outputs, resolved to the local resources (those that resolve). */
  readonly outputs: Record<string, string>;
  /** Resources the runner does not bring up, with why: a provisioner adds those of its type it skips. */
  readonly notEmulated: NotEmulated[];
  readonly functions: LocalFunctions;
  /** Set by the REST API provisioner. */
  api?: LocalApi;
  /** Set by the edge provisioner: text with the distribution's published URL made its local one (for the documents deployed after it). */
  localize?: (text: string) => string;
  /** The base URL of every server a provisioner started for a resource of the template (the REST API's stage, a distribution), by logical id. */
  readonly urls: Map<string, string>;
  /** With --demo: the verifier key the read functions trust (the KMS stand-in's key). */
  verifierKey?: string;
  readonly background: BackgroundWork[];
  /** Each schedule rule's targets, invoked now as its next tick would. */
  readonly schedules: Array<() => Promise<void>>;
}
