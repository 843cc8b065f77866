import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { demoDocument } from '../../fixtures/demo';
import { LEDGER_LOG } from '../../functions/contract/site-paths';
import { kmsCheckpointSigner } from '../../functions/ledger-writer/kms-signer';
import { bucketTileStore } from '../../functions/ledger-writer/tile-store';
import { devSecrets } from '../ingress/emit';
import { documentSource, loadDocument, type LoadSummary } from '../loader/load';
import { loadedRecordsOf, publishLoadedDocuments } from '../publish/loaded-examples';
import { DEV_INGRESS_SECRETS_FILE } from '../local/service';
import type { IssuedCredentials } from './iam/credentials';

/**
 * `--demo`: what an operator does after the first `cdk deploy` of this stack (docs/deploy.md),
 * done against the local stand-ins, from the stack's outputs:
 *  - load the demo records through the loader (lib/loader), signed in as the loader role
 *    (LoaderRoleArn), writing the table (TableName) and the ledger's tile log in the catalogue
 *    bucket (CatalogueBucketName), signing checkpoints with the ledger key (LedgerKeyArn);
 *  - activate the event sources: their development keys into the ingress secret (IngressSecretsArn);
 *  - trust the ledger key: its verifier key as every read function's LEDGER_VERIFIER_KEYS, and a
 *    ledger origin for the sequencer when the template names none (deploy.md's second deploy);
 *  - publish the documents derived from the records loaded (the ingress examples, dated after the
 *    demo records' entries), as that load does, with the loader role's own permission.
 */

/** The stack outputs the demo works from (lib/stack/trust-service-stack.ts). */
export interface DemoOutputs {
  TableName: string;
  CatalogueBucketName: string;
  LoaderRoleArn: string;
  LedgerKeyArn: string;
  IngressSecretsArn: string;
  LedgerOrigin?: string;
}

export const DEMO_OUTPUTS = ['TableName', 'CatalogueBucketName', 'LoaderRoleArn', 'LedgerKeyArn', 'IngressSecretsArn'] as const;

export interface DemoEndpoints {
  dynamodb: string;
  s3: string;
  kms: string;
  region: string;
}

/**
 * Loads the demo records as `npm run load -- FILE --tiles-bucket <CatalogueBucketName>` does in AWS,
 * signed in as the loader role: every call goes through the local endpoints and their IAM checks,
 * the publishing of the examples derived from the records loaded included (lib/publish/loaded-examples.ts).
 */
export async function loadDemoAsLoaderRole(outputs: DemoOutputs, origin: string, loader: IssuedCredentials, endpoints: DemoEndpoints, anchor: Date): Promise<LoadSummary & { published: string[] }> {
  const credentials = { accessKeyId: loader.accessKeyId, secretAccessKey: loader.secretAccessKey, sessionToken: loader.sessionToken };
  const client = new DynamoDBClient({ endpoint: endpoints.dynamodb, region: endpoints.region, credentials, maxAttempts: 2 });
  const s3 = new S3Client({ endpoint: endpoints.s3, region: endpoints.region, credentials, forcePathStyle: true });
  const kms = new KMSClient({ endpoint: endpoints.kms, region: endpoints.region, credentials });
  try {
    const signer = await kmsCheckpointSigner({ keyId: outputs.LedgerKeyArn, origin, client: kms });
    const document = demoDocument(anchor);
    const summary = await loadDocument(document, {
      client,
      table: outputs.TableName,
      signer,
      tiles: bucketTileStore(s3, outputs.CatalogueBucketName, LEDGER_LOG.keyPrefix),
    });
    const records = await loadedRecordsOf(documentSource(document, 'the demo data'), summary.keptChangedByEvents);
    return { ...summary, published: await publishLoadedDocuments(s3, outputs.CatalogueBucketName, records) };
  } finally {
    client.destroy();
    s3.destroy();
    kms.destroy();
  }
}

/** The ingress secret's value that activates every event source with its development key. */
export function developmentIngressKeys(): string {
  return JSON.stringify(devSecrets(DEV_INGRESS_SECRETS_FILE));
}
