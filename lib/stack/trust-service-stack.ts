import path from 'node:path';
import { LEDGER_LOG } from '../../functions/contract/site-paths';
import { Annotations, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Origins } from '../contract/origins';
import { buildOriginDocuments, ORIGIN_DOCUMENTS, keyOf } from '../publish/site';
import { canonicalSources } from '../publish/sources';
import { Construct } from 'constructs';
import { operations as contractOperations } from '../../functions/contract/operations';
import { SITE_DIR } from '../local/documents';
import { Catalogue } from './catalogue';
import { IngressSecrets } from './ingress-secrets';
import { LoaderAccess } from './loader-access';
import { acknowledgeFindings } from './nag-acknowledgements';
import { OperationFunctions } from './operation-functions';
import { OperatorAlarms } from './operator-alarms';
import { PublicApi } from './public-api';
import { RecordTable } from './record-table';
import { LedgerSigningKey, Sequencer } from './sequencer';
import { settingsFrom, type StackSettings } from './settings';

export const PROJECT_ROOT = path.resolve(__dirname, '../..');

export interface TrustServiceStackProps extends StackProps {
  /** The build output published to the catalogue bucket (default: dist/site). */
  siteDir?: string;
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
  readonly ledgerKey: LedgerSigningKey;
  readonly sequencer: Sequencer;
  readonly ingress: IngressSecrets;
  readonly publicApi: PublicApi;
  readonly origins: Origins;
  readonly alarms: OperatorAlarms;

  constructor(scope: Construct, id: string, props: TrustServiceStackProps = {}) {
    super(scope, id, props);
    const settings = (this.settings = settingsFrom(this.node));
    // The API is imported from the contract table's document, so the functions come from the same table.
    const operations = contractOperations;

    this.records = new RecordTable(this, 'Records', { deletionProtection: settings.deletionProtection, importFrom: settings.importFrom });
    this.catalogue = new Catalogue(this, 'Catalogue', {
      siteDir: props.siteDir ?? SITE_DIR,
      documentKeys: operations.flatMap((op) => (op.integration.kind === 'document' ? [op.integration.key] : [])),
      logRetention: settings.logRetentionDays,
      originKeys: ORIGIN_DOCUMENTS.map(keyOf),
      logKeyPrefix: LEDGER_LOG.keyPrefix,
    });
    this.ingress = new IngressSecrets(this, 'Ingress');
    this.functions = new OperationFunctions(this, 'Operations', {
      ingressSecrets: this.ingress.secret,
      operations,
      projectRoot: PROJECT_ROOT,
      table: this.records.table,
      bucket: this.catalogue.bucket,
      ledgerVerifierKeys: settings.ledgerVerifierKeys,
      logging: settings,
      logRetention: settings.logRetentionDays,
      // The origin the functions make their links from (PUBLIC_BASE_URL): the verification origin, where the links lead.
      publicBaseUrl: settings.verificationOrigin || settings.publicBaseUrl,
      releaseCommit: settings.releaseCommit,
      activationSettings: settings.activationSettings,
    });
    this.ledgerKey = new LedgerSigningKey(this, 'LedgerSigningKey');
    this.loader = new LoaderAccess(this, 'Loader', {
      table: this.records.table,
      tileBucket: this.catalogue.bucket,
      tileKeyPrefix: LEDGER_LOG.keyPrefix,
      signingKey: this.ledgerKey,
    });
    this.sequencer = new Sequencer(this, 'Sequencer', {
      projectRoot: PROJECT_ROOT,
      table: this.records.table,
      tileBucket: this.catalogue.bucket,
      tileKeyPrefix: LEDGER_LOG.keyPrefix,
      signingKey: this.ledgerKey,
      ledgerOrigin: settings.ledgerOrigin,
      logging: settings,
      logRetention: settings.logRetentionDays,
    });
    // The two writers, and no one else, may sign checkpoints (the key policy says so, whatever IAM grants elsewhere).
    this.ledgerKey.restrictSigningTo([this.sequencer.role, this.loader.role]);
    if (!settings.ledgerOrigin) {
      Annotations.of(this.sequencer).addInfo(
        'No ledger origin: set context ledgerOrigin (or verificationOrigin/publicBaseUrl) before the first event is sequenced; until then the sequencer signs nothing (docs/ledger.md).',
      );
    }
    this.publicApi = new PublicApi(this, 'PublicApi', {
      operations,
      functions: this.functions.byOperationId,
      bucket: this.catalogue.bucket,
      documentReadRole: this.catalogue.apiReadRole,
      stageName: settings.stageName,
      throttleRateLimit: settings.throttleRateLimit,
      throttleBurstLimit: settings.throttleBurstLimit,
      logRetention: settings.logRetentionDays,
      cloudWatchRole: settings.apiGatewayCloudWatchRole,
    });

    // The origins the published contract and catalogue name: context for custom domains, else the API's own URL.
    const fallback = settings.publicBaseUrl || this.publicApi.url;
    this.origins = { verificationOrigin: settings.verificationOrigin || fallback, generalOrigin: settings.generalOrigin || fallback };
    this.catalogue.publishOriginDocuments(buildOriginDocuments(canonicalSources(), this.origins));

    new CfnOutput(this, 'VerificationOrigin', { value: this.origins.verificationOrigin, description: 'Verification origin named in the published contract.' });
    new CfnOutput(this, 'GeneralOrigin', { value: this.origins.generalOrigin, description: 'General origin named in the published contract.' });
    new CfnOutput(this, 'ApiUrl', { value: this.publicApi.api.url, description: 'Base URL of the public API (stage included).' });
    new CfnOutput(this, 'TableName', { value: this.records.table.tableName, description: 'Record table: npm run load -- FILE --table <this>' });
    new CfnOutput(this, 'CatalogueBucketName', { value: this.catalogue.bucket.bucketName, description: `Also holds the ledger's tile log under ${LEDGER_LOG.keyPrefix}: npm run load -- FILE --tiles-bucket <this>` });
    new CfnOutput(this, 'LoaderRoleArn', { value: this.loader.role.roleArn, description: 'Role to assume for npm run load (writes the table and the tile log, signs with the ledger key).' });
    new CfnOutput(this, 'LedgerKeyArn', {
      value: this.ledgerKey.key.keyArn,
      description: 'The ledger\'s KMS Ed25519 checkpoint key: npm run load -- --kms-key <this> --origin <LedgerOrigin> --print-verifier-key gives ledgerVerifierKeys.',
    });
    if (settings.ledgerOrigin) new CfnOutput(this, 'LedgerOrigin', { value: settings.ledgerOrigin, description: 'The ledger\'s origin (checkpoint first line, signing key name).' });
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
}
