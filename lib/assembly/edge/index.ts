import type { CfnTemplate } from '../cloud-assembly';
import type { RestApiRoutes } from '../gateway/rest-api';
import type { IamEvaluator } from '../iam/evaluator';
import type { IntrinsicResolver } from '../intrinsics';
import type { FunctionHost } from '../lambda/function-host';
import { readDistribution } from './distribution';
import { startEdgeServer } from './edge-server';
import { checkEdgeRouting } from './routing';

/**
 * The template's CloudFront distribution for the assembly runner (lib/assembly/runner.ts): its
 * routing checked against the REST API before anything is served (a behaviour that sends a route
 * to an origin that cannot, or should not, answer it stops the run, naming its pattern), then the
 * distribution served on a port of its own (edge-server.ts). The distribution's domain, wherever
 * the template hands it on (functions' environment, stack outputs, the documents the bucket
 * deployments write), becomes that local URL.
 */

export interface LocalEdge {
  /** http://127.0.0.1:PORT: the distribution. */
  url: string;
  /** Text with the distribution's https URL made the local one. */
  localize(text: string): string;
  close(): Promise<void>;
}

export interface NotEmulatedEntry {
  type: string;
  logicalId: string;
  reason: string;
}

export interface StartEdgeOptions {
  template: CfnTemplate;
  resolver: IntrinsicResolver;
  routes: RestApiRoutes;
  stageName: string;
  gatewayOrigin: string;
  s3Backend: string;
  s3Credentials: { accessKeyId: string; secretAccessKey: string };
  evaluator: IamEvaluator;
  account: { account: string; region: string; partition: string };
  functions: ReadonlyMap<string, FunctionHost>;
  outputs: Record<string, string>;
  /** The runner's list of what it does not emulate: the edge's types it serves leave it, the rest say why. */
  notEmulated: NotEmulatedEntry[];
  log: (line: string) => void;
}

/** What the runner does with each CloudFront type; a type missing here stays "not emulated". */
const EDGE_TYPES: Record<string, string | null> = {
  'AWS::CloudFront::Distribution': null,
  'AWS::CloudFront::Function': null,
  'AWS::CloudFront::OriginAccessControl': null,
  'AWS::CloudFront::ResponseHeadersPolicy': null,
  'AWS::CloudFront::OriginRequestPolicy': null,
  'AWS::CloudFront::CachePolicy': 'the edge keeps nothing here: every request reaches its origin, with what the policy forwards',
  'AWS::Route53::RecordSet': 'DNS is not emulated: the distribution answers on its local URL',
};

export async function startEdge(options: StartEdgeOptions): Promise<LocalEdge | undefined> {
  const distribution = readDistribution(options.template, options.resolver);
  if (!distribution) return undefined;
  await checkEdgeRouting(distribution, options.routes, options.stageName, options.evaluator, (v) => options.resolver.resolve(v), options.account.account);

  const server = await startEdgeServer({
    distribution,
    gatewayOrigin: options.gatewayOrigin,
    s3Backend: options.s3Backend,
    s3Credentials: options.s3Credentials,
    region: options.account.region,
    account: options.account.account,
    partition: options.account.partition,
    evaluator: options.evaluator,
    log: options.log,
  });
  const published = `https://${distribution.domainName}`;
  const localize = (text: string) => text.split(published).join(server.url).split(distribution.domainName).join(new URL(server.url).host);
  // Before any function starts: the public origin they were given is the distribution's.
  for (const host of options.functions.values()) {
    const env = host.definition.environment;
    for (const [name, value] of Object.entries(env)) if (value.includes(distribution.domainName)) env[name] = localize(value);
  }
  for (const [name, value] of Object.entries(options.outputs)) options.outputs[name] = localize(value);
  for (let i = options.notEmulated.length - 1; i >= 0; i--) {
    const entry = options.notEmulated[i];
    if (!(entry.type in EDGE_TYPES)) continue;
    const reason = EDGE_TYPES[entry.type];
    if (reason === null) options.notEmulated.splice(i, 1);
    else entry.reason = reason;
  }
  options.log(`CloudFront  ${distribution.logicalId} on ${server.url} (${distribution.behaviours.length - 1} behaviours and the default, routed as the template says)`);
  return { url: server.url, localize, close: () => server.close() };
}
