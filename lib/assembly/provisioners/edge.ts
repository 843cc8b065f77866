import { readDistribution } from '../edge/distribution';
import { startEdgeServer } from '../edge/edge-server';
import { checkEdgeRouting } from '../edge/routing';
import { RestApiRoutes } from '../gateway/rest-api';
import type { Provisioner } from './provisioner';

/** What CloudFront is here, for the template's types the edge reads without bringing anything up for them. */
const NOTHING_KEPT = 'the edge keeps nothing here: every request reaches its origin, with what the policy forwards';

/**
 * AWS::CloudFront::Distribution with its functions, origin access control and policies (../edge/):
 * its routing checked against the REST API before anything is served (a behaviour that sends a
 * route to an origin that cannot, or should not, answer it stops the run, naming its pattern), then
 * the distribution served on a port of its own, by its behaviours, in front of the local stage and
 * the bucket. The distribution's domain, wherever the template hands it on (the functions'
 * environment, the stack's outputs, the documents the bucket deployments write after this), becomes
 * that local URL. After the REST API, before the bucket deployments and any invocation.
 */
export const edge: Provisioner = {
  types: [
    'AWS::CloudFront::Distribution',
    'AWS::CloudFront::Function',
    'AWS::CloudFront::OriginAccessControl',
    'AWS::CloudFront::ResponseHeadersPolicy',
    'AWS::CloudFront::OriginRequestPolicy',
    'AWS::CloudFront::CachePolicy',
  ],
  async provision(deployment) {
    const { template, resolver, account, services, api, functions, outputs, notEmulated, closers, log } = deployment;
    const distribution = readDistribution(template, resolver);
    if (!distribution) return;
    if (!api) throw new Error('the distribution is provisioned after the REST API');
    const stage = new URL(api.invokeUrl).pathname.replace(/^\//, '');
    const routes = new RestApiRoutes(resolver.resolve(template.Resources[api.logicalId].Properties!.Body) as Record<string, any>);
    await checkEdgeRouting(distribution, routes, stage, services.iam.evaluator, (v) => resolver.resolve(v), account.account);

    const server = await startEdgeServer({
      distribution,
      gatewayOrigin: new URL(api.invokeUrl).origin,
      s3: services.s3.admin,
      account: account.account,
      partition: account.partition,
      evaluator: services.iam.evaluator,
      log,
    });
    closers.add(() => server.close());
    const published = `https://${distribution.domainName}`;
    const localize = (text: string) => text.split(published).join(server.url).split(distribution.domainName).join(new URL(server.url).host);
    // Before any function starts: the public origin they were given is the distribution's.
    for (const { host } of functions.all()) {
      const env = host.definition.environment;
      for (const [name, value] of Object.entries(env)) if (value.includes(distribution.domainName)) env[name] = localize(value);
    }
    for (const [name, value] of Object.entries(outputs)) outputs[name] = localize(value);
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      if (resource.Type === 'AWS::CloudFront::CachePolicy') notEmulated.push({ type: resource.Type, logicalId, reason: NOTHING_KEPT });
    }
    deployment.urls.set(distribution.logicalId, server.url);
    deployment.localize = localize;
    log(`CloudFront  ${distribution.logicalId} on ${server.url} (${distribution.behaviours.length - 1} behaviours and the default, routed as the template says)`);
  },
};
