import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BatchWriteItemCommand, CreateTableCommand, DynamoDBClient, PutItemCommand, QueryCommand, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import S3rver from 's3rver';
import { dynamoDbRules } from '../../lib/assembly/endpoints/dynamodb';
import { passThrough, startIamEndpoint, type Denial, type IamEndpoint } from '../../lib/assembly/endpoints/iam-endpoint';
import { kmsRules, secretsManagerRules } from '../../lib/assembly/endpoints/json-services';
import { s3Rules, s3rverForward } from '../../lib/assembly/endpoints/s3';
import { CredentialIssuer, type IssuedCredentials } from '../../lib/assembly/iam/credentials';
import { IamEvaluator } from '../../lib/assembly/iam/evaluator';
import type { PolicyModel } from '../../lib/assembly/iam/policy-model';
import { startEmbeddedStore, type EmbeddedStore } from '../../lib/local/embedded-store';
import { startKmsStandIn, type KmsStandIn } from '../../lib/local/kms-stand-in';
import { startSecretsStandIn, type SecretsStandIn } from '../../lib/local/secrets-stand-in';


/**
 * The local AWS endpoints the assembly runner gives the functions, each in front of its stand-in,
 * driven by the real AWS SDK clients (their SigV4 signer is the second implementation the
 * endpoints' checks must agree with): who calls is known from the signature's access key id, the
 * call is evaluated against the role's policies and the resource's own policy, conditions
 * (dynamodb:LeadingKeys, aws:PrincipalArn) included, and a refusal is the service's own.
 */
const ACCOUNT = '123456789012';
const REGION = 'eu-central-1';
const TABLE = 'records';
const TABLE_ARN = `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`;
const KEY_ARN = `arn:aws:kms:${REGION}:${ACCOUNT}:key/11111111-2222-4333-a444-555555555555`;
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:ingress-AbCdEf`;
const RECEIVER = `arn:aws:iam::${ACCOUNT}:role/Receiver`;
const SEQUENCER = `arn:aws:iam::${ACCOUNT}:role/Sequencer`;
const READER = `arn:aws:iam::${ACCOUNT}:role/Reader`;

const policy = (...Statement: unknown[]) => ({ Version: '2012-10-17', Statement });
const model: PolicyModel = {
  roles: new Map([
    [
      RECEIVER,
      {
        arn: RECEIVER,
        name: 'Receiver',
        policies: [
          {
            name: 'ingress',
            policy: policy(
              { Effect: 'Allow', Action: ['dynamodb:PutItem'], Resource: TABLE_ARN, Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['P#*'] } } },
              { Effect: 'Allow', Action: ['dynamodb:Query'], Resource: TABLE_ARN, Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['R#*'] } } },
              { Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: SECRET_ARN },
            ),
          },
        ],
      },
    ],
    // Both may sign by IAM; the key policy lets only the sequencer.
    [SEQUENCER, { arn: SEQUENCER, name: 'Sequencer', policies: [{ name: 'sign', policy: policy({ Effect: 'Allow', Action: ['kms:Sign', 'kms:GetPublicKey'], Resource: KEY_ARN }, { Effect: 'Allow', Action: ['s3:PutObject', 's3:GetObject'], Resource: 'arn:aws:s3:::catalogue/ledger/*' }) }] }],
    [READER, { arn: READER, name: 'Reader', policies: [{ name: 'sign', policy: policy({ Effect: 'Allow', Action: ['kms:Sign'], Resource: KEY_ARN }, { Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::catalogue/*' }) }] }],
  ]),
  resourcePolicies: new Map([
    [
      KEY_ARN,
      policy(
        { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: 'kms:*', Resource: '*' },
        { Sid: 'OnlyTheLedgerWritersSign', Effect: 'Deny', Principal: { AWS: '*' }, Action: 'kms:Sign', Resource: '*', Condition: { ArnNotEquals: { 'aws:PrincipalArn': [SEQUENCER] } } },
      ),
    ],
    ['arn:aws:s3:::catalogue', policy({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:*', Resource: ['arn:aws:s3:::catalogue', 'arn:aws:s3:::catalogue/*'], Condition: { Bool: { 'aws:SecureTransport': 'false' } } })],
  ]),
  problems: [],
};

let store: EmbeddedStore;
let kms: KmsStandIn;
let secrets: SecretsStandIn;
let s3rver: { close(): Promise<void> };
let s3Dir: string;
const endpoints: Record<string, IamEndpoint> = {};
const issuer = new CredentialIssuer();
const denials: Denial[] = [];
let receiver: IssuedCredentials;
let sequencer: IssuedCredentials;
let reader: IssuedCredentials;

const sdkCredentials = (c: IssuedCredentials) => ({ accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, sessionToken: c.sessionToken });
const dynamo = (c: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) => new DynamoDBClient({ endpoint: endpoints.dynamodb.endpoint, region: REGION, credentials: c, maxAttempts: 1 });

async function refusal(work: Promise<unknown>): Promise<{ name: string; status?: number; message: string }> {
  try {
    await work;
  } catch (error) {
    const e = error as Error & { $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode, message: e.message };
  }
  throw new Error('the call was not refused');
}

beforeAll(async () => {
  store = await startEmbeddedStore();
  const admin = new DynamoDBClient({ endpoint: store.endpoint, region: REGION, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  await admin.send(new CreateTableCommand({ TableName: TABLE, KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }], AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }], BillingMode: 'PAY_PER_REQUEST' }));
  await waitUntilTableExists({ client: admin, maxWaitTime: 30, minDelay: 0.1, maxDelay: 0.5 }, { TableName: TABLE });
  admin.destroy();
  kms = await startKmsStandIn(KEY_ARN);
  secrets = await startSecretsStandIn();
  secrets.create(SECRET_ARN, '{"service-platform":"whsec_x"}');
  s3Dir = mkdtempSync(path.join(os.tmpdir(), 'assembly-iam-s3-'));
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: s3Dir, configureBuckets: [{ name: 'catalogue' }] });
  const s3Address = await s3.run();
  s3rver = s3;
  const evaluator = new IamEvaluator(model, ACCOUNT, REGION);
  const common = { issuer, evaluator, onDenied: (d: Denial) => denials.push(d) };
  const tables = new Map([[TABLE, { name: TABLE, arn: TABLE_ARN, partitionKey: 'pk', indexPartitionKeys: new Map<string, string>() }]]);
  endpoints.dynamodb = await startIamEndpoint({ rules: dynamoDbRules(tables, REGION, ACCOUNT), forward: passThrough(store.endpoint), ...common });
  endpoints.kms = await startIamEndpoint({ rules: kmsRules({ arnOf: (id) => (id === KEY_ARN ? KEY_ARN : undefined) }), forward: passThrough(kms.endpoint), ...common });
  endpoints.secrets = await startIamEndpoint({ rules: secretsManagerRules({ arnOf: (id) => (SECRET_ARN.startsWith(id) ? SECRET_ARN : undefined) }), forward: passThrough(secrets.endpoint), ...common });
  endpoints.s3 = await startIamEndpoint({ rules: s3Rules(), forward: s3rverForward(`http://127.0.0.1:${s3Address.port}`, REGION, { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }), ...common });
  receiver = issuer.issue({ kind: 'role', roleArn: RECEIVER, sessionName: 'receiver-fn' }, 'receiver');
  sequencer = issuer.issue({ kind: 'role', roleArn: SEQUENCER, sessionName: 'sequencer-fn' }, 'sequencer');
  reader = issuer.issue({ kind: 'role', roleArn: READER, sessionName: 'reader-fn' }, 'reader');
});

afterAll(async () => {
  for (const endpoint of Object.values(endpoints)) await endpoint.close();
  await store.close();
  await kms.close();
  await secrets.close();
  await s3rver.close();
  rmSync(s3Dir, { recursive: true, force: true });
});

describe('DynamoDB: dynamodb:LeadingKeys as fine-grained access control evaluates it', () => {
  test('a receiver may write pending items (P#...) and nothing else, AccessDeniedException naming the action', async () => {
    const client = dynamo(sdkCredentials(receiver));
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'P#source#1' }, sk: { S: '#' } } }));
    const refused = await refusal(client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'R#ORD-1' }, sk: { S: '#' } } })));
    expect(refused).toMatchObject({ name: 'AccessDeniedException', status: 400 });
    expect(refused.message).toBe(
      `User: arn:aws:sts::${ACCOUNT}:assumed-role/Receiver/receiver-fn is not authorized to perform: dynamodb:PutItem on resource: ${TABLE_ARN} because no identity-based policy allows the dynamodb:PutItem action`,
    );
    expect(denials.at(-1)).toMatchObject({ label: 'receiver', action: 'dynamodb:PutItem', resource: TABLE_ARN });
    client.destroy();
  });

  test('a Query is judged by the partition its key condition fixes (names and values resolved)', async () => {
    const client = dynamo(sdkCredentials(receiver));
    const query = (pk: string) =>
      client.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: '#k = :p AND begins_with(sk, :t)', ExpressionAttributeNames: { '#k': 'pk' }, ExpressionAttributeValues: { ':p': { S: pk }, ':t': { S: 'T#' } } }));
    await expect(query('R#ORD-1')).resolves.toMatchObject({ Count: 0 });
    expect(await refusal(query('P#source#1'))).toMatchObject({ name: 'AccessDeniedException' });
    client.destroy();
  });

  test('a batch is refused whole when any key it writes is outside the allowed partitions', async () => {
    const client = dynamo(sdkCredentials(receiver));
    const batch = new BatchWriteItemCommand({ RequestItems: { [TABLE]: [{ PutRequest: { Item: { pk: { S: 'P#a' }, sk: { S: '#' } } } }, { PutRequest: { Item: { pk: { S: 'S#TABLE' }, sk: { S: '#' } } } }] } });
    expect(await refusal(client.send(batch))).toMatchObject({ name: 'AccessDeniedException' });
    client.destroy();
  });

  test('an unknown access key, a wrong secret and a missing session token are refused before any policy is read', async () => {
    expect(await refusal(dynamo({ accessKeyId: 'ASIAUNKNOWN', secretAccessKey: 'x', sessionToken: 't' }).send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'P#x' }, sk: { S: '#' } } }))))
      .toMatchObject({ name: 'UnrecognizedClientException' });
    expect(await refusal(dynamo({ ...sdkCredentials(receiver), secretAccessKey: 'wrong' }).send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'P#x' }, sk: { S: '#' } } }))))
      .toMatchObject({ name: 'InvalidSignatureException' });
    expect(await refusal(dynamo({ accessKeyId: receiver.accessKeyId, secretAccessKey: receiver.secretAccessKey }).send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'P#x' }, sk: { S: '#' } } }))))
      .toMatchObject({ name: 'UnrecognizedClientException' });
  });
});

test("KMS: the key policy's explicit deny refuses signing to every role but the sequencer, whatever IAM grants", async () => {
  const sign = (c: IssuedCredentials) =>
    new KMSClient({ endpoint: endpoints.kms.endpoint, region: REGION, credentials: sdkCredentials(c), maxAttempts: 1 }).send(
      new SignCommand({ KeyId: KEY_ARN, Message: Buffer.from('checkpoint'), MessageType: 'RAW', SigningAlgorithm: 'ED25519_SHA_512' }),
    );
  await expect(sign(sequencer)).resolves.toMatchObject({ KeyId: KEY_ARN });
  const refused = await refusal(sign(reader));
  expect(refused.name).toBe('AccessDeniedException');
  expect(refused.message).toMatch(/is not authorized to perform: kms:Sign on resource: .* with an explicit deny in a resource-based policy$/);
});

test('Secrets Manager: only a role granted the secret reads it', async () => {
  const read = (c: IssuedCredentials) =>
    new SecretsManagerClient({ endpoint: endpoints.secrets.endpoint, region: REGION, credentials: sdkCredentials(c), maxAttempts: 1 }).send(new GetSecretValueCommand({ SecretId: SECRET_ARN }));
  await expect(read(receiver)).resolves.toMatchObject({ SecretString: '{"service-platform":"whsec_x"}' });
  expect(await refusal(read(sequencer))).toMatchObject({ name: 'AccessDeniedException' });
});

test('S3: objects below the granted prefix only, refusals as 403 AccessDenied; content type and cache headers kept', async () => {
  const s3 = (c: IssuedCredentials) => new S3Client({ endpoint: endpoints.s3.endpoint, region: REGION, credentials: sdkCredentials(c), forcePathStyle: true, maxAttempts: 1 });
  await s3(sequencer).send(new PutObjectCommand({ Bucket: 'catalogue', Key: 'ledger/checkpoint', Body: 'tree', ContentType: 'text/plain; charset=utf-8', CacheControl: 'no-cache' }));
  const got = await s3(reader).send(new GetObjectCommand({ Bucket: 'catalogue', Key: 'ledger/checkpoint' }));
  expect([await got.Body!.transformToString(), got.ContentType, got.CacheControl]).toEqual(['tree', 'text/plain; charset=utf-8', 'no-cache']);
  expect(await refusal(s3(sequencer).send(new PutObjectCommand({ Bucket: 'catalogue', Key: 'developers/openapi.json', Body: '{}' })))).toMatchObject({ name: 'AccessDenied', status: 403 });
  expect(await refusal(s3(reader).send(new PutObjectCommand({ Bucket: 'catalogue', Key: 'ledger/checkpoint', Body: 'forged' })))).toMatchObject({ name: 'AccessDenied', status: 403 });
});
