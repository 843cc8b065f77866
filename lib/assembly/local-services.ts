import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { startEmbeddedStore } from '../local/embedded-store';
import type { KmsStandIn } from '../local/kms-stand-in';
import { startSecretsStandIn, type SecretsStandIn } from '../local/secrets-stand-in';
import { startSqsStandIn, type SqsStandIn } from '../local/sqs-stand-in';
import { Closers } from './closers';
import { TableStreams, type StreamedTable } from './dynamodb-streams';
import { dynamoDbRules, type TableInfo } from './endpoints/dynamodb';
import { jsonBody, passThrough, startIamEndpoint, type Denial, type Forward, type ServiceRules } from './endpoints/iam-endpoint';
import { kmsRules, secretsManagerRules, sqsRules } from './endpoints/json-services';
import { lambdaRules } from './endpoints/lambda';
import { s3Rules, s3rverForward } from './endpoints/s3';
import { CredentialIssuer, type IssuedCredentials } from './iam/credentials';
import { IamEvaluator } from './iam/evaluator';
import { signRequest } from './iam/sigv4';
import { invokeForward } from './lambda/invoke-api';
import type { LocalFunctions } from './lambda/local-functions';
import type { LocalAccount } from './physical-names';


/**
 * The AWS services of one account and region, on this machine: each service's stand-in (the
 * embedded DynamoDB store with streams captured at its endpoint, s3rver, the KMS, Secrets Manager
 * and SQS stand-ins, and Lambda's Invoke answered by the functions running here) behind an
 * endpoint that checks every request's signature and IAM policies as AWS does. They start empty;
 * the provisioners (provisioners/) create the template's resources in them, as CloudFormation
 * would, through the administrative handles here (no IAM: CloudFormation acts for the operator).
 * The endpoints find resources by what the provisioners registered, when a request arrives.
 */

export type ServiceName = 'dynamodb' | 's3' | 'kms' | 'secretsmanager' | 'sqs' | 'lambda';

/** A queue of the template: its logical id, URL (its Ref), name and ARN. */
export interface LocalQueue {
  logicalId: string;
  url: string;
  name: string;
  arn: string;
}

export interface LocalServices {
  account: LocalAccount;
  /** The IAM-enforcing endpoints the functions and the loader are given. */
  endpoints: Record<ServiceName, string>;
  /** The stand-ins behind the endpoints (no IAM: for inspection only). */
  backends: { dynamodb: string; s3: string };
  iam: {
    /** Starts with no policies: the IAM provisioner gives it the template's. */
    evaluator: IamEvaluator;
    issuer: CredentialIssuer;
    /** Every call the endpoints refused, in order. */
    denials: Denial[];
  };
  dynamodb: {
    admin: DynamoDBClient;
    /** The tables by name, as the endpoint reads them for IAM (partition keys for dynamodb:LeadingKeys). */
    tables: Map<string, TableInfo>;
    /** The tables whose stream is enabled, by name. */
    streamed: Map<string, StreamedTable>;
    streams: TableStreams;
  };
  s3: { admin: S3Client };
  kms: {
    /** The Ed25519 signing keys by ARN. */
    keys: Map<string, KmsStandIn>;
    /** The aliases: [AliasName, the ARN or key id it targets]. */
    aliases: Array<[name: string, target: unknown]>;
  };
  secrets: { standIn: SecretsStandIn; arns: string[] };
  sqs: { standIn: SqsStandIn; queues: LocalQueue[] };
  lambda: {
    /**
     * The functions the Lambda endpoint invokes: they are provisioned after the services start, so
     * the runner binds them once it has their registry (until then every function is not found).
     */
    bind(functions: Pick<LocalFunctions, 'find'>): void;
  };
  /** A signed JSON-protocol call the runner makes as a role (Lambda sending a failure to a destination queue). */
  callAsRole(credentials: IssuedCredentials, service: 'sqs', target: string, body: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const STORE_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Starts the services; `workDir` holds what s3rver writes. */
export async function startLocalServices(account: LocalAccount, workDir: string, log: (line: string) => void): Promise<LocalServices> {
  const closers = new Closers();
  try {
    return await start(account, workDir, log, closers);
  } catch (error) {
    await closers.close();
    throw error;
  }
}

async function start(account: LocalAccount, workDir: string, log: (line: string) => void, closers: Closers): Promise<LocalServices> {
  const sqsStandIn = await startSqsStandIn();
  closers.add(() => sqsStandIn.close());
  const store = await startEmbeddedStore();
  closers.add(() => store.close());
  const storeAdmin = new DynamoDBClient({ endpoint: store.endpoint, region: account.region, credentials: STORE_CREDENTIALS });
  closers.add(() => storeAdmin.destroy());
  const secretsStandIn = await startSecretsStandIn();
  closers.add(() => secretsStandIn.close());
  // Buckets are created by the bucket provisioner (CreateBucket), as CloudFormation creates them.
  const s3rver = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(workDir, 's3') });
  const s3Address = await s3rver.run();
  closers.add(() => s3rver.close());
  const s3Backend = `http://127.0.0.1:${s3Address.port}`;
  const s3Admin = new S3Client({ endpoint: s3Backend, region: account.region, credentials: S3RVER_CREDENTIALS, forcePathStyle: true });
  closers.add(() => s3Admin.destroy());

  const streamed = new Map<string, StreamedTable>();
  const dynamodb: LocalServices['dynamodb'] = { admin: storeAdmin, tables: new Map(), streamed, streams: new TableStreams(streamed, storeCall(store.endpoint), account.region) };
  const kms: LocalServices['kms'] = { keys: new Map(), aliases: [] };
  const secrets: LocalServices['secrets'] = { standIn: secretsStandIn, arns: [] };
  const sqs: LocalServices['sqs'] = { standIn: sqsStandIn, queues: [] };
  let functions: Pick<LocalFunctions, 'find'> | undefined;

  const evaluator = new IamEvaluator({ roles: new Map(), resourcePolicies: new Map(), problems: [] }, account.account, account.region);
  const issuer = new CredentialIssuer();
  const denials: Denial[] = [];
  const onDenied = (denial: Denial) => {
    denials.push(denial);
    log(`IAM  ${denial.label}: AccessDenied ${denial.action} on ${denial.resource} (${denial.message})`);
  };
  const endpoint = async (rules: ServiceRules, forward: Forward): Promise<string> => {
    const started = await startIamEndpoint({ rules, forward, issuer, evaluator, onDenied });
    closers.add(() => started.close());
    return started.endpoint;
  };
  const kmsArnOf = (keyId: string) => kmsKeyArn(kms, keyId);
  const secretArnOf = (id: string) => secrets.arns.find((arn) => arn === id || arn.startsWith(id) || arn.includes(`:secret:${id}-`));
  const queueArnOf = (urlOrName: string) => sqs.queues.find((q) => q.url === urlOrName || q.name === urlOrName)?.arn;
  const endpoints: Record<ServiceName, string> = {
    dynamodb: await endpoint(dynamoDbRules(dynamodb.tables, account.region, account.account), dynamodb.streams.capturing(passThrough(store.endpoint))),
    s3: await endpoint(s3Rules(account.partition), s3rverForward(s3Backend, account.region, S3RVER_CREDENTIALS)),
    kms: await endpoint(kmsRules({ arnOf: kmsArnOf }), kmsForward(kms, kmsArnOf)),
    secretsmanager: await endpoint(secretsManagerRules({ arnOf: secretArnOf }), passThrough(secretsStandIn.endpoint)),
    sqs: await endpoint(sqsRules({ arnOf: queueArnOf }), passThrough(sqsStandIn.endpoint)),
    lambda: await endpoint(lambdaRules(account), invokeForward(account, (arn) => functions?.find(arn)?.host)),
  };

  return {
    account,
    endpoints,
    backends: { dynamodb: store.endpoint, s3: s3Backend },
    iam: { evaluator, issuer, denials },
    dynamodb,
    s3: { admin: s3Admin },
    kms,
    secrets,
    sqs,
    lambda: {
      bind(registry) {
        functions = registry;
      },
    },
    callAsRole: (credentials, service, target, body) => callAsRole(endpoints[service], account.region, credentials, service, target, body),
    close: () => closers.close(),
  };
}

/** A JSON-protocol call straight to the store (DynamoDB itself reading its own items for a stream record). */
function storeCall(storeEndpoint: string) {
  return async (operation: string, body: Record<string, unknown>) => {
    const out = await fetch(storeEndpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': `DynamoDB_20120810.${operation}`,
        'x-amz-date': '20260101T000000Z',
        // The store wants a signature's shape and checks nothing in it.
        authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/local/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=0',
      },
      body: JSON.stringify(body),
    });
    return (await out.json()) as Record<string, any>;
  };
}

/** The ARN of the key a request names: by ARN, key id, alias name or alias ARN (undefined: no such key). */
function kmsKeyArn(kms: LocalServices['kms'], keyId: string): string | undefined {
  for (const [arn] of kms.keys) {
    if (keyId === arn || keyId === arn.slice(arn.lastIndexOf('/') + 1)) return arn;
  }
  for (const [name, target] of kms.aliases) {
    if (keyId === name || keyId.endsWith(`:${name}`)) return String(target);
  }
  return undefined;
}

/** Each key is a stand-in of its own: a request goes to the one it names, or is refused as KMS refuses an unknown key. */
function kmsForward(kms: LocalServices['kms'], arnOf: (keyId: string) => string | undefined): Forward {
  return (request, caller) => {
    // The body the endpoint's rules parsed (jsonBody parses a request's body once).
    const keyId = String(jsonBody(request).KeyId ?? '');
    const key = kms.keys.get(arnOf(keyId) ?? '');
    if (!key) {
      return Promise.resolve({
        status: 400,
        headers: { 'content-type': 'application/x-amz-json-1.1' },
        body: Buffer.from(JSON.stringify({ __type: 'NotFoundException', message: `Key '${keyId}' does not exist` })),
      });
    }
    return passThrough(key.endpoint)(request, caller);
  };
}

async function callAsRole(endpoint: string, region: string, credentials: IssuedCredentials, service: string, target: string, body: Record<string, unknown>): Promise<void> {
  const url = new URL(endpoint);
  const payload = Buffer.from(JSON.stringify(body));
  const headers = await signRequest(
    { method: 'POST', target: '/', headers: { host: url.host, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target }, body: payload },
    service,
    region,
    credentials,
  );
  const out = await fetch(url, { method: 'POST', headers, body: payload });
  if (!out.ok) throw new Error(`${target} answered ${out.status}: ${await out.text()}`);
}
