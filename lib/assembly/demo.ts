import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { demoDocument } from '../../fixtures/demo';
import { LEDGER_LOG } from '../../functions/contract/site-paths';
import { kmsCheckpointSigner } from '../../functions/ledger-writer/kms-signer';
import { bucketTileStore } from '../../functions/ledger-writer/tile-store';
import { devSecrets } from '../ingress/emit';
import { loadDocument, validateRecords, type LoadSummary } from '../loader/load';
import { DOCUMENT_CACHE_CONTROL, mediaTypeOf } from '../local/documents';
import { buildSite, keyOf, ORIGIN_DOCUMENTS } from '../publish/site';
import { canonicalSources } from '../publish/sources';
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
 *    demo records' entries, and what digests them), as `npm run build -- --records FILE` and a
 *    deploy would.
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

/** Loads the demo records as the loader role would in AWS: every call goes through the local endpoints and their IAM checks. */
export async function loadDemoAsLoaderRole(outputs: DemoOutputs, origin: string, loader: IssuedCredentials, endpoints: DemoEndpoints, anchor: Date): Promise<LoadSummary> {
  const credentials = { accessKeyId: loader.accessKeyId, secretAccessKey: loader.secretAccessKey, sessionToken: loader.sessionToken };
  const client = new DynamoDBClient({ endpoint: endpoints.dynamodb, region: endpoints.region, credentials, maxAttempts: 2 });
  const s3 = new S3Client({ endpoint: endpoints.s3, region: endpoints.region, credentials, forcePathStyle: true });
  const kms = new KMSClient({ endpoint: endpoints.kms, region: endpoints.region, credentials });
  try {
    const signer = await kmsCheckpointSigner({ keyId: outputs.LedgerKeyArn, origin, client: kms });
    return await loadDocument(demoDocument(anchor), {
      client,
      table: outputs.TableName,
      signer,
      tiles: bucketTileStore(s3, outputs.CatalogueBucketName, LEDGER_LOG.keyPrefix),
    });
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

/**
 * Puts into the catalogue bucket the documents that differ once the build knows the records loaded
 * (the ingress examples derived from them, and the release evidence that digests every document),
 * with the media type and cache policy the stack's deployments give them. The documents that name
 * origins are left as deployed (the examples name none). Returns the keys written.
 */
export async function publishRecordDocuments(s3: S3Client, bucket: string, anchor: Date): Promise<string[]> {
  const sources = canonicalSources();
  const built = buildSite(sources);
  const derived = buildSite({ ...sources, ingressRecords: validateRecords(demoDocument(anchor)) });
  const origin = new Set(ORIGIN_DOCUMENTS.map(keyOf));
  const changed = [...derived].filter(([key, bytes]) => !origin.has(key) && built.get(key) !== bytes);
  for (const [key, bytes] of changed) {
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: mediaTypeOf(key), CacheControl: DOCUMENT_CACHE_CONTROL }));
  }
  return changed.map(([key]) => key);
}
