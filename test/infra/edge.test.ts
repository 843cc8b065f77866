import { readdirSync } from 'node:fs';
import path from 'node:path';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { operations } from '../../functions/contract/operations';
import { originsOfPath } from '../../lib/contract/origins';
import { createApp, EDGE_US_EAST_1_STACK_NAME } from '../../lib/stack/app';
import { negotiationFunctionCode } from '../../lib/stack/edge-negotiation';
import { WAF_RATE_WINDOW_SECONDS } from '../../lib/stack/edge-us-east-1';
import { lambdaOperations } from '../../lib/stack/operation-functions';
import { edgeRouting, type RouteClass } from '../../lib/stack/route-classes';
import { DEFAULT_SETTINGS } from '../../lib/stack/settings';
import { cfnLintErrors } from '../support/cfn-lint';
import { fixtureSite, logicalIdOf, referencedIds, SKIP_BUNDLING, synthesize, type CfnResourceJson } from './support';

/**
 * The edge as synthesized: the distribution in front of the API and the tile log, its behaviours
 * and cache policies checked against the route classes of the contract table; the custom domains
 * and the web ACL in their us-east-1 stack; and the references that must not close a loop.
 */

const { stack, json } = synthesize();
const resources = json.Resources;
const ofType = (type: string, r: Record<string, CfnResourceJson> = resources) => Object.entries(r).filter(([, x]) => x.Type === type);
const distributionId = logicalIdOf(stack, stack.edge!.distribution);
const config = resources[distributionId].Properties.DistributionConfig;
const apiId = logicalIdOf(stack, stack.publicApi.api);
const bucketId = logicalIdOf(stack, stack.catalogue.bucket);
const routing = edgeRouting(operations);

const originOf = (behaviour: { TargetOriginId: string }) => config.Origins.find((o: { Id: string }) => o.Id === behaviour.TargetOriginId);
const policyOf = (behaviour: { CachePolicyId: unknown }) => {
  const ref = (behaviour.CachePolicyId as { Ref?: string }).Ref;
  return ref ? resources[ref].Properties.CachePolicyConfig : behaviour.CachePolicyId;
};

/** What a behaviour must look like for a route class. */
function expectBehaviourOf(behaviour: any, routeClass: RouteClass, where: string) {
  const origin = originOf(behaviour);
  if (routeClass.origin === 'log-bucket') {
    expect([where, origin.DomainName]).toEqual([where, { 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] }]);
    expect(origin.OriginAccessControlId).toBeDefined();
    expect(behaviour.AllowedMethods).toEqual(['GET', 'HEAD']);
  } else {
    expect([where, referencedIds(origin.DomainName)]).toEqual([where, [apiId]]);
    expect(origin.OriginPath).toBe(`/${DEFAULT_SETTINGS.stageName}`);
    expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
  }
  expect([where, behaviour.Compress]).toEqual([where, true]);
  if (!routeClass.key) {
    // Never cached; every header but Host, every query parameter, and the body, to the API.
    expect([where, behaviour.CachePolicyId]).toEqual([where, CachePolicy.CACHING_DISABLED.cachePolicyId]);
    expect(behaviour.OriginRequestPolicyId).toBe(OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId);
    expect(behaviour.AllowedMethods).toContain('POST');
    expect(behaviour.ViewerProtocolPolicy).toBe('https-only');
    expect(behaviour.FunctionAssociations).toBeUndefined();
    return;
  }
  const policy = policyOf(behaviour);
  const key = policy.ParametersInCacheKeyAndForwardedToOrigin;
  const { queryStrings, headers } = routeClass.key;
  expect([where, key.QueryStringsConfig]).toEqual([
    where,
    queryStrings === 'all' ? { QueryStringBehavior: 'all' } : queryStrings === 'none' ? { QueryStringBehavior: 'none' } : { QueryStringBehavior: 'whitelist', QueryStrings: [...queryStrings] },
  ]);
  const names = headers.map((h) => (h === 'accept' ? 'Accept' : 'Accept-Language'));
  expect([where, key.HeadersConfig]).toEqual([where, names.length > 0 ? { HeaderBehavior: 'whitelist', Headers: names } : { HeaderBehavior: 'none' }]);
  expect(key.CookiesConfig).toEqual({ CookieBehavior: 'none' });
  expect(JSON.stringify(key).toLowerCase()).not.toContain('host');
  expect([key.EnableAcceptEncodingGzip, key.EnableAcceptEncodingBrotli]).toEqual([true, true]);
  // The origin's Cache-Control decides (no-store honoured, nothing kept without it), up to a bound.
  expect([policy.MinTTL, policy.DefaultTTL]).toEqual([0, 0]);
  expect(policy.MaxTTL).toBe(routeClass.origin === 'log-bucket' ? 365 * 24 * 3600 : 24 * 3600);
  // Only what the key holds goes to the origin: no origin request policy adds to it.
  expect(behaviour.OriginRequestPolicyId).toBeUndefined();
  expect(behaviour.CachedMethods).toEqual(['GET', 'HEAD']);
  const functions = (behaviour.FunctionAssociations ?? []) as Array<{ EventType: string; FunctionARN: unknown }>;
  expect([where, functions.map((f) => [f.EventType, referencedIds(f.FunctionARN)])]).toEqual([
    where,
    names.length > 0 ? [['viewer-request', [logicalIdOf(stack, stack.edge!.negotiation)]]] : [],
  ]);
}

describe('the distribution', () => {
  test('one, in front of the API (its stage as origin path) and the catalogue bucket (origin access control, signed requests)', () => {
    expect(ofType('AWS::CloudFront::Distribution')).toHaveLength(1);
    expect(config.Origins).toHaveLength(2);
    const [oac] = ofType('AWS::CloudFront::OriginAccessControl');
    expect(oac[1].Properties.OriginAccessControlConfig).toMatchObject({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always', SigningProtocol: 'sigv4' });
    expect(config).toMatchObject({ Enabled: true, HttpVersion: 'http2and3', IPV6Enabled: true });
    expect(config.Aliases).toBeUndefined();
  });

  test('each behaviour in the order the route classes derive them, routed and keyed as its class says', () => {
    expect(config.CacheBehaviors.map((b: { PathPattern: string }) => b.PathPattern)).toEqual(routing.behaviours.map((b) => b.pathPattern));
    routing.behaviours.forEach((b, i) => expectBehaviourOf(config.CacheBehaviors[i], b.routeClass, b.pathPattern));
    expectBehaviourOf(config.DefaultCacheBehavior, routing.defaultClass, 'default');
  });

  test('the tile log behaviour points at the bucket, every other at the API', () => {
    const log = config.CacheBehaviors.filter((b: any) => originOf(b).S3OriginConfig);
    expect(log.map((b: { PathPattern: string }) => b.PathPattern)).toEqual(['/ledger/*']);
  });

  test('the tile log is readable from any origin, as the API\'s answers are', () => {
    const log = config.CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === '/ledger/*');
    const headers = resources[log.ResponseHeadersPolicyId.Ref].Properties.ResponseHeadersPolicyConfig;
    expect(headers.CorsConfig).toMatchObject({ AccessControlAllowOrigins: { Items: ['*'] }, AccessControlAllowCredentials: false, OriginOverride: true });
  });

  test('the negotiation function is the code that normalises Accept and Accept-Language, on the cloudfront-js-2.0 runtime', () => {
    const fn = resources[logicalIdOf(stack, stack.edge!.negotiation)].Properties;
    expect(fn.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    expect(fn.FunctionCode).toBe(negotiationFunctionCode());
    expect(fn.AutoPublish).toBe(true);
  });

  test('an error of the service\'s own (5xx) is never kept at the edge', () => {
    expect(config.CustomErrorResponses).toEqual([500, 501, 502, 503, 504].map((ErrorCode) => ({ ErrorCode, ErrorCachingMinTTL: 0 })));
  });

  test('standard logs to the stack\'s access log bucket', () => {
    expect(config.Logging).toEqual({ Bucket: { 'Fn::GetAtt': [logicalIdOf(stack, stack.catalogue.accessLogBucket), 'RegionalDomainName'] }, Prefix: 'cloudfront/' });
  });

  test('the bucket lets this distribution read below the log\'s prefix (and list, so a missing tile is 404), nothing else', () => {
    const [[, policy]] = ofType('AWS::S3::BucketPolicy').filter(([, p]) => (p.Properties.Bucket as { Ref: string }).Ref === bucketId);
    const fromCloudFront = policy.Properties.PolicyDocument.Statement.filter((s: any) => s.Principal?.Service === 'cloudfront.amazonaws.com');
    expect(fromCloudFront.map((s: any) => [s.Action, JSON.stringify(s.Resource)])).toEqual([
      ['s3:GetObject', JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/ledger/*']] })],
      ['s3:ListBucket', JSON.stringify({ 'Fn::GetAtt': [bucketId, 'Arn'] })],
    ]);
    for (const s of fromCloudFront) expect(referencedIds(s.Condition.StringEquals['AWS:SourceArn'])).toEqual([distributionId]);
  });

  test('the stack\'s outputs name the edge', () => {
    expect(json.Outputs.EdgeUrl.Value).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] });
  });
});

describe('the functions learn the public origin from the stack, and no reference closes a loop', () => {
  const functionIds = lambdaOperations(operations).map((op) => logicalIdOf(stack, stack.functions.byOperationId.get(op.operationId)!));

  test('every function is given the distribution\'s domain as its base URL', () => {
    for (const id of functionIds) {
      expect([id, resources[id].Properties.Environment.Variables.PUBLIC_BASE_URL]).toEqual([id, { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] }]);
    }
  });

  test('the REST API names the functions by their names: its definition references none of them', () => {
    const api = resources[apiId];
    const referenced = new Set(referencedIds(api.Properties.Body));
    for (const id of functionIds) expect(referenced.has(id)).toBe(false);
    for (const op of lambdaOperations(operations)) {
      const name = resources[logicalIdOf(stack, stack.functions.byOperationId.get(op.operationId)!)].Properties.FunctionName;
      expect(name).toBe(stack.functions.nameByOperationId.get(op.operationId));
      expect(name.length).toBeLessThanOrEqual(64);
    }
  });

  test('with two origins given, each function gets the one its routes belong to', () => {
    const custom = synthesize({ verificationOrigin: 'https://verify.example.org', generalOrigin: 'https://developers.example.org' });
    for (const op of lambdaOperations(operations)) {
      const env = custom.json.Resources[logicalIdOf(custom.stack, custom.stack.functions.byOperationId.get(op.operationId)!)].Properties.Environment.Variables;
      const expected = originsOfPath(op.path)[0] === 'verification' ? 'https://verify.example.org' : 'https://developers.example.org';
      expect([op.operationId, env.PUBLIC_BASE_URL]).toEqual([op.operationId, expected]);
    }
  });

  test('edge=false leaves the distribution out; the functions then take the API\'s own URL', () => {
    const bare = synthesize({ edge: 'false' });
    bare.template.resourceCountIs('AWS::CloudFront::Distribution', 0);
    bare.template.resourceCountIs('AWS::CloudFront::CachePolicy', 0);
    expect(bare.stack.edge).toBeUndefined();
    expect(bare.json.Outputs.EdgeUrl).toBeUndefined();
    const fn = bare.json.Resources[logicalIdOf(bare.stack, bare.stack.functions.byOperationId.get('resolveObject')!)];
    expect(referencedIds(fn.Properties.Environment.Variables.PUBLIC_BASE_URL)).toEqual([logicalIdOf(bare.stack, bare.stack.publicApi.api)]);
    const origin = JSON.stringify(bare.stack.resolve(bare.stack.origins.verificationOrigin));
    expect(origin).toContain('.execute-api.');
    expect(origin).toMatch(new RegExp(`/${DEFAULT_SETTINGS.stageName}"\\]\\]\\}$`));
  });
});

describe('custom domains and the per-client rate limit', () => {
  const context = {
    ...SKIP_BUNDLING,
    verificationDomain: 'verify.example.org',
    generalDomain: 'developers.example.org',
    hostedZoneId: 'Z0123456789ABCDEFGHIJ',
    hostedZoneName: 'example.org',
    wafRateLimit: '600',
  };
  const built = createApp({ context }, { siteDir: fixtureSite(), env: { region: 'eu-central-1' } });
  // One synthesis of both stacks (cdk-nag validates it: a finding would throw here), read as written.
  const assembly = built.app.synth();
  type Written = { Resources: Record<string, CfnResourceJson>; Outputs: Record<string, { Value: unknown }> };
  const main = assembly.getStackByName(built.stack.stackName).template as Written;
  const usEast1 = assembly.getStackByName(built.edgeUsEast1!.stackName).template as Written;
  const dist = main.Resources[logicalIdOf(built.stack, built.stack.edge!.distribution)].Properties.DistributionConfig;

  test('the certificate and the web ACL live in a us-east-1 stack the service\'s stack depends on', () => {
    expect(built.edgeUsEast1!.region).toBe('us-east-1');
    expect(built.edgeUsEast1!.stackName).toBe(EDGE_US_EAST_1_STACK_NAME);
    expect(built.stack.region).toBe('eu-central-1');
    expect(built.stack.dependencies).toContain(built.edgeUsEast1);
    const [[, certificate]] = ofType('AWS::CertificateManager::Certificate', usEast1.Resources);
    expect(certificate.Properties).toMatchObject({
      DomainName: 'verify.example.org',
      SubjectAlternativeNames: ['developers.example.org'],
      ValidationMethod: 'DNS',
      DomainValidationOptions: [
        { DomainName: 'verify.example.org', HostedZoneId: 'Z0123456789ABCDEFGHIJ' },
        { DomainName: 'developers.example.org', HostedZoneId: 'Z0123456789ABCDEFGHIJ' },
      ],
    });
    expect(ofType('AWS::CertificateManager::Certificate', main.Resources)).toEqual([]);
  });

  test('the distribution answers on both domains with that certificate, TLS 1.2 and up, read across regions', () => {
    expect(dist.Aliases).toEqual(['verify.example.org', 'developers.example.org']);
    expect(dist.ViewerCertificate).toMatchObject({ SslSupportMethod: 'sni-only', MinimumProtocolVersion: 'TLSv1.2_2021' });
    expect(dist.ViewerCertificate.AcmCertificateArn).toEqual({ 'Fn::GetStackOutput': expect.objectContaining({ StackName: EDGE_US_EAST_1_STACK_NAME, Region: 'us-east-1' }) });
    expect(dist.WebACLId).toEqual({ 'Fn::GetStackOutput': expect.objectContaining({ StackName: EDGE_US_EAST_1_STACK_NAME, Region: 'us-east-1' }) });
  });

  test('alias records (IPv4 and IPv6) for each domain in the given zone, no look-up', () => {
    const records = ofType('AWS::Route53::RecordSet', main.Resources).map(([, r]) => [r.Properties.Name, r.Properties.Type, r.Properties.HostedZoneId]);
    expect(records.sort()).toEqual(
      [
        ['developers.example.org.', 'A', 'Z0123456789ABCDEFGHIJ'],
        ['developers.example.org.', 'AAAA', 'Z0123456789ABCDEFGHIJ'],
        ['verify.example.org.', 'A', 'Z0123456789ABCDEFGHIJ'],
        ['verify.example.org.', 'AAAA', 'Z0123456789ABCDEFGHIJ'],
      ].sort(),
    );
    for (const [, r] of ofType('AWS::Route53::RecordSet', main.Resources)) expect(referencedIds(r.Properties.AliasTarget.DNSName)).toEqual([logicalIdOf(built.stack, built.stack.edge!.distribution)]);
  });

  test('the origins, the functions\' base URLs and the ledger origin are the domains', () => {
    expect(built.stack.origins).toEqual({ verificationOrigin: 'https://verify.example.org', generalOrigin: 'https://developers.example.org' });
    expect(built.stack.settings.ledgerOrigin).toBe('verify.example.org/ledger');
    const env = main.Resources[logicalIdOf(built.stack, built.stack.functions.byOperationId.get('getTrustReceipt')!)].Properties.Environment.Variables;
    expect(env.PUBLIC_BASE_URL).toBe('https://verify.example.org');
    expect(main.Outputs.EdgeUrl.Value).toBe('https://verify.example.org');
  });

  test('a CLOUDFRONT web ACL: over N requests a minute from one address, 429 problem details with Retry-After', () => {
    const [[, acl]] = ofType('AWS::WAFv2::WebACL', usEast1.Resources);
    expect(acl.Properties.Scope).toBe('CLOUDFRONT');
    expect(acl.Properties.DefaultAction).toEqual({ Allow: {} });
    const [rule] = acl.Properties.Rules;
    expect(rule.Statement).toEqual({ RateBasedStatement: { Limit: 600, EvaluationWindowSec: WAF_RATE_WINDOW_SECONDS, AggregateKeyType: 'IP' } });
    expect(rule.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 429, CustomResponseBodyKey: 'Throttled' });
    expect(rule.Action.Block.CustomResponse.ResponseHeaders).toContainEqual({ Name: 'Retry-After', Value: String(WAF_RATE_WINDOW_SECONDS) });
    const body = JSON.parse(acl.Properties.CustomResponseBodies.Throttled.Content);
    expect(body).toMatchObject({ status: 429, code: 'THROTTLED', type: 'urn:svc:problem:throttled' });
  });

  test('cdk-nag has nothing to say, and cfn-lint finds no error in either template', async () => {
    const templates = readdirSync(assembly.directory).filter((f) => f.endsWith('.template.json')).map((f) => path.join(assembly.directory, f));
    expect(templates.map((t) => path.basename(t)).sort()).toEqual([`${EDGE_US_EAST_1_STACK_NAME}.template.json`, `${built.stack.stackName}.template.json`].sort());
    const errors = await cfnLintErrors(templates);
    expect(errors).toEqual([]);
  }, 120_000);

  test('without the web ACL or the domains, no us-east-1 stack; one without the other only what it needs', () => {
    expect(stack.node.root.node.children.map((c) => c.node.id).filter((id) => id === EDGE_US_EAST_1_STACK_NAME)).toEqual([]);
    const aclOnly = createApp({ context: { ...SKIP_BUNDLING, wafRateLimit: 100 } }, { siteDir: fixtureSite(), env: { region: 'eu-west-1' } });
    expect(aclOnly.edgeUsEast1!.webAcl).toBeDefined();
    expect(aclOnly.edgeUsEast1!.certificate).toBeUndefined();
    expect(aclOnly.stack.edge!.url).toMatch(/^https:\/\/\$\{Token/);
  });
});

describe('settings of the edge that stop the synth, naming the key', () => {
  const withContext = (context: Record<string, unknown>, region: string | null = 'eu-central-1') => () =>
    createApp({ context: { ...SKIP_BUNDLING, ...context } }, { siteDir: fixtureSite(), ...(region ? { env: { region } } : {}) });
  const zone = { hostedZoneId: 'Z0123456789ABC', hostedZoneName: 'example.org' };

  test.each([
    [{ verificationDomain: 'verify.example.org' }, 'hostedZoneId'],
    [{ verificationDomain: 'verify.other.org', ...zone }, 'not in the hosted zone'],
    [{ generalDomain: 'https://developers.example.org', ...zone }, 'generalDomain'],
    [{ verificationDomain: 'verify.example.org', ...zone, edge: 'false' }, 'edge=false'],
    [{ verificationDomain: 'verify.example.org', ...zone, verificationOrigin: 'https://elsewhere.example.org' }, 'verificationOrigin'],
    [{ hostedZoneId: 'Z0123456789ABC' }, 'hostedZoneId'],
    [{ verificationDomain: 'verify.example.org', hostedZoneId: 'not-a-zone', hostedZoneName: 'example.org' }, 'hostedZoneId'],
    [{ wafRateLimit: '9' }, 'wafRateLimit'],
    [{ wafRateLimit: 'lots' }, 'wafRateLimit'],
    [{ wafRateLimit: '100', edge: 'false' }, 'wafRateLimit'],
    [{ edge: 'sometimes' }, 'edge'],
  ])('%j', (context, message) => {
    expect(withContext(context)).toThrow(message);
  });

  test('custom domains without a known region cannot read the us-east-1 stack', () => {
    const before = process.env.CDK_DEFAULT_REGION;
    delete process.env.CDK_DEFAULT_REGION;
    try {
      expect(withContext({ verificationDomain: 'verify.example.org', ...zone }, null)).toThrow('AWS_REGION');
    } finally {
      if (before !== undefined) process.env.CDK_DEFAULT_REGION = before;
    }
  });

  test('one domain serves both origins', () => {
    const { stack: s } = withContext({ generalDomain: 'trust.example.org', ...zone })();
    expect(s.origins).toEqual({ verificationOrigin: 'https://trust.example.org', generalOrigin: 'https://trust.example.org' });
  });
});
