import type { RestApiRoutes } from '../gateway/rest-api';
import type { IamEvaluator } from '../iam/evaluator';
import { behaviourFor, type EdgeBehaviour, type EdgeDistribution } from './distribution';

/**
 * Whether the distribution's behaviours send every route of the REST API where it can be answered,
 * judged from the template alone (before anything is deployed):
 *
 *   - a route the API serves from a bucket object (an S3 integration: the ledger's tile log) that
 *     the distribution may read from that bucket itself (an origin with origin access control, a
 *     bucket policy that lets this distribution get the object) must reach that bucket origin, at
 *     the same key: the edge serves it straight from the bucket, not through the API;
 *   - every other route must reach the API origin at the stage the template deploys.
 *
 * Each route is placed by CloudFront's own rule (the first behaviour whose pattern matches the
 * path, else the default). A misrouted route is named with the pattern that sends it astray.
 */

export interface RoutingProblem {
  pathPattern: string;
  route: string;
  problem: string;
}

/** A concrete path of an API resource path: each `{name}` a segment, each greedy `{name+}` two. */
export function sampleOf(resourcePath: string): string {
  return resourcePath.replace(/\{\w+\+\}/g, 'sample/path').replace(/\{\w+\}/g, 'sample');
}

/**
 * The object an S3 integration reads for the sample request of its route: its bucket and key,
 * each `{name}` of the URI filled with the sample value of the path parameter mapped onto it.
 */
function s3Object(resourcePath: string, integration: Record<string, any>, resolve: (value: unknown) => any): { bucket: string; key: string } | undefined {
  if (integration.type !== 'aws') return undefined;
  const uri = String(resolve(integration.uri));
  const match = /:s3:path\/([^/]+)\/(.+)$/.exec(uri);
  if (!match) return undefined;
  const samples = new Map<string, string>();
  for (const [, name, greedy] of resourcePath.matchAll(/\{(\w+)(\+?)\}/g)) samples.set(name, greedy ? 'sample/path' : 'sample');
  const mapped = (integration.requestParameters ?? {}) as Record<string, string>;
  const key = match[2].replace(/\{(\w+)\}/g, (_, name: string) => {
    const source = /^method\.request\.path\.(\w+)$/.exec(mapped[`integration.request.path.${name}`] ?? '')?.[1] ?? name;
    return samples.get(source) ?? 'sample';
  });
  return { bucket: match[1], key };
}

export async function edgeRoutingProblems(
  distribution: EdgeDistribution,
  routes: RestApiRoutes,
  stageName: string,
  evaluator: IamEvaluator,
  resolve: (value: unknown) => any,
  account: string,
): Promise<RoutingProblem[]> {
  const problems: RoutingProblem[] = [];
  const partition = String(resolve({ Ref: 'AWS::Partition' }));
  // Every bucket origin it declares: one no behaviour uses still says where the distribution means to read from.
  const bucketOrigins = distribution.origins.filter((o) => o.target.kind === 'bucket' && o.target.originAccessControl);
  const mayRead = async (bucket: string, key: string) =>
    (
      await evaluator.decide(
        { kind: 'service', service: 'cloudfront.amazonaws.com' },
        { action: 's3:GetObject', resource: `arn:${partition}:s3:::${bucket}/${key}`, context: { 'aws:SourceArn': distribution.arn, 'aws:SourceAccount': account } },
      )
    ).allowed;

  for (const method of routes.methods.filter((m) => !['OPTIONS', 'ANY', 'HEAD'].includes(m.httpMethod))) {
    const path = sampleOf(method.resourcePath);
    const behaviour: EdgeBehaviour = behaviourFor(distribution, path);
    const route = `${method.httpMethod} ${method.resourcePath}`;
    const where = behaviour.pathPattern === '*' ? 'the default behaviour (*)' : `the behaviour ${behaviour.pathPattern}`;
    const object = s3Object(method.resourcePath, method.integration, resolve);
    const servedByBucket = object && bucketOrigins.some((o) => o.target.kind === 'bucket' && o.target.bucketName === object.bucket) ? (await mayRead(object.bucket, object.key)) : false;
    const target = behaviour.origin.target;
    if (servedByBucket && object) {
      if (target.kind !== 'bucket' || target.bucketName !== object.bucket) {
        problems.push({
          pathPattern: behaviour.pathPattern,
          route,
          problem: `${where} sends ${route} to ${describe(behaviour)}, but this distribution reads it from the bucket ${object.bucket} itself (key ${object.key}): it must go to that bucket's origin`,
        });
      } else if (`${behaviour.origin.originPath}${path}` !== `/${object.key}`) {
        problems.push({ pathPattern: behaviour.pathPattern, route, problem: `${where} asks the bucket ${object.bucket} for ${behaviour.origin.originPath}${path}, but ${route} is the object ${object.key}` });
      }
    } else if (target.kind !== 'api' || target.stageName !== stageName) {
      problems.push({ pathPattern: behaviour.pathPattern, route, problem: `${where} sends ${route} to ${describe(behaviour)}, which does not serve it: it must go to the REST API at its stage /${stageName}` });
    }
    if (!behaviour.allowedMethods.includes(method.httpMethod)) {
      problems.push({ pathPattern: behaviour.pathPattern, route, problem: `${where} does not allow ${method.httpMethod}: CloudFront would refuse ${route} (403)` });
    }
  }
  return problems;
}

function describe(behaviour: EdgeBehaviour): string {
  const target = behaviour.origin.target;
  if (target.kind === 'api') return `the REST API (origin ${behaviour.origin.id}, stage /${target.stageName})`;
  if (target.kind === 'bucket') return `the bucket ${target.bucketName} (origin ${behaviour.origin.id})`;
  return `the origin ${behaviour.origin.id} (${target.domainName})`;
}

/** Refuses a distribution that misroutes any route, naming every pattern at fault. */
export async function checkEdgeRouting(...args: Parameters<typeof edgeRoutingProblems>): Promise<void> {
  const problems = await edgeRoutingProblems(...args);
  if (problems.length === 0) return;
  const patterns = [...new Set(problems.map((p) => p.pathPattern))];
  throw new Error(`the distribution ${args[0].logicalId} misroutes ${problems.length} route(s) (patterns ${patterns.join(', ')}):\n  ${problems.map((p) => p.problem).join('\n  ')}`);
}
