import type { CfnTemplate } from '../cloud-assembly';
import { resourcesOfType } from '../cloud-assembly';
import type { IntrinsicResolver } from '../intrinsics';
import { firstMatchingPattern } from './path-pattern';

/**
 * A CloudFront distribution as its template describes it: origins, the behaviours in the order
 * CloudFront evaluates them, and for each behaviour what it forwards (its cache policy and origin
 * request policy, resolved, managed ones included), its viewer-request function's code and its
 * response headers policy.
 */

export type OriginKind =
  /** The REST API of the template, reached at its stage (OriginPath /<stage>). */
  | { kind: 'api'; stageName: string }
  /** A bucket of the template, read with origin access control. */
  | { kind: 'bucket'; bucketLogicalId: string; bucketName: string; originAccessControl: boolean }
  | { kind: 'other'; domainName: string };

export interface EdgeOrigin {
  id: string;
  domainName: string;
  originPath: string;
  target: OriginKind;
}

/** What reaches the origin beside the path (a cache key is forwarded whole; an origin request policy adds to it). */
export interface Forwarding {
  queryStrings: { behavior: 'none' | 'all' | 'whitelist' | 'allExcept'; names: string[] };
  headers: { behavior: 'none' | 'whitelist' | 'allViewer' | 'allViewerAndWhitelistCloudFront' | 'allExcept'; names: string[] };
  acceptEncoding: { gzip: boolean; brotli: boolean };
}

export interface EdgeBehaviour {
  /** The pattern, or '*' for the default behaviour. */
  pathPattern: string;
  origin: EdgeOrigin;
  allowedMethods: string[];
  compress: boolean;
  viewerProtocolPolicy: string;
  cachePolicy: { id: string; name: string; forwarding: Forwarding; minTtl: number; defaultTtl: number; maxTtl: number };
  originRequestPolicy?: { id: string; name: string; forwarding: Forwarding };
  /** The code of the CloudFront Function run on viewer requests, if any. */
  viewerRequestFunction?: { logicalId: string; code: string };
  /** CORS and nosniff of the response headers policy, if any. */
  responseHeaders?: { cors?: { allowOrigins: string[]; exposeHeaders: string[]; allowMethods: string[]; originOverride: boolean }; noSniff: boolean };
}

export interface EdgeDistribution {
  logicalId: string;
  /** The distribution's id (its Ref) and ARN, as the bucket policy's aws:SourceArn names it. */
  id: string;
  arn: string;
  domainName: string;
  /** Every origin the distribution declares, used by a behaviour or not. */
  origins: EdgeOrigin[];
  /** The behaviours in the order CloudFront evaluates them; the default behaviour last. */
  behaviours: EdgeBehaviour[];
}

/**
 * The managed policies the stack uses, by id, as the CloudFront developer guide documents them
 * ("Use managed cache policies", "Use managed origin request policies").
 */
const MANAGED_CACHE_POLICIES: Record<string, { name: string; forwarding: Forwarding; ttl: [number, number, number] }> = {
  '4135ea2d-6df8-44a3-9df3-4b5a84be39ad': {
    name: 'Managed-CachingDisabled',
    forwarding: { queryStrings: { behavior: 'none', names: [] }, headers: { behavior: 'none', names: [] }, acceptEncoding: { gzip: false, brotli: false } },
    ttl: [0, 0, 0],
  },
};
const MANAGED_ORIGIN_REQUEST_POLICIES: Record<string, { name: string; forwarding: Forwarding }> = {
  'b689b0a8-53d0-40ab-baf2-68738e2966ac': {
    name: 'Managed-AllViewerExceptHostHeader',
    forwarding: { queryStrings: { behavior: 'all', names: [] }, headers: { behavior: 'allExcept', names: ['host'] }, acceptEncoding: { gzip: false, brotli: false } },
  },
};

function forwardingOf(parameters: Record<string, any>): Forwarding {
  const lower = (names: unknown) => ((names as string[] | undefined) ?? []).map((n) => n.toLowerCase());
  return {
    queryStrings: { behavior: parameters.QueryStringsConfig?.QueryStringBehavior ?? 'none', names: (parameters.QueryStringsConfig?.QueryStrings as string[] | undefined) ?? [] },
    headers: { behavior: parameters.HeadersConfig?.HeaderBehavior ?? 'none', names: lower(parameters.HeadersConfig?.Headers) },
    acceptEncoding: { gzip: parameters.EnableAcceptEncodingGzip === true, brotli: parameters.EnableAcceptEncodingBrotli === true },
  };
}

interface Context {
  template: CfnTemplate;
  resolver: IntrinsicResolver;
  logicalId: string;
  origins: Map<string, EdgeOrigin>;
}

const refOf = (value: unknown) => (value as { Ref?: string } | undefined)?.Ref;

/** The template's distribution, or undefined; more than one is refused (the runner serves one edge). */
export function readDistribution(template: CfnTemplate, resolver: IntrinsicResolver): EdgeDistribution | undefined {
  const distributions = resourcesOfType(template, 'AWS::CloudFront::Distribution');
  if (distributions.length === 0) return undefined;
  if (distributions.length > 1) throw new Error(`the template defines ${distributions.length} CloudFront distributions; the runner serves one`);
  const [logicalId, resource] = distributions[0];
  const config = resource.Properties!.DistributionConfig as Record<string, any>;
  const context: Context = { template, resolver, logicalId, origins: originsOf(config, template, resolver) };
  const behaviours = [
    ...((config.CacheBehaviors ?? []) as Array<Record<string, any>>).map((b) => behaviourOf(b, String(b.PathPattern), context)),
    behaviourOf(config.DefaultCacheBehavior as Record<string, any>, '*', context),
  ];
  const id = String(resolver.ref(logicalId));
  return {
    logicalId,
    id,
    arn: `arn:${resolver.ref('AWS::Partition')}:cloudfront::${resolver.ref('AWS::AccountId')}:distribution/${id}`,
    domainName: resolver.getAtt(logicalId, 'DomainName'),
    origins: [...context.origins.values()],
    behaviours,
  };
}

/** Each origin, and what it is: the template's REST API at one of its stages, a bucket of the template, or something else. */
function originsOf(config: Record<string, any>, template: CfnTemplate, resolver: IntrinsicResolver): Map<string, EdgeOrigin> {
  const apis = resourcesOfType(template, 'AWS::ApiGateway::RestApi');
  const buckets = resourcesOfType(template, 'AWS::S3::Bucket');
  const stages = resourcesOfType(template, 'AWS::ApiGateway::Stage');
  const origins = new Map<string, EdgeOrigin>();
  for (const origin of (config.Origins ?? []) as Array<Record<string, any>>) {
    const domainName = String(resolver.resolve(origin.DomainName));
    const originPath = String(origin.OriginPath ?? '');
    let target: OriginKind = { kind: 'other', domainName };
    const api = apis.find(([id]) => domainName === `${resolver.ref(id)}.execute-api.${resolver.ref('AWS::Region')}.${resolver.ref('AWS::URLSuffix')}`);
    const bucket = buckets.find(([id]) => [resolver.getAtt(id, 'RegionalDomainName'), resolver.getAtt(id, 'DomainName')].includes(domainName));
    if (api) {
      const stageNames = stages.filter(([, s]) => refOf(s.Properties?.RestApiId) === api[0]).map(([, s]) => String(resolver.resolve(s.Properties?.StageName)));
      const stageName = originPath.replace(/^\//, '');
      if (stageNames.includes(stageName)) target = { kind: 'api', stageName };
    } else if (bucket && origin.S3OriginConfig) {
      target = { kind: 'bucket', bucketLogicalId: bucket[0], bucketName: String(resolver.ref(bucket[0])), originAccessControl: origin.OriginAccessControlId !== undefined };
    }
    origins.set(String(origin.Id), { id: String(origin.Id), domainName, originPath, target });
  }
  return origins;
}

function behaviourOf(raw: Record<string, any>, pathPattern: string, context: Context): EdgeBehaviour {
  const origin = context.origins.get(String(raw.TargetOriginId));
  if (!origin) throw new Error(`distribution ${context.logicalId}: the behaviour ${pathPattern} targets ${raw.TargetOriginId}, which is not one of its origins`);
  const originRequestPolicy = raw.OriginRequestPolicyId === undefined ? undefined : originRequestPolicyOf(raw.OriginRequestPolicyId, pathPattern, context);
  const viewerRequestFunction = viewerRequestFunctionOf(raw, pathPattern, context);
  const responseHeaders = responseHeadersOf(raw.ResponseHeadersPolicyId, context);
  return {
    pathPattern,
    origin,
    allowedMethods: (raw.AllowedMethods as string[] | undefined) ?? ['GET', 'HEAD'],
    compress: raw.Compress === true,
    viewerProtocolPolicy: String(raw.ViewerProtocolPolicy),
    cachePolicy: cachePolicyOf(raw.CachePolicyId, pathPattern, context),
    ...(originRequestPolicy ? { originRequestPolicy } : {}),
    ...(viewerRequestFunction ? { viewerRequestFunction } : {}),
    ...(responseHeaders ? { responseHeaders } : {}),
  };
}

function cachePolicyOf(policyId: unknown, pathPattern: string, { template, resolver, logicalId }: Context): EdgeBehaviour['cachePolicy'] {
  const ref = refOf(policyId);
  if (ref) {
    const c = template.Resources[ref].Properties!.CachePolicyConfig as Record<string, any>;
    return { id: ref, name: String(resolver.resolve(c.Name)), forwarding: forwardingOf(c.ParametersInCacheKeyAndForwardedToOrigin), minTtl: Number(c.MinTTL), defaultTtl: Number(c.DefaultTTL), maxTtl: Number(c.MaxTTL) };
  }
  const managed = MANAGED_CACHE_POLICIES[String(policyId)];
  if (!managed) throw new Error(`distribution ${logicalId}: the behaviour ${pathPattern} uses cache policy ${JSON.stringify(policyId)}, which the runner does not know`);
  return { id: String(policyId), name: managed.name, forwarding: managed.forwarding, minTtl: managed.ttl[0], defaultTtl: managed.ttl[1], maxTtl: managed.ttl[2] };
}

function originRequestPolicyOf(policyId: unknown, pathPattern: string, { template, resolver, logicalId }: Context): EdgeBehaviour['originRequestPolicy'] {
  const ref = refOf(policyId);
  if (ref) {
    const c = template.Resources[ref].Properties!.OriginRequestPolicyConfig as Record<string, any>;
    return { id: ref, name: String(resolver.resolve(c.Name)), forwarding: forwardingOf({ QueryStringsConfig: c.QueryStringsConfig, HeadersConfig: c.HeadersConfig }) };
  }
  const managed = MANAGED_ORIGIN_REQUEST_POLICIES[String(policyId)];
  if (!managed) throw new Error(`distribution ${logicalId}: the behaviour ${pathPattern} uses origin request policy ${JSON.stringify(policyId)}, which the runner does not know`);
  return { id: String(policyId), ...managed };
}

function viewerRequestFunctionOf(raw: Record<string, any>, pathPattern: string, { template, logicalId }: Context): EdgeBehaviour['viewerRequestFunction'] {
  const association = ((raw.FunctionAssociations ?? []) as Array<{ EventType: string; FunctionARN: unknown }>).find((f) => f.EventType === 'viewer-request');
  if (!association) return undefined;
  const fnId = (association.FunctionARN as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0];
  if (!fnId || template.Resources[fnId]?.Type !== 'AWS::CloudFront::Function') throw new Error(`distribution ${logicalId}: the behaviour ${pathPattern} names a viewer-request function that is not a CloudFront Function of the template`);
  return { logicalId: fnId, code: String(template.Resources[fnId].Properties!.FunctionCode) };
}

function responseHeadersOf(policyId: unknown, { template }: Context): EdgeBehaviour['responseHeaders'] {
  const ref = refOf(policyId);
  if (!ref) return undefined;
  const c = template.Resources[ref].Properties!.ResponseHeadersPolicyConfig as Record<string, any>;
  const cors = c.CorsConfig;
  return {
    ...(cors
      ? {
          cors: {
            allowOrigins: cors.AccessControlAllowOrigins?.Items ?? [],
            exposeHeaders: cors.AccessControlExposeHeaders?.Items ?? [],
            allowMethods: cors.AccessControlAllowMethods?.Items ?? [],
            originOverride: cors.OriginOverride === true,
          },
        }
      : {}),
    noSniff: c.SecurityHeadersConfig?.ContentTypeOptions !== undefined,
  };
}

/** The behaviour CloudFront picks for a path: the first whose pattern matches, else the default. */
export function behaviourFor(distribution: EdgeDistribution, path: string): EdgeBehaviour {
  const patterns = distribution.behaviours.slice(0, -1).map((b) => b.pathPattern);
  const pattern = firstMatchingPattern(patterns, path);
  return distribution.behaviours.find((b) => b.pathPattern === pattern) ?? distribution.behaviours[distribution.behaviours.length - 1];
}
