import { Aws, Duration, Stack } from 'aws-cdk-lib';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CacheCookieBehavior,
  CachedMethods,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  ResponseHeadersPolicy,
  S3OriginAccessControl,
  SecurityPolicyProtocol,
  Signing,
  ViewerProtocolPolicy,
  type BehaviorOptions,
  type ICachePolicy,
  type IOrigin,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { CORS_EXPOSED_HEADERS } from '../../functions/http/cors';
import { negotiationFunctionCode } from './edge-negotiation';
import type { EdgeRouting, RouteClass } from './route-classes';

export interface EdgeProps {
  routing: EdgeRouting;
  /** The REST API's id and stage: the origin of every route but the tile log. */
  restApiId: string;
  stageName: string;
  /** The catalogue bucket, where the ledger's tile log lies below `logKeyPrefix`. */
  logBucket: IBucket;
  logKeyPrefix: string;
  /** Where CloudFront writes its standard logs (an ACL-enabled bucket: the stack's access log bucket). */
  accessLogBucket: IBucket;
  /** Custom domains, their certificate (in us-east-1) and hosted zone; none: the distribution's own domain. */
  domains?: { names: string[]; certificate: ICertificate; hostedZoneId: string; hostedZoneName: string };
  /** A CLOUDFRONT-scope WAF web ACL (in us-east-1) by ARN. */
  webAclArn?: string;
}

/**
 * How long the edge may keep an answer at most, whatever its Cache-Control says; shorter answers
 * keep their own figure (every class's minimum TTL is 0, so no-store, no-cache and private are
 * honoured, and an answer without Cache-Control is not kept: default TTL 0). Full tiles and entry
 * bundles never change (C2SP tlog-tiles: "immutable, so its caching headers SHOULD be long-lived");
 * every other answer is bounded at a day, which only a mistaken header would reach.
 */
const MAX_TTL = { log: Duration.days(365), other: Duration.days(1) };

/** CloudFront takes a cache policy's headers as written; these are the names the pages negotiate on. */
const HEADER_NAMES = { accept: 'Accept', 'accept-language': 'Accept-Language' } as const;

/** CloudFront caches errors of these statuses for 10 s unless told otherwise; an error of the service's own is never kept. */
const SERVICE_ERROR_STATUSES = [500, 501, 502, 503, 504];

/**
 * The public entry: a CloudFront distribution whose behaviours come from the contract table's route
 * classes (lib/stack/route-classes.ts). The REST API (its stage as origin path) answers every route
 * but the ledger's tile log, which the catalogue bucket serves through origin access control. Each
 * cached class keys on exactly what its answer depends on (never Host: the origin request carries
 * the origin's own host); receivers and sandbox POSTs are never cached and reach the API with every
 * header but Host, every query parameter and the body. Answers are compressed at the edge.
 */
export class Edge extends Construct {
  readonly distribution: Distribution;
  /** https://<the distribution's domain or the first custom domain>, no trailing slash. */
  readonly url: string;
  readonly cachePolicies = new Map<string, ICachePolicy>();
  readonly negotiation: EdgeFunction;
  private readonly apiOrigin: IOrigin;
  private readonly logOrigin: IOrigin;
  private readonly logHeaders: ResponseHeadersPolicy;

  constructor(scope: Construct, id: string, props: EdgeProps) {
    super(scope, id);
    // The REST API by host and stage, so that a request for /v1/x reaches /<stage>/v1/x. Only TLS 1.2 towards it.
    this.apiOrigin = new HttpOrigin(`${props.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`, {
      originPath: `/${props.stageName}`,
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      // API Gateway gives up after 29 s; CloudFront waits 30 s by default.
      readTimeout: Duration.seconds(30),
    });
    const logAccess = new S3OriginAccessControl(this, 'LogAccess', {
      signing: Signing.SIGV4_ALWAYS,
      description: 'CloudFront reads the ledger tile log from the catalogue bucket, signing every request.',
    });
    this.logOrigin = S3BucketOrigin.withBucketDefaults(props.logBucket, { originAccessControlId: logAccess.originAccessControlId });
    this.negotiation = new EdgeFunction(this, 'Negotiation', {
      code: FunctionCode.fromInline(negotiationFunctionCode()),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Normalises Accept and Accept-Language to what the pages negotiate on, before they enter the cache key.',
    });
    this.logHeaders = new ResponseHeadersPolicy(this, 'LogHeaders', {
      comment: 'The tile log is readable from any origin, as every answer of the API is (functions/http/cors.ts).',
      corsBehavior: {
        accessControlAllowOrigins: ['*'],
        accessControlAllowHeaders: ['*'],
        accessControlAllowMethods: ['GET', 'HEAD'],
        accessControlExposeHeaders: CORS_EXPOSED_HEADERS,
        accessControlAllowCredentials: false,
        originOverride: true,
      },
      securityHeadersBehavior: { contentTypeOptions: { override: true } },
    });

    const domains = props.domains;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${Stack.of(this).stackName}: the API and the ledger tile log`,
      defaultBehavior: this.behaviourOf(props.routing.defaultClass),
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableIpv6: true,
      // Errors caused by the service itself are never kept at the edge, whatever their headers say.
      errorResponses: SERVICE_ERROR_STATUSES.map((httpStatus) => ({ httpStatus, ttl: Duration.seconds(0) })),
      enableLogging: true,
      logBucket: props.accessLogBucket,
      logFilePrefix: 'cloudfront/',
      ...(props.webAclArn ? { webAclId: props.webAclArn } : {}),
      ...(domains ? { domainNames: domains.names, certificate: domains.certificate, minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021 } : {}),
    });
    // In the order CloudFront evaluates them: the first pattern that matches a path wins.
    for (const behaviour of props.routing.behaviours) {
      const { origin, ...options } = this.behaviourOf(behaviour.routeClass);
      this.distribution.addBehavior(behaviour.pathPattern, origin, options);
    }
    this.letReadTheTileLog(props.logBucket, props.logKeyPrefix);
    if (domains) this.aliasRecords(domains);
    this.url = `https://${domains ? domains.names[0] : this.distribution.distributionDomainName}`;
  }

  /** What the distribution does with a route class. */
  private behaviourOf(routeClass: RouteClass): BehaviorOptions {
    const origin = routeClass.origin === 'log-bucket' ? this.logOrigin : this.apiOrigin;
    if (!routeClass.key) {
      // Receivers and the sandbox: the signature covers the raw body and the webhook headers, so all of it goes through untouched.
      return {
        origin,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        compress: true,
      };
    }
    const negotiated = routeClass.key.headers.length > 0;
    return {
      origin,
      // The API answers other methods itself (405 problem details); the bucket is read only.
      allowedMethods: routeClass.origin === 'api' ? AllowedMethods.ALLOW_ALL : AllowedMethods.ALLOW_GET_HEAD,
      cachedMethods: CachedMethods.CACHE_GET_HEAD,
      cachePolicy: this.cachePolicyOf(routeClass),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      compress: true,
      ...(routeClass.origin === 'log-bucket' ? { responseHeadersPolicy: this.logHeaders } : {}),
      ...(negotiated ? { functionAssociations: [{ function: this.negotiation, eventType: FunctionEventType.VIEWER_REQUEST }] } : {}),
    };
  }

  /** The distribution may read (and learn that an object is missing: 404 rather than 403) below the log's prefix, and nothing else. */
  private letReadTheTileLog(bucket: IBucket, keyPrefix: string): void {
    const fromThisDistribution = { StringEquals: { 'AWS:SourceArn': this.distribution.distributionArn } };
    const principals = [new ServicePrincipal('cloudfront.amazonaws.com')];
    bucket.addToResourcePolicy(
      new PolicyStatement({ sid: 'EdgeReadsTheTileLog', principals, actions: ['s3:GetObject'], resources: [bucket.arnForObjects(`${keyPrefix}*`)], conditions: fromThisDistribution }),
    );
    bucket.addToResourcePolicy(
      new PolicyStatement({ sid: 'EdgeTellsAMissingTileFromAForbiddenOne', principals, actions: ['s3:ListBucket'], resources: [bucket.bucketArn], conditions: fromThisDistribution }),
    );
  }

  /** An A and an AAAA alias record for each custom domain, in the given zone (no look-up). */
  private aliasRecords(domains: NonNullable<EdgeProps['domains']>): void {
    const zone = HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: domains.hostedZoneId, zoneName: domains.hostedZoneName });
    const target = RecordTarget.fromAlias(new CloudFrontTarget(this.distribution));
    domains.names.forEach((name, i) => {
      new ARecord(this, `Alias${i}`, { zone, recordName: `${name}.`, target });
      new AaaaRecord(this, `AliasIpv6${i}`, { zone, recordName: `${name}.`, target });
    });
  }

  /** One cache policy per distinct key: classes that key alike (the landing and the English pages) share it. */
  private cachePolicyOf(routeClass: RouteClass): ICachePolicy {
    const key = routeClass.key!;
    const log = routeClass.origin === 'log-bucket';
    const id = JSON.stringify({ log, key });
    let policy = this.cachePolicies.get(id);
    if (policy) return policy;
    const capital = (word: string) => word[0].toUpperCase() + word.slice(1);
    const parameters = key.queryStrings === 'all' ? ['EveryParameter'] : key.queryStrings === 'none' ? [] : key.queryStrings.map(capital);
    const name = log ? 'TileLog' : [...parameters, ...key.headers.map((h) => (h === 'accept' ? 'Accept' : 'Language'))].join('') || 'PathOnly';
    const described = [
      'the path',
      ...(key.queryStrings === 'all' ? ['every query parameter'] : key.queryStrings === 'none' ? [] : key.queryStrings.map((q) => `?${q}`)),
      ...key.headers.map((h) => `${HEADER_NAMES[h]} (normalised)`),
    ];
    policy = new CachePolicy(this, `Key${name}`, {
      comment: `Keyed on ${described.join(', ')}; never on Host or cookies.`,
      queryStringBehavior:
        key.queryStrings === 'all' ? CacheQueryStringBehavior.all() : key.queryStrings === 'none' ? CacheQueryStringBehavior.none() : CacheQueryStringBehavior.allowList(...key.queryStrings),
      headerBehavior: key.headers.length > 0 ? CacheHeaderBehavior.allowList(...key.headers.map((h) => HEADER_NAMES[h])) : CacheHeaderBehavior.none(),
      cookieBehavior: CacheCookieBehavior.none(),
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: log ? MAX_TTL.log : MAX_TTL.other,
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    this.cachePolicies.set(id, policy);
    return policy;
  }
}
