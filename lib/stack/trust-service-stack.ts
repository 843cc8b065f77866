import path from 'node:path';
import { LEDGER_LOG } from '../../functions/contract/site-paths';
import { Annotations, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Origins } from '../contract/origins';
import { buildOriginDocuments, LOADED_DOCUMENTS, ORIGIN_DOCUMENTS, keyOf } from '../publish/site';
import { canonicalSources } from '../publish/sources';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Construct } from 'constructs';
import type { Operation } from '../../functions/contract/operation';
import { operations as contractOperations } from '../../functions/contract/operations';
import { SITE_DIR } from '../local/documents';
import { Catalogue } from './catalogue';
import { Edge } from './edge';
import { IngressSecrets } from './ingress-secrets';
import { LoaderAccess } from './loader-access';
import { acknowledgeFindings } from './nag-acknowledgements';
import { OperationFunctions } from './operation-functions';
import { OperatorAlarms } from './operator-alarms';
import { PublicApi } from './public-api';
import { RecordTable } from './record-table';
import { edgeRouting } from './route-classes';
import { type LedgerSigningKey, Sequencer } from './sequencer';
import type { LedgerVerifierKey } from './ledger-verifier-key';
import { LedgerKeys } from './ledger-keys';
import { settingsFrom, type StackSettings } from './settings';

export const PROJECT_ROOT = path.resolve(__dirname, '../..');

/**
 * Without an origin the log cannot be signed (it is the first line of every checkpoint and the name
 * of its key, fixed for life): the synth stops, naming the context that gives one.
 */
export const NO_LEDGER_ORIGIN =
  'no ledger origin: set context verificationOrigin (https://verify.example.org), verificationDomain, publicBaseUrl or ledgerOrigin (verify.example.org/ledger); the log\'s origin is fixed for its life (docs/ledger.md#the-origin-line)';

export interface TrustServiceStackProps extends StackProps {
  /** The build output published to the catalogue bucket (default: dist/site). */
  siteDir?: string;
  /** What the edge takes from us-east-1 (lib/stack/edge-us-east-1.ts): the custom domains' certificate, the web ACL's ARN. */
  edgeUsEast1?: { certificate?: ICertificate; webAclArn?: string };
}

/**
 * The ledger's KMS keys (one a generation: lib/stack/ledger-keys.ts), and their verifier keys learned
 * at deploy time and checked against a pinned key: reads confirm integrity from the first event.
 * Without an origin, an error (not a throw): `cdk synth` and `cdk deploy` stop on it, while a test
 * may still inspect the template.
 */
function ledgerKeysOf(stack: Stack, settings: StackSettings): LedgerKeys {
  if (!settings.ledgerOrigin) Annotations.of(stack).addError(NO_LEDGER_ORIGIN);
  return new LedgerKeys(stack, settings, PROJECT_ROOT);
}

/**
 * The whole service in one stack, driven by the contract table: the record table, the catalogue
 * bucket, one function per Lambda operation, the REST API imported from the table's API Gateway
 * document, the sequencer (the event writer), the ledger's KMS checkpoint key, the loader's role,
 * and the operator's alarms and dashboard.
 */
export class TrustServiceStack extends Stack {
  readonly settings: StackSettings;
  readonly records: RecordTable;
  readonly catalogue: Catalogue;
  readonly functions: OperationFunctions;
  readonly loader: LoaderAccess;
  /** The key the writers sign with: the newest of the ledger's keys. */
  readonly ledgerKey: LedgerSigningKey;
  /** The current key's verifier key, learned at deploy time. */
  readonly verifierKey: LedgerVerifierKey;
  /** Every key the ledger has had, first to current. */
  readonly ledgerKeys: LedgerKeys;
  readonly sequencer: Sequencer;
  readonly ingress: IngressSecrets;
  readonly publicApi: PublicApi;
  /** The CloudFront distribution in front of the API and the tile log; absent with context edge=false. */
  readonly edge?: Edge;
  readonly origins: Origins;
  readonly alarms: OperatorAlarms;

  constructor(scope: Construct, id: string, props: TrustServiceStackProps = {}) {
    super(scope, id, props);
    const settings = (this.settings = settingsFrom(this.node));
    // The API is imported from the contract table's document, so the functions come from the same table.
    const operations = contractOperations;

    this.records = new RecordTable(this, 'Records', { deletionProtection: settings.deletionProtection, importFrom: settings.importFrom, capacity: settings.tableCapacity });
    this.catalogue = new Catalogue(this, 'Catalogue', {
      siteDir: props.siteDir ?? SITE_DIR,
      documentKeys: operations.flatMap((op) => (op.integration.kind === 'document' ? [op.integration.key] : [])),
      logRetention: settings.logRetentionDays,
      originKeys: ORIGIN_DOCUMENTS.map(keyOf),
      logKeyPrefix: LEDGER_LOG.keyPrefix,
      loadedKeys: LOADED_DOCUMENTS.map(keyOf),
    });
    this.ingress = new IngressSecrets(this, 'Ingress');
    this.ledgerKeys = ledgerKeysOf(this, settings);
    ({ key: this.ledgerKey, verifierKey: this.verifierKey } = this.ledgerKeys.current);
    this.functions = new OperationFunctions(this, 'Operations', {
      ingressSecrets: this.ingress.secret,
      operations,
      projectRoot: PROJECT_ROOT,
      table: this.records.table,
      bucket: this.catalogue.bucket,
      ledgerVerifierKeys: this.ledgerKeys.trustedVerifierKeys,
      ledgerRetiredLogs: settings.ledgerRetiredLogs,
      logging: settings,
      logRetention: settings.logRetentionDays,
      releaseCommit: settings.releaseCommit,
      receiverReservedConcurrency: settings.receiverReservedConcurrency,
      activationSettings: settings.activationSettings,
    });
    this.loader = new LoaderAccess(this, 'Loader', {
      table: this.records.table,
      tileBucket: this.catalogue.bucket,
      tileKeyPrefix: LEDGER_LOG.keyPrefix,
      publishedKeys: this.catalogue.loadedKeys,
      signingKey: this.ledgerKey,
      principalArn: settings.loaderPrincipalArn,
      requireMfa: settings.loaderMfa,
    });
    this.sequencer = new Sequencer(this, 'Sequencer', {
      projectRoot: PROJECT_ROOT,
      table: this.records.table,
      tileBucket: this.catalogue.bucket,
      tileKeyPrefix: LEDGER_LOG.keyPrefix,
      signingKey: this.ledgerKey,
      ledgerOrigin: this.ledgerKeys.current.origin,
      logging: settings,
      logRetention: settings.logRetentionDays,
      parts: settings.sequencerParts,
    });
    // The two writers, and no one else, may sign checkpoints (the key policy says so, whatever IAM grants elsewhere);
    // an earlier key only for the loader role during its handover, then for no one.
    this.ledgerKeys.restrictSigning({ sequencer: this.sequencer.role, loader: this.loader.role });
    this.publicApi = new PublicApi(this, 'PublicApi', {
      operations,
      functions: this.functions.byOperationId,
      functionNames: this.functions.nameByOperationId,
      bucket: this.catalogue.bucket,
      documentReadRole: this.catalogue.apiReadRole,
      stageName: settings.stageName,
      throttleRateLimit: settings.throttleRateLimit,
      throttleBurstLimit: settings.throttleBurstLimit,
      routeThrottles: settings.routeThrottles,
      logRetention: settings.logRetentionDays,
      cloudWatchRole: settings.apiGatewayCloudWatchRole, accessLog: settings.apiAccessLog,
    });

    if (settings.edge) this.edge = this.edgeOf(settings, props.edgeUsEast1, operations);

    this.origins = this.publishOrigins(settings);

    new CfnOutput(this, 'VerificationOrigin', { value: this.origins.verificationOrigin, description: 'Verification origin named in the published contract.' });
    new CfnOutput(this, 'GeneralOrigin', { value: this.origins.generalOrigin, description: 'General origin named in the published contract.' });
    new CfnOutput(this, 'ApiUrl', { value: this.publicApi.api.url, description: 'Base URL of the public API (stage included).' });
    new CfnOutput(this, 'TableName', { value: this.records.table.tableName, description: 'Record table: npm run load -- FILE --table <this>' });
    new CfnOutput(this, 'CatalogueBucketName', { value: this.catalogue.bucket.bucketName, description: `Also holds the ledger's tile log under ${LEDGER_LOG.keyPrefix}: npm run load -- FILE --tiles-bucket <this>` });
    new CfnOutput(this, 'LoaderRoleArn', { value: this.loader.role.roleArn, description: 'Role to assume for npm run load (writes the table and the tile log, signs with the ledger key).' });
    this.ledgerOutputs();
    new CfnOutput(this, 'SequencerDeadLetterQueueUrl', {
      value: this.sequencer.deadLetterQueue.queueUrl,
      description: 'Stream batches and scheduled runs the sequencer could not complete (their events stay pending and are retried by the schedule).',
    });
    this.alarms = new OperatorAlarms(this, 'Alarms', {
      functions: this.functions.byOperationId,
      sequencer: this.sequencer,
      api: this.publicApi.api,
      stageName: settings.stageName,
      table: this.records.table,
      alarmTopicArn: settings.alarmTopicArn,
      alarmEmail: settings.alarmEmail,
    });

    new CfnOutput(this, 'IngressSecretsArn', { value: this.ingress.secret.secretArn, description: 'Receivers\' verification keys: {"<sourceId>": "whsec_..." | "whpk_..."} (docs/ingress.md).' });

    acknowledgeFindings(this);
  }

  /** The ledger's key, origin and verifier key, as an operator and relying parties need them. */
  private ledgerOutputs(): void {
    new CfnOutput(this, 'LedgerKeyArn', {
      value: this.ledgerKey.key.keyArn,
      description: 'The ledger\'s KMS Ed25519 checkpoint key (npm run load -- --kms-key <this> --origin <LedgerOrigin>).',
    });
    const { current, handingOver } = this.ledgerKeys;
    if (current.origin) new CfnOutput(this, 'LedgerOrigin', { value: current.origin, description: 'The ledger\'s origin (checkpoint first line, signing key name).' });
    if (handingOver) {
      // What npm run rotate needs as the old key (--kms-key, --origin) until ledgerRetiredLogs names its log.
      new CfnOutput(this, 'PreviousLedgerKeyArn', { value: handingOver.key.key.keyArn, description: 'The key being retired: npm run rotate -- --kms-key <this> --origin <PreviousLedgerOrigin>.' });
      new CfnOutput(this, 'PreviousLedgerOrigin', { value: handingOver.origin, description: 'The origin of the log being retired.' });
    }
    new CfnOutput(this, 'LedgerVerifierKey', { value: this.verifierKey.verifierKey, description: 'The ledger\'s verifier key, learned from the KMS key at deploy time: what relying parties pin.' });
  }

  /**
   * The origins the published contract and catalogue name, and the functions build absolute URLs
   * from: context (custom domains), else the distribution's own domain, else the API's own URL.
   * Each function is given its routes' origin; the documents that name the origins are built with them.
   */
  private publishOrigins(settings: StackSettings): Origins {
    const fallback = settings.publicBaseUrl || (this.edge ? this.edge.url : this.publicApi.url);
    const origins = { verificationOrigin: settings.verificationOrigin || fallback, generalOrigin: settings.generalOrigin || fallback };
    this.functions.usePublicOrigins(origins);
    this.catalogue.publishOriginDocuments(buildOriginDocuments(canonicalSources(), origins));
    return origins;
  }

  /** The CloudFront distribution in front of the API and the tile log, with the custom domains' certificate and the web ACL from us-east-1. */
  private edgeOf(settings: StackSettings, fromUsEast1: TrustServiceStackProps['edgeUsEast1'], operations: readonly Operation[]): Edge {
    const domainNames = [...new Set([settings.verificationDomain, settings.generalDomain].filter(Boolean))];
    const certificate = fromUsEast1?.certificate;
    if (domainNames.length > 0 && !certificate) throw new Error('custom domains need their certificate from the us-east-1 stack (lib/stack/app.ts creates it)');
    const edge = new Edge(this, 'Edge', {
      routing: edgeRouting(operations),
      restApiId: this.publicApi.api.restApiId,
      stageName: settings.stageName,
      logBucket: this.catalogue.bucket,
      logKeyPrefix: LEDGER_LOG.keyPrefix,
      accessLogBucket: this.catalogue.accessLogBucket,
      ...(certificate ? { domains: { names: domainNames, certificate, hostedZoneId: settings.hostedZoneId, hostedZoneName: settings.hostedZoneName } } : {}),
      ...(fromUsEast1?.webAclArn ? { webAclArn: fromUsEast1.webAclArn } : {}),
    });
    new CfnOutput(this, 'EdgeUrl', { value: edge.url, description: 'The public entry: the CloudFront distribution in front of the API and the ledger tile log.' });
    new CfnOutput(this, 'DistributionDomainName', { value: edge.distribution.distributionDomainName, description: 'The distribution\'s own domain (custom domains are aliases of it).' });
    return edge;
  }
}
