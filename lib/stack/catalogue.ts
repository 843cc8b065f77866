import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AssetHashType, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { DOCUMENT_CACHE_CONTROL, filesBelow, mediaTypeOf } from '../local/documents';

export interface CatalogueProps {
  /** The build output (`npm run build`), published as is: file paths are object keys. */
  siteDir: string;
  /** Keys the API serves straight from the bucket (the contract table's document operations). */
  documentKeys: readonly string[];
  logRetention: RetentionDays;
  /**
   * Keys of the documents that name the service's origins: not taken from the build output but
   * deployed by `publishOriginDocuments` with the origins of this deployment.
   */
  originKeys?: readonly string[];
  /**
   * Key prefix of the ledger's tile log: objects the loader writes (never the deployments, whose
   * patterns match only built files' extensions, so their pruning leaves the log alone) and the
   * API serves, so the read role may read below it.
   */
  logKeyPrefix?: string;
  /**
   * Keys a load publishes (`npm run load` with the catalogue bucket: the ingress examples derived
   * from the records it loaded). The stack puts the build's templates there when it is created and
   * never again: its other deployments neither copy nor prune them, so a later deploy leaves a
   * load's documents as they are.
   */
  loadedKeys?: readonly string[];
}

/**
 * Files grouped by media type. A deployment sets one Content-Type on everything it copies, so
 * each media type gets its own deployment limited to its file extensions.
 */
export function mediaTypeGroups(keys: readonly string[]): Map<string, string[]> {
  const groups = new Map<string, Set<string>>();
  for (const key of keys) {
    const ext = path.posix.extname(key);
    if (!ext) throw new Error(`published file '${key}' has no extension, so its media type is unknown`);
    const type = mediaTypeOf(key);
    if (!groups.has(type)) groups.set(type, new Set());
    groups.get(type)!.add(`*${ext}`);
  }
  return new Map([...groups].map(([type, patterns]) => [type, [...patterns].sort()]));
}

/**
 * What a media type's deployment syncs: its extensions' patterns, or, where one of its files is a
 * key a load publishes, each of its other files by name (`aws s3 sync` applies includes after
 * excludes, so a pattern would copy and prune that key whatever else is excluded).
 */
function includedKeys(published: readonly string[], mediaType: string, patterns: string[], loadedKeys: readonly string[]): string[] {
  const files = published.filter((key) => mediaTypeOf(key) === mediaType);
  if (!files.some((key) => loadedKeys.includes(key))) return patterns;
  return files.filter((key) => !loadedKeys.includes(key)).sort();
}

/**
 * The catalogue bucket: private, TLS only, versioned, encrypted, with server access logs; the
 * build output deployed into it with each document's media type and cache policy; and the role
 * API Gateway assumes to read exactly the published documents.
 */
export class Catalogue extends Construct {
  readonly bucket: Bucket;
  readonly accessLogBucket: Bucket;
  readonly apiReadRole: Role;
  readonly deployments: BucketDeployment[] = [];
  readonly originKeys: readonly string[];
  /** The keys a load publishes, which only the stack's creation deploys (their templates). */
  readonly loadedKeys: readonly string[];
  private readonly deploymentsByType = new Map<string, BucketDeployment>();
  /** The origin-naming documents as deployed (they may hold deploy-time values such as the API's URL). */
  readonly originDocuments = new Map<string, string>();

  constructor(scope: Construct, id: string, props: CatalogueProps) {
    super(scope, id);
    if (!existsSync(props.siteDir)) {
      throw new Error(`${props.siteDir} does not exist: run \`npm run build\` before synthesizing the stack`);
    }
    const published = filesBelow(props.siteDir);
    const missing = props.documentKeys.filter((key) => !published.includes(key));
    if (missing.length > 0) {
      throw new Error(`the contract serves documents the build did not produce (${missing.join(', ')}): run \`npm run build\``);
    }

    this.accessLogBucket = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: true,
      // SSE-S3: API Gateway's S3 integration reads it without a KMS grant.
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.accessLogBucket,
      serverAccessLogsPrefix: 'catalogue/',
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // The deployments share one provider function; its logs are kept like every other log of the stack.
    const deploymentLogs = new LogGroup(this, 'DeploymentLogs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    const originKeys = [...(props.originKeys ?? [])];
    const loadedKeys = [...(props.loadedKeys ?? [])];
    for (const [mediaType, patterns] of mediaTypeGroups(published)) {
      const name = mediaType.split(';')[0].replace(/[^A-Za-z0-9]/g, '');
      const excluded = [...originKeys, ...loadedKeys];
      const deployment = new BucketDeployment(this, `Deploy${name}`, {
          sources: [Source.asset(props.siteDir, excluded.length > 0 ? { exclude: excluded } : {})],
          destinationBucket: this.bucket,
          // Only this media type's files: the deployments share the bucket and none prunes another's files.
          exclude: ['*'],
          include: includedKeys(published, mediaType, patterns, loadedKeys),
          contentType: mediaType,
          cacheControl: [CacheControl.fromString(DOCUMENT_CACHE_CONTROL)],
          prune: true,
          memoryLimit: 256,
          logGroup: deploymentLogs,
      });
      this.deployments.push(deployment);
      this.deploymentsByType.set(mediaType, deployment);
    }

    if (loadedKeys.length > 0) this.deployLoadedTemplates(props.siteDir, loadedKeys, deploymentLogs);
    this.originKeys = originKeys;
    this.loadedKeys = loadedKeys;
    this.apiReadRole = new Role(this, 'ApiReadRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway reads the published catalogue documents (and nothing else) from the catalogue bucket.',
    });
    const readable = [...new Set(props.documentKeys)].sort().map((key) => this.bucket.arnForObjects(key));
    if (props.logKeyPrefix) {
      if (!/^[a-z0-9-]+\/$/.test(props.logKeyPrefix)) throw new Error(`the log key prefix ${props.logKeyPrefix} is not a folder name ending in /`);
      const clash = published.find((key) => key.startsWith(props.logKeyPrefix!));
      if (clash) throw new Error(`the build output has ${clash} under the log's key prefix ${props.logKeyPrefix}`);
      readable.push(this.bucket.arnForObjects(`${props.logKeyPrefix}*`));
    }
    if (readable.length > 0) this.apiReadRole.addToPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: readable }));
  }

  /**
   * The build's templates of the documents a load publishes, deployed when the stack is created and
   * never again: their asset's hash is fixed (the stack's name, not the files' content), so the
   * deployment's properties never change and CloudFormation never updates it. Before any load
   * the templates are served; after one, what it published stays, whatever is deployed later.
   */
  private deployLoadedTemplates(siteDir: string, loadedKeys: readonly string[], logGroup: LogGroup): void {
    const types = new Set(loadedKeys.map(mediaTypeOf));
    if (types.size !== 1) throw new Error(`the documents a load publishes (${loadedKeys.join(', ')}) must share one media type`);
    const staged = mkdtempSync(path.join(os.tmpdir(), 'loaded-templates-'));
    for (const key of loadedKeys) {
      mkdirSync(path.dirname(path.join(staged, key)), { recursive: true });
      copyFileSync(path.join(siteDir, key), path.join(staged, key));
    }
    this.deployments.push(
      new BucketDeployment(this, 'DeployLoadedTemplates', {
        sources: [Source.asset(staged, { assetHash: `loaded-templates:${Stack.of(this).stackName}`, assetHashType: AssetHashType.CUSTOM })],
        destinationBucket: this.bucket,
        contentType: [...types][0],
        cacheControl: [CacheControl.fromString(DOCUMENT_CACHE_CONTROL)],
        prune: false,
        memoryLimit: 256,
        logGroup,
      }),
    );
  }

  /**
   * Deploys the documents that name origins, built for this deployment's origins. A value known
   * only at deploy time (the API's own URL) is filled in by the deployment (Source.data markers,
   * JSON-escaped), so the bucket holds the URL callers actually use. Each goes with its media
   * type's deployment (same Content-Type and Cache-Control as the rest).
   */
  publishOriginDocuments(documents: ReadonlyMap<string, string>): void {
    const missing = this.originKeys.filter((key) => !documents.has(key));
    if (missing.length > 0) throw new Error(`origin documents not built: ${missing.join(', ')}`);
    for (const [key, bytes] of documents) {
      if (!this.originKeys.includes(key)) throw new Error(`${key} is not an origin document of this catalogue`);
      const deployment = this.deploymentsByType.get(mediaTypeOf(key));
      if (!deployment) throw new Error(`no deployment for the media type of ${key}`);
      deployment.addSource(Source.data(key, bytes, { jsonEscape: key.endsWith('.json') }));
      this.originDocuments.set(key, bytes);
    }
  }
}
